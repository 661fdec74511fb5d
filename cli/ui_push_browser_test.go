package cli

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/cdproto/browser"
	"github.com/chromedp/cdproto/cdp"
	"github.com/chromedp/cdproto/page"
	"github.com/chromedp/cdproto/pwa"
	"github.com/chromedp/cdproto/serviceworker"
	"github.com/chromedp/cdproto/target"
	"github.com/chromedp/chromedp"

	"switchboard/internal/testutil"
	"switchboard/store"
)

// stubPushService stands in for the browser's own push service registration, which needs the
// browser maker's servers (the sandbox reaches none): PushManager.subscribe hands out the test
// device's subscription, and getSubscription finds it again after a reload. Everything past
// the browser — the server, the encryption, the push service — is real.
func stubPushService(deviceJSON string) string {
	return fmt.Sprintf(`(() => {
		if (!self.PushManager) return;
		const KEY = "switchboard-test-push";
		const make = (j) => ({ endpoint: j.endpoint, expirationTime: null, toJSON: () => j,
			unsubscribe: () => { localStorage.removeItem(KEY); return Promise.resolve(true); } });
		PushManager.prototype.subscribe = function () {
			localStorage.setItem(KEY, %q);
			return Promise.resolve(make(JSON.parse(%q)));
		};
		PushManager.prototype.getSubscription = function () {
			const s = localStorage.getItem(KEY);
			return Promise.resolve(s ? make(JSON.parse(s)) : null);
		};
	})()`, deviceJSON, deviceJSON)
}

