// Switchboard assist: the thread's Suggest reply, Summarize, Translate and Make it one segment.
// It posts the job to /inbox/{id}/assist and reads the answer as a stream of events (begin,
// delta, end, then error or done). A draft goes into the reply box, a summary or translation
// into the panel — always as text (value, textContent), never as HTML. Nothing is sent: the
// person sends the draft with "Send reply", or saves the summary as a note, or does neither.
// Cancel aborts the request, and the server then cancels the model's; the reply box gets back
// what it held before.
(function () {
  "use strict";
  var running = null; // { ctrl, box, before, drafting, note }
  var replaced = null; // the box's text that the last draft replaced, for "Put back my text"

  function $(id) { return document.getElementById(id); }
  function root() { return $("assist"); }
  function box() { return $("reply-text"); }
  function sendButton() { return document.querySelector('[data-testid="reply-submit"]'); }

  function say(text) { var s = $("assist-status"); if (s) s.textContent = text; }
  function fail(text) {
    var e = $("assist-error");
    if (e) e.textContent = text;
    say("");
  }

  // wire enables the buttons (they are disabled without JavaScript) of a page or of a reply
  // card swapped in by htmx.
  function wire() {
    var r = root();
    if (!r) return;
    r.querySelectorAll("[data-assist]").forEach(function (b) { b.disabled = !!running; });
  }

  function busy(on) {
    var r = root();
    if (!r) return;
    r.querySelectorAll("[data-assist]").forEach(function (b) { b.disabled = on; });
    var c = r.querySelector("[data-assist-cancel]");
    if (c) c.hidden = !on;
  }

  // drafting locks the reply box while the model writes into it: the person cannot send half a
  // draft, or type into text that is about to change.
  function drafting(on) {
    var b = box(), s = sendButton();
    if (b) b.readOnly = on;
    if (s) s.disabled = on;
    if (running) running.drafting = on;
  }

  function counted(b) { b.dispatchEvent(new Event("input", { bubbles: true })); } // the segment counter

  function restore() {
    if (running && running.drafting && running.box) {
      running.box.value = running.before;
      counted(running.box);
    }
    drafting(false);
  }

  function undoButton() { var r = root(); return r && r.querySelector("[data-assist-undo]"); }

  function panel(title, savable) {
    var p = $("assist-panel");
    if (!p) return null;
    p.hidden = false;
    var note = $("assist-note"), form = $("assist-save"), area = $("assist-summary");
    var save = p.querySelector('[data-testid="assist-save"]');
    savable = savable && !!form; // a group conversation takes no notes: the summary is only shown
    var h = $("assist-panel-title");
    h.textContent = title;
    h.hidden = savable; // the summary's field says what it is
    note.textContent = "";
    note.hidden = savable;
    if (form) form.hidden = !savable;
    if (save) save.hidden = !savable;
    if (savable) { area.value = ""; area.readOnly = true; }
    return savable ? area : note;
  }

  function append(el, text) {
    if (el.tagName === "TEXTAREA") el.value += text; else el.textContent += text;
  }

  function replace(el, text) {
    if (el.tagName === "TEXTAREA") el.value = text; else el.textContent = text;
  }

  function handle(type, data) {
    var ev = {};
    try { ev = JSON.parse(data || "{}"); } catch (e) { return; }
    if (type === "begin") {
      if (ev.target === "draft") {
        drafting(true);
        if (!ev.checked) running.box.value = "";
        say(ev.checked ? "Rewriting the draft to fit one segment…" : "Writing a draft…");
      } else {
        running.note = panel(ev.title || "", !!ev.savable);
        say(ev.savable ? "Summarizing…" : "Translating…");
      }
    } else if (type === "delta") {
      if (ev.target === "draft") {
        running.box.value += ev.text;
        running.box.scrollTop = running.box.scrollHeight;
        counted(running.box);
      } else if (running.note) {
        append(running.note, ev.text);
      }
    } else if (type === "end") {
      if (ev.target === "draft") {
        running.box.value = ev.text;
        drafting(false);
        counted(running.box);
        if (running.before.trim() !== "" && running.before !== ev.text) {
          replaced = running.before;
          var u = undoButton();
          if (u) u.hidden = false;
        }
        say((ev.notice ? ev.notice + " " : "") + "This is a draft: edit it, then send it yourself.");
      } else if (running.note) {
        replace(running.note, ev.text);
        if (running.note.tagName === "TEXTAREA") running.note.readOnly = false;
        say(ev.notice || (running.note.tagName === "TEXTAREA" ? "Summary ready: save it as an internal note if it helps." : "Translation ready."));
      }
    } else if (type === "error") {
      restore();
      fail(ev.error || "Assist failed.");
    }
  }

  function readError(res) {
    return res.text().then(function (t) {
      try { return JSON.parse(t).error || t; } catch (e) { return "Assist could not start (" + res.status + ")."; }
    });
  }

  function start(kind) {
    var r = root(), b = box();
    if (running || !r || !b) return;
    var ctrl = new AbortController();
    running = { ctrl: ctrl, box: b, before: b.value, drafting: false, note: null };
    replaced = null;
    if (undoButton()) undoButton().hidden = true;
    $("assist-error").textContent = "";
    say("Asking the model…");
    busy(true);
    var body = new URLSearchParams();
    body.set("kind", kind);
    body.set("draft", b.value);
    fetch(r.dataset.assistUrl, { method: "POST", body: body, signal: ctrl.signal, credentials: "same-origin",
      headers: { "Accept": "text/event-stream" } })
      .then(function (res) {
        if (!res.ok) return readError(res).then(fail);
        if ((res.headers.get("Content-Type") || "").indexOf("text/event-stream") !== 0) {
          return fail("Your session may have ended: reload the page.");
        }
        var reader = res.body.getReader(), dec = new TextDecoder(), buf = "";
        function pump() {
          return reader.read().then(function (chunk) {
            if (chunk.done) return;
            buf += dec.decode(chunk.value, { stream: true });
            var i;
            while ((i = buf.indexOf("\n\n")) >= 0) {
              var block = buf.slice(0, i), type = "message", data = "";
              buf = buf.slice(i + 2);
              block.split("\n").forEach(function (line) {
                if (line.indexOf("event: ") === 0) type = line.slice(7);
                else if (line.indexOf("data: ") === 0) data += line.slice(6);
              });
              handle(type, data);
            }
            return pump();
          });
        }
        return pump();
      })
      .catch(function (err) {
        restore();
        if (err && err.name === "AbortError") say("Cancelled: nothing was changed.");
        else fail("Assist stopped: the connection to the server was lost.");
      })
      .then(function () {
        if (running && running.drafting) { // the stream ended before its draft did
          restore();
          fail("Assist stopped before the draft was finished.");
        }
        running = null;
        busy(false);
      });
  }

  document.addEventListener("click", function (e) {
    var t = e.target.closest ? e.target : e.target.parentElement;
    if (!t || !t.closest) return;
    var b = t.closest("[data-assist]");
    if (b && root() && root().contains(b)) { start(b.dataset.assist); return; }
    if (t.closest("[data-assist-cancel]") && running) { running.ctrl.abort(); return; }
    if (t.closest("[data-assist-dismiss]")) { var p = $("assist-panel"); if (p) p.hidden = true; }
    if (t.closest("[data-assist-undo]") && replaced !== null && box()) {
      box().value = replaced;
      counted(box());
      replaced = null;
      t.closest("[data-assist-undo]").hidden = true;
      say("Your text is back.");
    }
  });

  // While the model writes into the reply box, the reply is not sent (Ctrl+Enter included).
  document.addEventListener("submit", function (e) {
    if (running && running.drafting && e.target.matches && e.target.matches('[data-testid="reply-form"]')) {
      e.preventDefault();
      e.stopPropagation();
    }
  }, true);

  // A saved summary closes the panel: the note is in the thread now.
  document.addEventListener("htmx:afterRequest", function (e) {
    var xhr = e.detail && e.detail.xhr;
    // The comment card answers 200 with its errors too; a saved note comes with its notice.
    if (e.target && e.target.id === "assist-save" && xhr && xhr.responseText.indexOf('data-testid="flash"') >= 0) {
      var p = $("assist-panel");
      if (p) p.hidden = true;
      say("Saved as an internal note.");
    }
  });

  if (document.readyState === "loading") document.addEventListener("DOMContentLoaded", wire);
  else wire();
  document.addEventListener("htmx:load", wire);
})();
