// Switchboard admin UI: the few things a page does better with JavaScript. Every form works
// without it.
(function () {
  "use strict";
  // The SMS segment count, as store.Segments computes it on the server (GSM-7: 160 / 153 per
  // part, extension characters cost two; anything else makes it UCS-2: 70 / 67, astral
  // characters cost two; a two-unit character never splits across parts).
  var basic = "@£$¥èéùìòÇ\nØø\rÅåΔ_ΦΓΛΩΠΨΣΘΞÆæßÉ !\"#¤%&'()*+,-./0123456789:;<=>?" +
    "¡ABCDEFGHIJKLMNOPQRSTUVWXYZÄÖÑÜ§¿abcdefghijklmnopqrstuvwxyzäöñüà";
  var ext = "\f^{}\\[~]|€";
  function segments(text) {
    var chars = Array.from(text);
    if (chars.length === 0) return { n: 0, enc: "GSM-7" };
    var gsm = chars.every(function (c) { return basic.indexOf(c) >= 0 || ext.indexOf(c) >= 0; });
    var single = gsm ? 160 : 70, part = gsm ? 153 : 67;
    var cost = function (c) { return gsm ? (ext.indexOf(c) >= 0 ? 2 : 1) : (c.codePointAt(0) > 0xffff ? 2 : 1); };
    var total = 0;
    chars.forEach(function (c) { total += cost(c); });
    if (total <= single) return { n: 1, enc: gsm ? "GSM-7" : "UCS-2" };
    var parts = 1, used = 0;
    chars.forEach(function (c) {
      var k = cost(c);
      if (used + k > part) { parts++; used = 0; }
      used += k;
    });
    return { n: parts, enc: gsm ? "GSM-7" : "UCS-2" };
  }
  function wireCounters(root) {
    root.querySelectorAll("textarea[data-segments]").forEach(function (ta) {
      if (ta.dataset.wired) return;
      ta.dataset.wired = "1";
      var out = document.getElementById(ta.dataset.segments);
      var update = function () {
        var s = segments(ta.value.trim());
        out.textContent = s.n + (s.n === 1 ? " segment" : " segments") + " (" + s.enc + ")";
      };
      ta.addEventListener("input", update);
      update();
    });
  }
  function wireAutosubmit(root) {
    root.querySelectorAll("select[data-autosubmit]").forEach(function (sel) {
      sel.addEventListener("change", function () { sel.form.submit(); });
    });
  }
  // Other scripts of a page (compose.js) count segments the same way.
  window.switchboardSegments = segments;
  document.addEventListener("DOMContentLoaded", function () {
    wireCounters(document);
    wireAutosubmit(document);
    // A form sent back with errors opens on its summary: focused, so it is read out first.
    var summary = document.getElementById("error-summary");
    if (summary) summary.focus();
  });
  // A summary's link goes to its field and puts the cursor in it (a link alone only scrolls).
  document.addEventListener("click", function (e) {
    var a = e.target.closest && e.target.closest(".error-summary a[href^='#']");
    var field = a && document.getElementById(a.getAttribute("href").slice(1));
    if (!field) return;
    e.preventDefault();
    field.scrollIntoView({ block: "center" });
    field.focus();
  });
  // A form answered in place (htmx) brings a new textarea: count its segments too.
  document.addEventListener("htmx:load", function (e) { wireCounters(e.target); });
})();
// A "from number" select with data-warn names the element that shows the chosen number's
// registration warning (the option's data-warning): it follows the choice. The page is served
// with the first choice's warning, so it works without this too.
(function () {
  "use strict";
  document.addEventListener("change", function (e) {
    var sel = e.target;
    if (!sel.matches || !sel.matches("select[data-warn]")) return;
    var out = document.getElementById(sel.dataset.warn);
    var opt = sel.options[sel.selectedIndex];
    if (!out || !opt) return;
    var w = opt.dataset.warning || "";
    out.textContent = w;
    out.hidden = w === "";
  });
})();
