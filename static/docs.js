// Starts the vendored Redoc (redoc.standalone.js, MIT, see redoc.LICENSE) on /openapi.json.
// System fonts only: nothing is loaded from outside this server. The bundle is Redoc 2.5.4 as
// released but for one change: its attribution's logo, which it fetched from cdn.redoc.ly, is not
// drawn (the "API docs by Redocly" link stays), so the page asks nothing of another host.
(function () {
  var el = document.getElementById("redoc");
  var system = "system-ui, -apple-system, 'Segoe UI', Roboto, sans-serif";
  Redoc.init(el.getAttribute("data-spec-url"), {
    theme: {
      typography: {
        fontFamily: system,
        headings: { fontFamily: system },
        code: { fontFamily: "ui-monospace, SFMono-Regular, Menlo, Consolas, monospace" }
      }
    }
  }, el);
})();