// TestBrowserInstallablePushApp drives the installable app in Chromium: the inbox is
// installable (no installability error), the profile's "Notifications on this device" turns on
// and lists the device, a customer's text reaches the push service, and that very push,
// delivered to the service worker through DevTools, shows a notification — none while the
// app is in front — whose click opens the thread. Offline, a page is the offline page.
func TestBrowserInstallablePushApp(t *testing.T) {
	chrome := testutil.Chromium(t)
	f := newFixture(t)
	ps := testutil.StartPushService(t)
	srv := startPushServer(t, f)
	b := openBrowser(t, chrome, 3*time.Minute, nil)
	within := chromedp.WithPollingTimeout(10 * time.Second)
	dev := ps.NewDevice()
	_, err := chromedp.Call(b.ctx, page.AddScriptToEvaluateOnNewDocument, page.AddScriptToEvaluateOnNewDocumentParams{Source: stubPushService(dev.JSON())})
	testutil.NoErr(t, err)
	_, err = chromedp.CallBrowser(b.ctx, browser.SetPermission, browser.SetPermissionParams{
		Permission: &browser.PermissionDescriptor{Name: "notifications"}, Setting: browser.PermissionSettingGranted, Origin: srv.base})
	testutil.NoErr(t, err)

	b.signIn(srv.base+"/login", "ana@example.com", "correct horse", testutil.TestID("inbox-list-region"))
	b.run("the service worker controls the page", poll(`navigator.serviceWorker.controller !== null`, nil, within))
	errs, err := chromedp.Call(b.ctx, page.GetInstallabilityErrors, cdp.Empty{})
	testutil.NoErr(t, err)
	for _, e := range errs.InstallabilityErrors {
		t.Errorf("installability error on /inbox: %s %+v", e.ErrorID, e.ErrorArguments)
	}
	caches, err := chromedp.Run(b.ctx, chromedp.Evaluate[[]string](`caches.keys().then(async ks => {
		const out = [];
		for (const k of ks) for (const r of await (await caches.open(k)).keys()) out.push(new URL(r.url).pathname + new URL(r.url).search);
		return out; })`, chromedp.EvalAwaitPromise))
	testutil.NoErr(t, err)
	for _, u := range caches {
		if u != "/offline" && !(strings.HasPrefix(u, "/static/") && strings.Contains(u, "?v=")) {
			t.Errorf("the service worker cached %s: only versioned static files and the offline page may be", u)
		}
	}
	if len(caches) < 5 {
		t.Errorf("the service worker cached %v; want the offline page and the static files", caches)
	}

	// Another device of the same user (Safari on an iPhone, its own session), for the list.
	other := browserSignIn(t, srv.base)
	otherDev := ps.NewDevice()
	req, _ := http.NewRequest("POST", srv.base+"/push/subscriptions", strings.NewReader(otherDev.JSON()))
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("User-Agent", "Mozilla/5.0 (iPhone; CPU iPhone OS 17_5 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/17.5 Mobile/15E148 Safari/604.1")
	res, err := other.Do(req)
	testutil.NoErr(t, err)
	res.Body.Close()

	b.run("open the profile", chromedp.Navigate(srv.base+"/settings/profile"), chromedp.WaitVisible(testutil.TestID("push-section")),
		poll(`!document.getElementById("push-toggle").disabled`, nil, within))
	box := b.labelled("push-section", "Notifications on this device")
	b.run("turn on notifications on this device", chromedp.Click(box),
		chromedp.WaitVisible(testutil.TestID("flash")), poll(`document.querySelectorAll('[data-testid="device-row"]').length === 2`, nil, within),
		poll(`document.getElementById("push-toggle").checked`, nil, within))
	if got := b.text(testutil.TestID("flash")); got != "Notifications are on for this device." {
		t.Fatalf("after turning notifications on the page says %q", got)
	}
	if list := b.text(testutil.TestID("devices-list")); !strings.Contains(list, "(this browser)") || !strings.Contains(list, "Safari on iPhone") {
		t.Fatalf("the device list reads %q", list)
	}
	b.run("phone width", phone, poll(`document.documentElement.scrollWidth <= window.innerWidth`, nil, within),
		chromedp.ScrollIntoView(testutil.TestID("push-section")))
	b.shot("push-profile-devices-phone")
	b.run("desktop width", desktop)

	// A customer's text: the server pushes it to both devices through the push service.
	textIn(t, srv.base, f.token, "+14155550123", "Is my 3pm still on?")
	pushes := ps.WaitFor(2, 10*time.Second)
	var payload store.PushPayload
	testutil.NoErr(t, json.Unmarshal(pushes[0].Payload, &payload))
	if payload.Body != "Is my 3pm still on?" || payload.Title != "(415) 555-0123" {
		t.Fatalf("the push carried %+v", payload)
	}

	// The same push, delivered to this browser's service worker through DevTools.
	reg := registrationID(t, b.ctx, srv.base)
	deliver := func(data []byte) {
		t.Helper()
		_, err := chromedp.Call(b.ctx, serviceworker.DeliverPushMessage, serviceworker.DeliverPushMessageParams{
			Origin: srv.base, RegistrationID: reg, Data: string(data)})
		testutil.NoErr(t, err)
	}
	sw := workerContext(t, b.ctx)
	notifications := func() string {
		t.Helper()
		s, err := chromedp.Run(sw, chromedp.Evaluate[string](`self.registration.getNotifications().then(ns =>
			JSON.stringify(ns.map(n => ({title: n.title, body: n.body, tag: n.tag, url: n.data && n.data.url}))))`, chromedp.EvalAwaitPromise))
		testutil.NoErr(t, err)
		return s
	}
	// In front of the user, the page shows the text live: no notification. (The shown one
	// below, delivered after, is the proof the worker handled this one.)
	b.run("the inbox in front", chromedp.Navigate(srv.base+"/inbox"), chromedp.WaitVisible(testutil.TestID("inbox-list-region")))
	inFront := strings.Replace(string(pushes[0].Payload), payload.ConversationID, "01ARZ3NDEKTSV4RRFFQ69G5FAV", 2)
	deliver([]byte(inFront))
	b.run("the app goes to the background", chromedp.Navigate("about:blank"))
	waitCount(t, sw, `self.clients.matchAll({type: "window", includeUncontrolled: true}).then(ws => ws.length)`, 0, "windows of the app the worker sees after it left")
	deliver(pushes[0].Payload)
	want := fmt.Sprintf(`[{"title":"(415) 555-0123","body":"Is my 3pm still on?","tag":%q,"url":"/inbox/%s"}]`, payload.ConversationID, payload.ConversationID)
	deadline := time.Now().Add(10 * time.Second)
	for got := notifications(); got != want; got = notifications() {
		if time.Now().After(deadline) {
			t.Fatalf("notifications shown: %s\nwant %s", got, want)
		}
		time.Sleep(50 * time.Millisecond)
	}
	// A click opens the thread in the app's window.
	b.run("a window of the app", chromedp.Navigate(srv.base+"/inbox"), chromedp.WaitVisible(testutil.TestID("inbox-list-region")))
	_, err = chromedp.Run(sw, chromedp.Evaluate[chromedp.Void](`self.registration.getNotifications().then(ns =>
		self.dispatchEvent(new NotificationEvent("notificationclick", {notification: ns[0]})))`, chromedp.EvalAwaitPromise))
	testutil.NoErr(t, err)
	b.run("the click opened the thread", poll(fmt.Sprintf(`location.pathname === "/inbox/%s" && !!document.querySelector('[data-testid="thread-items"]')`, payload.ConversationID), nil, within))
	if texts := b.text(testutil.TestID("thread-items")); !strings.Contains(texts, "Is my 3pm still on?") {
		t.Fatalf("the thread the click opened reads %q", texts)
	}

	// The inbox as the installed app shows it: installed and launched through DevTools (PWA
	// domain), in its own window in display-mode standalone, at a phone's width.
	manifestID := srv.base + "/"
	_, err = chromedp.CallBrowser(b.ctx, pwa.Install, pwa.InstallParams{ManifestID: manifestID, InstallURLOrBundleURL: srv.base + "/inbox"})
	testutil.NoErr(t, err)
	_, err = chromedp.CallBrowser(b.ctx, pwa.Launch, pwa.LaunchParams{ManifestID: manifestID})
	testutil.NoErr(t, err)
	appTarget := newPage(t, b.ctx)
	appCtx, cancelApp := chromedp.NewContext(b.ctx, chromedp.WithTargetID(appTarget))
	defer cancelApp()
	app := &browserSession{t: t, ctx: appCtx, shots: b.shots}
	// Headless Chromium has no app windows, so the launched app shows in a tab (display-mode
	// browser); what it shows is the installed app's inbox all the same.
	app.run("the installed app opens on the inbox", phone, chromedp.WaitVisible(testutil.TestID("inbox-list-region")),
		poll(`navigator.serviceWorker.controller !== null`, nil, within))
	if w, err := chromedp.Run(appCtx, chromedp.Evaluate[[]int](`[document.documentElement.scrollWidth, window.innerWidth]`)); err != nil || w[0] > w[1] {
		t.Errorf("the installed app's inbox at 390 px scrolls sideways: %v (%v)", w, err)
	}
	app.shot("push-installed-inbox-phone")

	// Offline: with the server out of reach, a page is the offline page from the worker's
	// cache. (DevTools' network emulation does not reach the worker's own fetches in this
	// Chromium, so the test takes the network away for real: the server stops.)
	if code := srv.stop(t); code != 0 {
		t.Fatalf("exit %d", code)
	}
	_, err = chromedp.Run(b.ctx, chromedp.Navigate(srv.base+"/contacts"))
	if err != nil && !strings.Contains(err.Error(), "net::ERR") {
		t.Fatal(err)
	}
	b.run("the offline page", chromedp.WaitVisible(testutil.TestID("offline-notice")))
	if got := b.text(testutil.TestID("offline-notice")); got != "You are offline: new messages appear when you reconnect." {
		t.Fatalf("offline, the page says %q", got)
	}
	b.shotPhone("push-offline-phone")
	srv = startPushServerAt(t, f, strings.TrimPrefix(srv.base, "http://"))

	// Signing out clears the worker's caches; the subscriptions of that session are gone.
	b.run("sign out", chromedp.Navigate(srv.base+"/inbox"), chromedp.WaitVisible(testutil.TestID("sign-out")),
		chromedp.Click(testutil.TestID("sign-out")), chromedp.WaitVisible(testutil.TestID("login-form")))
	waitCount(t, b.ctx, `caches.keys().then(ks => ks.length)`, 0, "caches left after signing out")
	if n := countDevices(t, srv.base); n != 1 {
		t.Fatalf("after signing out the user has %d devices, want 1 (the iPhone's, its own session)", n)
	}
}

