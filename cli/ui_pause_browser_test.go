package cli

import (
	"context"
	"net/http"
	"strings"
	"testing"
	"time"

	"switchboard/internal/testutil"

	"github.com/chromedp/chromedp"
)

// TestBrowserPauseAndRegistration: a broadcast whose copies keep failing shows on its page why
// it paused and a Resume that finishes it; the numbers page edits a number's registration; the
// compose pages warn when the chosen number is not approved. Screenshots at 1280 and 390 px go
// to SCREENSHOT_DIR as page-pause-*.png (no page scrolls sideways on the phone).
func TestBrowserPauseAndRegistration(t *testing.T) {
	chrome := testutil.Chromium(t)
	fake := newTwilioFake(t)
	f := newFixture(t)
	addTwilioNumber(t, f, "25")
	rec := phones("+1303", 5550000, 150)
	for i, p := range rec {
		if i%10 < 3 {
			fake.script(p, fakeAnswer{status: 400, code: 30007, message: "Message filtered"})
		}
	}
	srv := startTwilioServer(t, f, fake)
	client := uiClient(t, srv.base)
	var b struct{ ID string }
	apiOK(t, srv.base, f.token, "send-broadcast-action", map[string]any{"developerProvider": "zapier", "id": f.ws, "from": twilioPhone,
		"name": "Spring sale", "recipients": rec, "text": "Spring sale: 20 % off cleanings this week."}, http.StatusAccepted, &b)
	waitBroadcast(t, client, srv.base, b.ID, 30*time.Second, "paused", func(f broadcastFigures) bool { return f.Status == "paused" })

	shots := newShots(t)
	ctx := testutil.StartChromium(t, chrome, 3*time.Minute)
	run := func(step string, actions ...chromedp.Action[chromedp.Void]) {
		t.Helper()
		sctx, cancel := context.WithTimeout(ctx, 30*time.Second)
		defer cancel()
		if err := chromedp.Do(sctx, actions...); err != nil {
			shots.take(ctx, "pause-failed")
			t.Fatalf("%s: %v", step, err)
		}
	}
	text := func(sel string) string {
		t.Helper()
		v, err := chromedp.Run(ctx, chromedp.Text(testutil.TestID(sel)))
		if err != nil {
			t.Fatalf("text of %s: %v", sel, err)
		}
		return v
	}
	run("sign in",
		chromedp.EmulateViewport(1280, 900),
		chromedp.Navigate(srv.base+"/login"),
		chromedp.WaitVisible(testutil.TestID("login-form")),
		chromedp.SendKeys(testutil.TestID("login-email"), "ana@example.com"),
		chromedp.SendKeys(testutil.TestID("login-password"), "correct horse"),
		chromedp.Click(testutil.TestID("login-submit")),
		chromedp.WaitVisible(testutil.TestID("new-conversation-form")),
	)

	// The paused broadcast says why, and offers Resume.
	checkPhonePage(t, ctx, shots, "pause-broadcast", srv.base+"/broadcasts/"+b.ID, true)
	run("the paused page", chromedp.EmulateViewport(1280, 900), chromedp.WaitVisible(testutil.TestID("broadcast-resume")))
	if reason := text("broadcast-paused-reason"); !strings.Contains(reason, "of the first") || !strings.Contains(reason, "more than 20 %") {
		t.Errorf("pause reason %q, want the failed and judged counts", reason)
	}
	if got := text("broadcast-status"); got != "paused" {
		t.Errorf("status %q, want paused", got)
	}

	// The compose pages warn: the Twilio number is local and unregistered.
	checkPhonePage(t, ctx, shots, "pause-compose", srv.base+"/broadcasts/new", true)
	choose := func(selectID string) chromedp.Action[chromedp.Void] {
		return chromedp.Evaluate[chromedp.Void](`(() => { const s = document.querySelector('#` + selectID + `'); s.value = '` + twilioPhone +
			`'; s.dispatchEvent(new Event('change', {bubbles: true})); })()`)
	}
	run("broadcast compose: choosing the Twilio number shows the warning",
		chromedp.EmulateViewport(1280, 900),
		chromedp.WaitVisible(testutil.TestID("bc-from")),
		choose("bc-from"),
		chromedp.WaitVisible(`#bc-from-warning`),
	)
	if w := text("registration-warning"); !strings.Contains(w, twilioPhone) || !strings.Contains(w, "unregistered") {
		t.Errorf("compose warning %q, want the number and its status", w)
	}
	shots.take(ctx, "page-pause-compose-warning-1280")
	run("the sandbox number has no warning",
		chromedp.Evaluate[chromedp.Void](`(() => { const s = document.querySelector('#bc-from'); s.value = '+14155550100'; s.dispatchEvent(new Event('change', {bubbles: true})); })()`),
		chromedp.WaitNotVisible(`#bc-from-warning`),
	)
	run("new conversation: the same warning",
		chromedp.Navigate(srv.base+"/inbox"),
		chromedp.WaitVisible(testutil.TestID("new-from")),
		choose("new-from"),
		chromedp.WaitVisible(`#new-from-warning`),
	)

	// The numbers page records the registration: approved, the warning goes.
	checkPhonePage(t, ctx, shots, "pause-numbers", srv.base+"/settings/numbers", true)
	form := `[data-testid="registration-form"][data-phone="` + twilioPhone + `"]`
	run("approve the Twilio number",
		chromedp.EmulateViewport(1280, 900),
		chromedp.WaitVisible(form),
		chromedp.SetValue(form+` [name="registrationStatus"]`, "approved"),
		chromedp.SendKeys(form+` [name="brandId"]`, "BN1234"),
		chromedp.SendKeys(form+` [name="campaignId"]`, "CM5678"),
		chromedp.Click(form+` [data-testid="registration-save"]`),
		chromedp.WaitVisible(testutil.TestID("flash")),
	)
	badge, err := chromedp.Run(ctx, chromedp.Text(form+` [data-testid="registration-status"]`))
	if err != nil || badge != "approved" {
		t.Errorf("registration badge %q (%v), want approved", badge, err)
	}
	if brand, _ := chromedp.Run(ctx, chromedp.Value(form+` [name="brandId"]`)); brand != "BN1234" {
		t.Errorf("brand id %q after saving, want BN1234", brand)
	}
	shots.take(ctx, "page-pause-numbers-saved-1280")
	run("no warning for an approved number",
		chromedp.Navigate(srv.base+"/broadcasts/new"),
		chromedp.WaitVisible(testutil.TestID("bc-from")),
		choose("bc-from"),
		chromedp.WaitNotVisible(`#bc-from-warning`),
	)

	// Resume: the page follows the broadcast to its end.
	run("resume",
		chromedp.Navigate(srv.base+"/broadcasts/"+b.ID),
		chromedp.WaitVisible(testutil.TestID("broadcast-resume")),
		chromedp.Click(testutil.TestID("broadcast-resume")),
		chromedp.WaitVisible(testutil.TestID("flash")),
		poll(`document.querySelector('[data-testid="broadcast-progress"]').dataset.status === "sent"`, nil),
	)
	if sent, failed := text("count-sent"), text("count-failed"); sent != "105" || failed != "45" {
		t.Errorf("after the resume: sent %s failed %s, want 105 and 45", sent, failed)
	}
	if got := text("broadcast-was-paused"); !strings.Contains(got, "then resumed") {
		t.Errorf("finished page says %q, want that it was paused and resumed", got)
	}
	shots.take(ctx, "page-pause-resumed-1280")
}
