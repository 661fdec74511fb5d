// Switchboard as an installed app: registers the service worker (/sw.js) on every page, asks it
// to refill its cache on a signed-in page (signing out empties it), keeps the app's badge at
// the header's unread count, and renews this browser's push subscription when the server's key
// changed (a restore onto a new machine): the browser subscribes again on its next visit.
(function () {
  "use strict";
  if (!("serviceWorker" in navigator)) return;
  navigator.serviceWorker.register("/sw.js", { scope: "/" }).catch(function () {});
  var signedIn = document.body && document.body.classList.contains("app");

  function b64url(buf) {
    return btoa(String.fromCharCode.apply(null, new Uint8Array(buf))).replace(/\+/g, "-").replace(/\//g, "_").replace(/=+$/, "");
  }
  // subscribe subscribes the browser with the server's key (replacing a subscription made with
  // another key) and posts it to the server under this session.
  function subscribe(reg, key) {
    return reg.pushManager.getSubscription().then(function (old) {
      var oldKey = old && old.options && old.options.applicationServerKey;
      if (old && (!oldKey || b64url(oldKey) !== key)) return old.unsubscribe();
    }).then(function () {
      return reg.pushManager.subscribe({ userVisibleOnly: true, applicationServerKey: key });
    }).then(function (s) {
      return fetch("/push/subscriptions", {
        method: "POST", credentials: "same-origin",
        headers: { "Content-Type": "application/json" }, body: JSON.stringify(s.toJSON()),
      });
    }).then(function (r) {
      if (r.ok) return r;
      return r.json().catch(function () { return null; }).then(function (j) {
        throw new Error(Array.isArray(j) ? j.map(function (e) { return e.field + " " + e.message; }).join("; ") : (j && j.error) || ("HTTP " + r.status));
      });
    });
  }
  window.switchboardPush = { subscribe: subscribe };

  if (signedIn) {
    navigator.serviceWorker.ready.then(function (reg) {
      if (reg.active) reg.active.postMessage("warm");
      if (!("PushManager" in window) || !("Notification" in window) || Notification.permission !== "granted") return;
      return reg.pushManager.getSubscription().then(function (sub) {
        var had = sub && sub.options && sub.options.applicationServerKey;
        if (!had) return;
        return fetch("/push/key", { credentials: "same-origin" }).then(function (r) { return r.ok ? r.text() : ""; }).then(function (key) {
          if (key && b64url(had) !== key) return subscribe(reg, key);
        });
      });
    }).catch(function () {});
  }
  function badge(n) {
    if (!navigator.setAppBadge) return;
    (n > 0 ? navigator.setAppBadge(n) : navigator.clearAppBadge()).catch(function () {});
  }
  window.switchboardBadge = badge;
  document.addEventListener("DOMContentLoaded", function () {
    var el = document.getElementById("unread-count");
    if (signedIn && el) badge(parseInt(el.dataset.count || "0", 10) || 0);
  });
})();
