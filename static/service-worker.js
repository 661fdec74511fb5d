// Switchboard's service worker, served as /sw.js (scope /) with this build's asset version and
// files filled in. It keeps only this build's versioned static files and the offline page —
// never a signed-in page nor an API answer, so a shared phone holds nobody's data — and shows
// Web Push notifications. Signing out clears its caches and ends this browser's subscription.
"use strict";

const VERSION = "__VERSION__";
const PRECACHE = ["__PRECACHE__"];
const CACHE = "switchboard-" + VERSION;
const OFFLINE = "/offline";

function precache() {
  return caches.open(CACHE).then((c) => c.addAll(PRECACHE.map((u) => new Request(u, { cache: "reload" }))));
}

// A new build's worker fills its own cache, then takes over at once: pages opened from then on
// load this build's files, which no older cache holds under the same versioned URL.
self.addEventListener("install", (e) => {
  e.waitUntil(precache().then(() => self.skipWaiting()));
});

self.addEventListener("activate", (e) => {
  e.waitUntil(caches.keys()
    .then((keys) => Promise.all(keys.filter((k) => k !== CACHE).map((k) => caches.delete(k))))
    .then(() => self.clients.claim()));
});

// Signing out on this browser: every cache goes, and so does the push subscription (the server
// deleted its copy with the session).
function signedOut() {
  return Promise.all([
    caches.keys().then((keys) => Promise.all(keys.map((k) => caches.delete(k)))),
    self.registration.pushManager.getSubscription().then((s) => s && s.unsubscribe()),
  ]).catch(() => {});
}

self.addEventListener("fetch", (e) => {
  const req = e.request;
  const url = new URL(req.url);
  if (url.origin !== self.location.origin) return;
  if (req.method === "POST" && (url.pathname === "/logout" || url.pathname === "/oauth/logout")) {
    e.waitUntil(signedOut());
    return; // the sign-out itself goes to the server as usual
  }
  if (req.method !== "GET") return;
  if (req.mode === "navigate") {
    // Pages always come from the server; only when it cannot be reached, the offline page.
    e.respondWith(fetch(req).catch(() => caches.match(OFFLINE).then((r) => r || Response.error())));
    return;
  }
  if (url.pathname.startsWith("/static/") && url.searchParams.get("v") === VERSION) {
    e.respondWith(caches.open(CACHE).then((c) => c.match(req).then((hit) => hit || fetch(req).then((res) => {
      if (res.ok) c.put(req, res.clone());
      return res;
    }))));
  }
  // Everything else (API answers, fragments, the event stream, media) is not touched.
});

// A signed-in page asks for the cache back after a sign-out emptied it.
self.addEventListener("message", (e) => {
  if (e.data === "warm") e.waitUntil(caches.has(CACHE).then((has) => has || precache()));
});

// ---- Web Push ----
// The payload: {title, body, url, conversationId, workspace, unread, reason}.
self.addEventListener("push", (e) => {
  let d = {};
  try { d = e.data ? e.data.json() : {}; } catch (err) { d = {}; }
  e.waitUntil((async () => {
    if (typeof d.unread === "number" && self.navigator.setAppBadge) {
      await (d.unread > 0 ? self.navigator.setAppBadge(d.unread) : self.navigator.clearAppBadge()).catch(() => {});
    }
    // A window of the app in front of the user already shows it live.
    const wins = await self.clients.matchAll({ type: "window", includeUncontrolled: true });
    if (wins.some((w) => w.focused && w.visibilityState === "visible")) return;
    await self.registration.showNotification(d.title || "Switchboard", {
      body: d.body || "",
      tag: d.conversationId || "switchboard", // a newer text of the conversation replaces the older
      renotify: true,
      icon: "/static/icon-192.png",
      badge: "/static/icon-192.png",
      timestamp: Date.now(),
      data: { url: d.url || "/inbox", workspace: d.workspace || "" },
    });
  })());
});

// A click opens the thread: in a window already showing it, else in an open window of the app,
// else in a new one.
self.addEventListener("notificationclick", (e) => {
  e.notification.close();
  const url = new URL((e.notification.data && e.notification.data.url) || "/inbox", self.location.origin).href;
  e.waitUntil((async () => {
    const wins = await self.clients.matchAll({ type: "window", includeUncontrolled: true });
    const same = wins.find((w) => w.url === url);
    if (same) return same.focus();
    for (const w of wins) {
      try {
        const moved = await w.navigate(url);
        if (moved) return moved.focus().catch(() => moved);
      } catch (err) { /* not controlled by this worker: try the next */ }
    }
    return self.clients.openWindow(url);
  })());
});

// The push service renewed the subscription: tell the server, under the same session.
self.addEventListener("pushsubscriptionchange", (e) => {
  e.waitUntil(fetch("/push/key", { credentials: "same-origin" })
    .then((r) => r.text())
    .then((key) => self.registration.pushManager.subscribe({ userVisibleOnly: true, applicationServerKey: key }))
    .then((sub) => fetch("/push/subscriptions", {
      method: "POST", credentials: "same-origin",
      headers: { "Content-Type": "application/json" }, body: JSON.stringify(sub),
    }))
    .catch(() => {}));
});
