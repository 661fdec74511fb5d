// Switchboard live inbox: listens to GET /events and updates the page in place. Every event
// names what changed; the page fetches only that part, rendered by the server with the same
// component as a full load: the inbox list, the new or changed items of an open thread, the
// unread count. Without JavaScript, or when the stream is unavailable, a reload shows the same.
(function () {
  "use strict";
  var body = document.body;
  var url = body && body.dataset.live;
  if (!url || !window.EventSource) return;
  var baseTitle = body.dataset.title || document.title;

  function get(u) {
    // HX-Request makes a signed-out answer a 401 instead of the sign-in page.
    return fetch(u, { headers: { "HX-Request": "true" }, credentials: "same-origin" }).then(function (r) {
      if (r.status === 401) { location.reload(); throw new Error("signed out"); }
      if (!r.ok) throw new Error(u + ": " + r.status);
      return r;
    });
  }
  function fragment(html) {
    var t = document.createElement("template");
    t.innerHTML = html;
    return t.content;
  }

  // ---- the unread count: header link and title ----
  function setCount(n) {
    var el = document.getElementById("unread-count");
    if (el) {
      el.dataset.count = String(n);
      el.hidden = n === 0;
      el.innerHTML = n > 0 ? '<span class="visually-hidden">, unread: </span>' + n : "";
    }
    document.title = (n > 0 ? "(" + n + ") " : "") + baseTitle + " · Switchboard";
    if (window.switchboardBadge) window.switchboardBadge(n); // the installed app's badge
  }
  function refreshCount() {
    return get("/inbox/unread").then(function (r) { return r.json(); }).then(function (d) { setCount(d.unread); });
  }

  // ---- the inbox list ----
  function refreshList() {
    var region = document.getElementById("inbox-list-region");
    if (!region) return Promise.resolve();
    return get(region.dataset.listUrl).then(function (r) { return r.text(); }).then(function (html) {
      var now = document.getElementById("inbox-list-region");
      if (now) now.replaceWith(fragment(html));
    });
  }

  // One refresh at a time; events during one make one more afterwards, at least gap ms after
  // the last began (a broadcast's stream of events costs a refresh every gap ms, not one each).
  function serial(fn, gap) {
    var running = false, again = false, last = 0;
    return function run() {
      if (running) { again = true; return; }
      var wait = last + (gap || 0) - Date.now();
      if (wait > 0) { running = true; setTimeout(function () { running = false; run(); }, wait); return; }
      running = true;
      again = false;
      last = Date.now();
      fn().catch(function () {}).then(function () {
        running = false;
        if (again) { again = false; run(); }
      });
    };
  }
  var refreshPage = serial(function () { return Promise.all([refreshCount(), refreshList()]); }, 250);

  // ---- the open thread ----
  // The list is looked up each time: a form sent in place swaps it (htmx, out of band). New
  // items go to the end of the window; "Show earlier" puts older ones in #thread-earlier.
  function threadList() { return document.getElementById("thread-items"); }
  var first = threadList();
  var conversation = first && first.dataset.conversation;
  function newestID(list) {
    var max = "";
    list.querySelectorAll("[data-id]").forEach(function (li) { if (li.dataset.id > max) max = li.dataset.id; });
    return max;
  }
  var appendNew = serial(function () {
    var list = threadList();
    if (!list) return Promise.resolve();
    return get(list.dataset.itemsUrl + "?after=" + encodeURIComponent(newestID(list))).then(function (r) { return r.text(); }).then(function (html) {
      var now = threadList();
      if (!now) return;
      var added = false;
      Array.from(fragment(html).children).forEach(function (li) {
        if (!document.getElementById(li.id)) { now.appendChild(li); added = true; }
      });
      if (added) {
        var empty = now.querySelector('[data-testid="thread-empty"]');
        if (empty) empty.remove();
      }
      reconcile();
    });
  });
  function replaceItem(id) {
    var list = threadList();
    return get(list.dataset.itemsUrl + "?id=" + encodeURIComponent(id)).then(function (r) { return r.text(); }).then(function (html) {
      var li = fragment(html).firstElementChild;
      var old = document.getElementById("item-" + id);
      if (li && old) old.replaceWith(li);
    }).catch(function () {});
  }
  // The newest status each message's events gave: an item put in the page after its event (by
  // the appender, or by a form's answer rendered before the change) is fetched again.
  var seen = {};
  function reconcile() {
    Object.keys(seen).forEach(function (id) {
      var li = document.getElementById("item-" + id);
      if (li && li.dataset.status !== seen[id]) replaceItem(id);
    });
  }
  document.addEventListener("htmx:afterSettle", reconcile);
  function setStatus(status) {
    var el = document.getElementById("thread-status");
    if (!el || !status) return;
    el.textContent = status;
    el.className = "badge badge-" + status;
  }
  function onThread(type, d) {
    if (!conversation || !threadList() || d.conversationId !== conversation) return;
    if (type === "message") seen[d.messageId] = d.status;
    if (type === "message" && document.getElementById("item-" + d.messageId)) {
      replaceItem(d.messageId);
    } else if (type === "message" || type === "comment") {
      appendNew();
    } else if (type === "conversation") {
      if (d.change === "status") setStatus(d.status);
      // A triage change's event names its activity entry: append it at the end of the thread.
      if (d.entryId) appendNew();
    }
  }

  // ---- desktop notifications ----
  var button = document.getElementById("enable-notifications");
  if (button && "Notification" in window && Notification.permission === "default") {
    button.hidden = false;
    button.addEventListener("click", function () {
      Notification.requestPermission().then(function (p) { if (p !== "default") button.hidden = true; });
    });
  }
  function beep() {
    var Ctx = window.AudioContext || window.webkitAudioContext;
    if (!Ctx) return;
    try {
      var ctx = new Ctx(), osc = ctx.createOscillator(), gain = ctx.createGain();
      osc.frequency.value = 880;
      gain.gain.value = 0.1;
      osc.connect(gain);
      gain.connect(ctx.destination);
      osc.start();
      osc.stop(ctx.currentTime + 0.15);
    } catch (e) { /* no sound available */ }
  }
  function notify(d) {
    if (!("Notification" in window) || Notification.permission !== "granted") return;
    // The open thread shows it already.
    if (conversation === d.conversationId && document.visibilityState === "visible") return;
    var n = new Notification(d.title || "Switchboard", { body: d.body || "", tag: d.conversationId });
    n.onclick = function () { window.focus(); location.href = "/inbox/" + d.conversationId; };
    if (d.sound) beep();
  }

  // ---- the stream ----
  var source = new EventSource(url);
  function on(type, fn) {
    source.addEventListener(type, function (e) {
      var d;
      try { d = JSON.parse(e.data); } catch (err) { return; }
      fn(type, d);
    });
  }
  ["message", "conversation", "comment"].forEach(function (type) {
    on(type, function (t, d) {
      onThread(t, d);
      // A message's status change moves nothing in the list and changes no count.
      if (t !== "message" || d.new) refreshPage();
    });
  });
  on("notification", function (t, d) { notify(d); });
  source.addEventListener("reset", function () { location.reload(); });
  source.addEventListener("error", function () {
    // A refused stream (signed out, removed from the workspace) is closed for good; the next
    // reload shows why.
    if (source.readyState === EventSource.CLOSED) source.close();
  });
  window.switchboardLive = source;
})();
