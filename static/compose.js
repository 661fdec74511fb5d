// Switchboard broadcast compose: the preview of the text with its merge tags rendered for a
// sample contact and the opt-out footer when it is asked for, and its segment count, as you
// type. The worst case over the chosen recipients comes from the server (htmx). The server
// renders the same preview on every load and validates the text (store.CheckTemplate) when the
// form is sent.
(function () {
  "use strict";
  // The merge tag syntax of store/mergetag.go: {{name}} or {{name|fallback}}, white space
  // around the name and the fallback trimmed; a tag's value that is empty takes the fallback.
  var tag = /\{\{([^{}|]*?)(?:\|([^{}|]*?))?\}\}/g;
  var name = /^[A-Za-z][A-Za-z0-9_]*$/;
  function render(text, values) {
    var unknown = [];
    var out = text.replace(tag, function (all, n, fallback) {
      n = n.trim();
      if (!name.test(n)) return all;
      if (!Object.prototype.hasOwnProperty.call(values, n)) {
        unknown.push("{{" + n + "}}");
        return all;
      }
      var v = values[n] || "";
      if (v === "" && fallback !== undefined) v = fallback.trim();
      return v;
    });
    return { text: out, unknown: unknown };
  }
  function wire() {
    var ta = document.querySelector("textarea[data-preview]");
    if (!ta) return;
    var out = document.getElementById(ta.dataset.preview);
    var count = document.getElementById(ta.dataset.previewSegments);
    var values = {};
    try { values = JSON.parse(ta.dataset.sample || "{}"); } catch (e) { values = {}; }
    // "Add opt-out instructions": the footer goes on a copy whose rendered text does not say
    // STOP in any case, alone on a media-only copy (store.WithOptOutInstructions).
    var footer = ta.dataset.footer || "";
    var box = ta.dataset.footerBox ? document.getElementById(ta.dataset.footerBox) : null;
    var withFooter = function (text) {
      if (!box || !box.checked || !footer || text.toUpperCase().indexOf("STOP") >= 0) return text;
      return text === "" ? footer.trim() : text + footer;
    };
    var update = function () {
      var r = render(ta.value.trim(), values);
      r.text = withFooter(r.text);
      out.textContent = r.text;
      var s = window.switchboardSegments ? window.switchboardSegments(r.text) : null;
      var line = s ? s.n + (s.n === 1 ? " segment" : " segments") + " (" + s.enc + ")" : "";
      if (r.unknown.length) line += " · unknown merge tag " + r.unknown.join(", ");
      count.textContent = line;
    };
    ta.addEventListener("input", update);
    if (box) box.addEventListener("change", update);
    update();
  }
  if (document.readyState === "loading") document.addEventListener("DOMContentLoaded", wire);
  else wire();
})();
