// Switchboard's keys, the contact picker and copy buttons. Every page works without this file:
// the "To" field takes a typed number, forms have their buttons, secrets sit in selectable
// read-only fields.
(function () {
  "use strict";
  var keys = [
    ["Ctrl+Enter or ⌘+Enter", "send the reply (or the form you are typing in)"],
    ["/", "search the inbox"],
    ["j / k", "next / previous conversation in the list"],
    ["Enter", "open the chosen conversation"],
    ["?", "show these keys"],
    ["Esc", "close this list"]
  ];

  function typing(el) {
    if (!el) return false;
    var tag = el.tagName;
    return tag === "INPUT" || tag === "TEXTAREA" || tag === "SELECT" || el.isContentEditable;
  }

  function keysDialog() {
    var d = document.getElementById("keys-dialog");
    if (d) return d;
    d = document.createElement("dialog");
    d.id = "keys-dialog";
    d.setAttribute("aria-labelledby", "keys-dialog-h");
    d.setAttribute("data-testid", "keys-dialog");
    var h = document.createElement("h2");
    h.id = "keys-dialog-h";
    h.textContent = "Keyboard shortcuts";
    d.appendChild(h);
    var dl = document.createElement("dl");
    dl.className = "facts";
    keys.forEach(function (k) {
      var dt = document.createElement("dt"), kbd = document.createElement("kbd"), dd = document.createElement("dd");
      kbd.textContent = k[0];
      dt.appendChild(kbd);
      dd.textContent = k[1];
      dl.appendChild(dt);
      dl.appendChild(dd);
    });
    d.appendChild(dl);
    var form = document.createElement("form");
    form.method = "dialog";
    var close = document.createElement("button");
    close.textContent = "Close";
    close.className = "small secondary";
    form.appendChild(close);
    d.appendChild(form);
    document.body.appendChild(d);
    return d;
  }

  // j/k move a marker through the inbox rows and focus the row's link (Enter opens it).
  function moveRow(step) {
    var rows = Array.prototype.slice.call(document.querySelectorAll('[data-testid="inbox-row"]'));
    if (rows.length === 0) return false;
    var at = rows.findIndex(function (r) { return r.classList.contains("kbd-current"); });
    var next = at < 0 ? (step > 0 ? 0 : rows.length - 1) : Math.min(rows.length - 1, Math.max(0, at + step));
    if (at >= 0) rows[at].classList.remove("kbd-current");
    rows[next].classList.add("kbd-current");
    rows[next].setAttribute("data-kbd-current", "");
    if (at >= 0 && at !== next) rows[at].removeAttribute("data-kbd-current");
    var link = rows[next].querySelector("a");
    if (link) link.focus();
    rows[next].scrollIntoView({ block: "nearest" });
    return true;
  }

  document.addEventListener("keydown", function (e) {
    // Ctrl+Enter / ⌘+Enter sends the form of the text area being typed in.
    if (e.key === "Enter" && (e.ctrlKey || e.metaKey) && e.target.tagName === "TEXTAREA" && e.target.form) {
      e.preventDefault();
      e.target.form.requestSubmit();
      return;
    }
    if (e.ctrlKey || e.metaKey || e.altKey || typing(e.target)) return;
    if (e.key === "/") {
      var q = document.querySelector('[data-testid="inbox-search"]');
      if (q) {
        e.preventDefault();
        q.focus();
        q.select();
      } else if (location.pathname !== "/inbox") {
        e.preventDefault();
        location.href = "/inbox#q";
      }
    } else if (e.key === "j" || e.key === "k") {
      if (moveRow(e.key === "j" ? 1 : -1)) e.preventDefault();
    } else if (e.key === "?") {
      e.preventDefault();
      var d = keysDialog();
      if (!d.open) d.showModal();
    }
  });

  // The contact picker: a suggestion puts its number in the field it names.
  document.addEventListener("click", function (e) {
    var b = e.target.closest ? e.target.closest("[data-fill]") : null;
    if (!b) return;
    var input = document.getElementById(b.getAttribute("data-fill"));
    if (!input) return;
    input.value = b.getAttribute("data-value");
    var list = b.closest("ul");
    if (list && list.parentNode) list.parentNode.textContent = "";
    input.focus();
  });

  // Copy buttons beside read-only secrets (data-copy); the field selects itself on focus.
  function wireCopy(root) {
    root.querySelectorAll("input[data-copy]").forEach(function (input) {
      if (input.dataset.copyWired) return;
      input.dataset.copyWired = "1";
      input.addEventListener("focus", function () { input.select(); });
      if (!navigator.clipboard) return;
      var b = document.createElement("button");
      b.type = "button";
      b.className = "small secondary copy";
      b.textContent = "Copy";
      b.setAttribute("data-testid", "copy-" + input.id);
      b.setAttribute("aria-label", "Copy " + (input.labels && input.labels[0] ? input.labels[0].textContent : "the value"));
      var status = document.createElement("span");
      status.setAttribute("role", "status");
      status.className = "muted small";
      b.addEventListener("click", function () {
        navigator.clipboard.writeText(input.value).then(function () {
          status.textContent = " Copied.";
        }, function () {
          input.select();
          status.textContent = " Press Ctrl+C (⌘+C) to copy.";
        });
      });
      input.insertAdjacentElement("afterend", b);
      b.insertAdjacentElement("afterend", status);
    });
  }

  // Snippets: "/shortcut" then Tab (or Enter) in the reply box, or the "Snippets" picker, puts
  // the snippet in, filled in by the server for this conversation's contact.
  function fetchSnippet(ta, shortcut, done) {
    var status = document.getElementById("snippet-status");
    fetch(ta.getAttribute("data-snippet-url") + "?s=" + encodeURIComponent(shortcut), { credentials: "same-origin" })
      .then(function (res) {
        return res.text().then(function (body) {
          if (res.ok) {
            if (status) status.textContent = "";
            done(body);
          } else if (status) {
            status.textContent = body || "That snippet could not be loaded.";
          }
        });
      });
  }
  function insertAt(ta, from, to, text) {
    ta.setRangeText(text, from, to, "end");
    ta.dispatchEvent(new Event("input", { bubbles: true }));
    ta.focus();
  }
  document.addEventListener("keydown", function (e) {
    var ta = e.target;
    if (ta.tagName !== "TEXTAREA" || !ta.hasAttribute("data-snippet-url")) return;
    if ((e.key !== "Tab" && e.key !== "Enter") || e.ctrlKey || e.metaKey || e.altKey || e.shiftKey) return;
    var before = ta.value.slice(0, ta.selectionStart);
    var m = /(^|\s)\/([A-Za-z0-9][A-Za-z0-9_-]*)$/.exec(before);
    if (!m) return;
    e.preventDefault();
    var start = ta.selectionStart - m[2].length - 1, end = ta.selectionStart;
    fetchSnippet(ta, m[2], function (text) { insertAt(ta, start, end, text); });
  }, true);
  document.addEventListener("submit", function (e) {
    var form = e.target;
    if (!form.matches || !form.matches("form.snippet-pick")) return;
    var ta = document.getElementById("reply-text");
    if (!ta) return;
    e.preventDefault();
    var shortcut = form.querySelector("select").value;
    fetchSnippet(ta, shortcut, function (text) { insertAt(ta, ta.selectionStart, ta.selectionEnd, text); });
  });

  document.addEventListener("DOMContentLoaded", function () {
    wireCopy(document);
    if (location.hash === "#q") {
      var q = document.querySelector('[data-testid="inbox-search"]');
      if (q) q.focus();
    }
  });
})();
