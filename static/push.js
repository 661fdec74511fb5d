// "Notifications on this device" on the profile: subscribes this browser to Web Push with the
// server's key (asking for permission only on the click) and posts the subscription to
// /push/subscriptions; unchecked, it unsubscribes and tells the server. The list of devices
// below it is rendered by the server.
(function () {
  "use strict";
  var box = document.getElementById("push-toggle");
  var state = document.getElementById("push-state");
  var alertBox = document.getElementById("push-error");
  if (!box || !state) return;
  function say(text) { state.textContent = text; }
  function fail(text) {
    alertBox.textContent = text;
    alertBox.hidden = false;
    box.disabled = false;
  }
  var standalone = window.matchMedia("(display-mode: standalone)").matches || navigator.standalone === true;
  if (standalone) {
    var hint = document.querySelector("[data-testid=ios-install]");
    if (hint) hint.hidden = true;
  }
  if (!("serviceWorker" in navigator) || !("PushManager" in window) || !("Notification" in window) || !window.switchboardPush) {
    say(/iPhone|iPad/.test(navigator.userAgent) && !standalone
      ? "Add Switchboard to your Home Screen first (see above): Safari shows notifications only for apps opened from there."
      : "This browser cannot receive notifications.");
    return;
  }
  // The server's row for this session and this browser's own subscription must agree for the
  // box to be checked: a device removed on another page shows unchecked here.
  function known(sub) {
    return !!sub && Array.prototype.some.call(document.querySelectorAll("[data-endpoint]"), function (tr) {
      return tr.dataset.endpoint === sub.endpoint;
    });
  }
  function forget(endpoint) {
    return fetch("/push/subscriptions", {
      method: "DELETE", credentials: "same-origin",
      headers: { "Content-Type": "application/json" }, body: JSON.stringify({ endpoint: endpoint }),
    }).then(function (r) { if (!r.ok) throw new Error("HTTP " + r.status); });
  }
  function describe() {
    if (Notification.permission === "denied") {
      say("Notifications are blocked for this site: allow them in the browser's site settings, then try again.");
    } else {
      say(box.checked ? "On: this device shows new texts, mentions and assignments." : "Off for this device.");
    }
  }
  navigator.serviceWorker.ready.then(function (reg) {
    return reg.pushManager.getSubscription().then(function (sub) {
      box.checked = known(sub);
      box.disabled = false;
      describe();
      box.addEventListener("change", function () {
        alertBox.hidden = true;
        box.disabled = true;
        if (box.checked) {
          Notification.requestPermission().then(function (p) {
            if (p !== "granted") {
              box.checked = false;
              box.disabled = false;
              describe();
              return;
            }
            return window.switchboardPush.subscribe(reg, box.dataset.key)
              .then(function () { location.assign("/settings/profile?done=device-on"); });
          }).catch(function (err) {
            box.checked = false;
            fail("Notifications could not be turned on: " + err.message);
          });
        } else {
          reg.pushManager.getSubscription().then(function (s) {
            if (!s) return;
            var endpoint = s.endpoint;
            return s.unsubscribe().then(function () { return forget(endpoint); });
          }).then(function () { location.assign("/settings/profile?done=device-off"); })
            .catch(function (err) {
              box.checked = true;
              fail("Notifications could not be turned off: " + err.message);
            });
        }
      });
    });
  });
})();
