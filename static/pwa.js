// Switchboard as an installed app: registers the service worker (/sw.js) on every page, asks it
// to refill its cache on a signed-in page (signing out empties it), and keeps the app's badge
// at the header's unread count.
(function () {
  "use strict";
  if (!("serviceWorker" in navigator)) return;
  navigator.serviceWorker.register("/sw.js", { scope: "/" }).catch(function () {});
  var signedIn = document.body && document.body.classList.contains("app");
  if (signedIn) {
    navigator.serviceWorker.ready.then(function (reg) { if (reg.active) reg.active.postMessage("warm"); });
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