// waitCount waits up to 10 s for the promise expr to give want in ctx (a page or the worker).
func waitCount(t *testing.T, ctx context.Context, expr string, want int, what string) {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for {
		n, err := chromedp.Run(ctx, chromedp.Evaluate[int](expr, chromedp.EvalAwaitPromise))
		testutil.NoErr(t, err)
		if n == want {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("%s: %d, want %d", what, n, want)
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// countDevices counts the user's devices on the profile, read by a session of its own.
func countDevices(t *testing.T, base string) int {
	t.Helper()
	res, err := browserSignIn(t, base).Get(base + "/settings/profile")
	testutil.NoErr(t, err)
	defer res.Body.Close()
	page, _ := io.ReadAll(res.Body)
	return strings.Count(string(page), `data-testid="device-row"`)
}

// newPage waits for a page target other than ctx's own (a window the browser opened) and
// returns its id.
func newPage(t *testing.T, ctx context.Context) target.ID {
	t.Helper()
	own := chromedp.FromContext(ctx).Target.TargetID
	deadline := time.Now().Add(10 * time.Second)
	for time.Now().Before(deadline) {
		ts, err := chromedp.Targets(ctx)
		testutil.NoErr(t, err)
		for _, x := range ts {
			if x.Type == "page" && x.TargetID != own {
				return x.TargetID
			}
		}
		time.Sleep(50 * time.Millisecond)
	}
	t.Fatal("no window opened")
	return ""
}

// registrationID is the id of the origin's service worker registration, for DevTools.
func registrationID(t *testing.T, ctx context.Context, origin string) serviceworker.RegistrationID {
	t.Helper()
	ev, err := chromedp.Run(ctx, chromedp.WaitEvent(serviceworker.WorkerRegistrationUpdated, func(e serviceworker.EventWorkerRegistrationUpdated) bool {
		for _, r := range e.Registrations {
			if r.ScopeURL == origin+"/" && !r.IsDeleted {
				return true
			}
		}
		return false
	}, chromedp.Func(func(ctx context.Context, tg *chromedp.Target) error {
		_, err := cdp.Call(ctx, tg, serviceworker.Enable, cdp.Empty{})
		return err
	})))
	testutil.NoErr(t, err)
	for _, r := range ev.Registrations {
		if r.ScopeURL == origin+"/" {
			return r.RegistrationID
		}
	}
	t.Fatal("no service worker registration")
	return ""
}

// workerContext attaches to the service worker's target, to evaluate in its scope.
func workerContext(t *testing.T, ctx context.Context) context.Context {
	t.Helper()
	targets, err := chromedp.Targets(ctx)
	testutil.NoErr(t, err)
	for _, tg := range targets {
		if tg.Type == "service_worker" {
			sw, cancel := chromedp.NewContext(ctx, chromedp.WithTargetID(target.ID(tg.TargetID)))
			t.Cleanup(cancel)
			return sw
		}
	}
	t.Fatal("no service worker target")
	return nil
}
