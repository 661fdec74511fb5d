package cli

import (
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

	br := openBrowser(t, chrome, 3*time.Minute, nil)
	br.stepLimit, br.failShot = 30*time.Second, "pause-failed"
	br.signIn(srv.base+"/login", "ana@example.com", "correct horse", testutil.TestID("new-conversation-form"))

	// The paused broadcast says why, and offers Resume.
	checkPhonePage(t, br, "pause-broadcast", srv.base+"/broadcasts/"+b.ID, true)
	br.run("the paused page", desktop, chromedp.WaitVisible(testutil.TestID("broadcast-resume")))
	if reason := br.text(testutil.TestID("broadcast-paused-reason")); !strings.Contains(reason, "of the first") || !strings.Contains(reason, "more than 20 %") {
		t.Errorf("pause reason %q, want the failed and judged counts", reason)
	}
	if got := br.text(testutil.TestID("broadcast-status")); got != "paused" {
		t.Errorf("status %q, want paused", got)
	}

	// The compose pages warn: the Twilio number is local and unregistered.
	checkPhonePage(t, br, "pause-compose", srv.base+"/broadcasts/new", true)
	choose := func(selectID string) chromedp.Action[chromedp.Void] {
		return chromedp.Evaluate[chromedp.Void](`(() => { const s = document.querySelector('#` + selectID + `'); s.value = '` + twilioPhone +
			`'; s.dispatchEvent(new Event('change', {bubbles: true})); })()`)
	}
	br.run("broadcast compose: choosing the Twilio number shows the warning",
		desktop,
		chromedp.WaitVisible(testutil.TestID("bc-from")),
		choose("bc-from"),
		chromedp.WaitVisible(`#bc-from-warning`),
	)
	if w := br.text(testutil.TestID("registration-warning")); !strings.Contains(w, twilioPhone) || !strings.Contains(w, "unregistered") {
		t.Errorf("compose warning %q, want the number and its status", w)
	}
	br.shot("page-pause-compose-warning-1280")
	br.run("the sandbox number has no warning",
		chromedp.Evaluate[chromedp.Void](`(() => { const s = document.querySelector('#bc-from'); s.value = '+14155550100'; s.dispatchEvent(new Event('change', {bubbles: true})); })()`),
		chromedp.WaitNotVisible(`#bc-from-warning`),
	)
	br.run("new conversation: the same warning",
		chromedp.Navigate(srv.base+"/inbox"),
		chromedp.WaitVisible(testutil.TestID("new-from")),
		choose("new-from"),
		chromedp.WaitVisible(`#new-from-warning`),
	)

	// The numbers page records the registration: approved, the warning goes.
	checkPhonePage(t, br, "pause-numbers", srv.base+"/settings/numbers", true)
	form := `[data-testid="registration-form"][data-phone="` + twilioPhone + `"]`
	br.run("approve the Twilio number",
		desktop,
		chromedp.WaitVisible(form),
		chromedp.SetValue(form+` [name="registrationStatus"]`, "approved"),
		chromedp.SendKeys(form+` [name="brandId"]`, "BN1234"),
		chromedp.SendKeys(form+` [name="campaignId"]`, "CM5678"),
		chromedp.Click(form+` [data-testid="registration-save"]`),
		chromedp.WaitVisible(testutil.TestID("flash")),
	)
	badge, err := chromedp.Run(br.ctx, chromedp.Text(form+` [data-testid="registration-status"]`))
	if err != nil || badge != "approved" {
		t.Errorf("registration badge %q (%v), want approved", badge, err)
	}
	if brand, _ := chromedp.Run(br.ctx, chromedp.Value(form+` [name="brandId"]`)); brand != "BN1234" {
		t.Errorf("brand id %q after saving, want BN1234", brand)
	}
	br.shot("page-pause-numbers-saved-1280")
	br.run("no warning for an approved number",
		chromedp.Navigate(srv.base+"/broadcasts/new"),
		chromedp.WaitVisible(testutil.TestID("bc-from")),
		choose("bc-from"),
		chromedp.WaitNotVisible(`#bc-from-warning`),
	)

	// Resume: the page follows the broadcast to its end.
	br.run("resume",
		chromedp.Navigate(srv.base+"/broadcasts/"+b.ID),
		chromedp.WaitVisible(testutil.TestID("broadcast-resume")),
		chromedp.Click(testutil.TestID("broadcast-resume")),
		chromedp.WaitVisible(testutil.TestID("flash")),
		poll(`document.querySelector('[data-testid="broadcast-progress"]').dataset.status === "sent"`, nil),
	)
	if sent, failed := br.text(testutil.TestID("count-sent")), br.text(testutil.TestID("count-failed")); sent != "105" || failed != "45" {
		t.Errorf("after the resume: sent %s failed %s, want 105 and 45", sent, failed)
	}
	if got := br.text(testutil.TestID("broadcast-was-paused")); !strings.Contains(got, "then resumed") {
		t.Errorf("finished page says %q, want that it was paused and resumed", got)
	}
	br.shot("page-pause-resumed-1280")
}
