package cli

import (
	"regexp"
	"strings"
	"testing"
	"time"

	"switchboard/internal/testutil"

	"github.com/chromedp/chromedp"
)

// TestBrowserCompliance: a reply the carrier filters (30007) is explained in plain words in the
// thread; a contact who texted STOP shows the revoked consent on their page, which offers no
// way to opt them back in. Screenshots go to SCREENSHOT_DIR as compliance-*.png.
func TestBrowserCompliance(t *testing.T) {
	chrome := testutil.Chromium(t)
	data := t.TempDir()
	addr := "127.0.0.1:" + testutil.FreePort(t)
	srv := startServer(t, addr, nil, "-addr", addr, "-data="+data, "-log-requests=false")
	link := ""
	re := regexp.MustCompile(`one-time link\): (\S+)`)
	for deadline := time.Now().Add(5 * time.Second); link == "" && time.Now().Before(deadline); time.Sleep(20 * time.Millisecond) {
		if m := re.FindStringSubmatch(srv.stdout.String()); m != nil {
			link = m[1]
		}
	}
	if link == "" {
		t.Fatalf("serve printed no setup link; stdout:\n%s", srv.stdout)
	}
	base := "http://" + addr
	shots := newShots(t)
	ctx := testutil.StartChromium(t, chrome, 2*time.Minute)
	run := func(step string, actions ...chromedp.Action[chromedp.Void]) {
		t.Helper()
		if err := chromedp.Do(ctx, actions...); err != nil {
			shots.take(ctx, "compliance-failed")
			t.Fatalf("%s: %v", step, err)
		}
	}
	run("set up the administrator, a workspace and a number",
		chromedp.EmulateViewport(1280, 900),
		chromedp.Navigate(strings.Replace(link, "http://localhost:", "http://127.0.0.1:", 1)),
		chromedp.WaitVisible(testutil.TestID("setup-form")),
		chromedp.SendKeys(chromedp.CSS("#email"), "admin@acme.example"),
		chromedp.SendKeys(chromedp.CSS("#name"), "Dana Admin"),
		chromedp.SendKeys(chromedp.CSS("#password"), "correct horse battery"),
		chromedp.Click(testutil.TestID("setup-submit")),
		chromedp.WaitVisible(testutil.TestID("notice-link")),
		chromedp.Click(testutil.TestID("notice-link")),
		chromedp.WaitVisible(testutil.TestID("create-workspace-form")),
		chromedp.SendKeys(chromedp.CSS("#workspace-name"), "Acme Dental"),
		chromedp.Click(testutil.TestID("create-workspace-submit")),
		chromedp.WaitVisible(testutil.TestID("add-number-form")),
		chromedp.SendKeys(chromedp.CSS("#number-phone"), "+14155550100"),
		chromedp.Click(testutil.TestID("add-number-submit")),
		chromedp.WaitVisible(testutil.TestID("new-conversation-form")),
	)
	// The sandbox filters texts to +15005550007 as a carrier would (30007).
	run("a reply the carrier filters is explained",
		chromedp.SendKeys(chromedp.CSS("#new-to"), "+15005550007"),
		chromedp.Click(testutil.TestID("new-conversation-submit")),
		chromedp.WaitVisible(testutil.TestID("reply-form")),
		chromedp.SendKeys(testutil.TestID("reply-text"), "Big sale today"),
		chromedp.Click(testutil.TestID("reply-submit")),
		chromedp.WaitVisible(testutil.TestID("message-error-explained")),
	)
	explained, err := chromedp.Run(ctx, chromedp.Text(testutil.TestID("message-error-explained")))
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(explained, "filtered the message") || !strings.Contains(explained, "What to do") {
		t.Errorf("explanation %q, want what happened and what to do", explained)
	}
	shots.take(ctx, "compliance-01-30007")

	run("a contact texts STOP.",
		chromedp.Navigate(base+"/inbox"),
		chromedp.WaitVisible(testutil.TestID("new-conversation-form")),
		chromedp.SendKeys(chromedp.CSS("#new-to"), "+14155550123"),
		chromedp.Click(testutil.TestID("new-conversation-submit")),
		chromedp.WaitVisible(testutil.TestID("simulate-form")),
		chromedp.SendKeys(chromedp.CSS("#sim-text"), "Stop."),
		chromedp.Click(testutil.TestID("simulate-submit")),
		chromedp.WaitVisible(testutil.TestID("thread-opted-out")),
	)
	run("the contact page shows the revoked consent and no opt-in",
		chromedp.Navigate(base+"/contacts?q=4155550123"),
		chromedp.WaitVisible(testutil.TestID("contacts-list")),
		chromedp.Click(testutil.TestID("contact-link")),
		chromedp.WaitVisible(testutil.TestID("consent-history")),
		chromedp.WaitVisible(testutil.TestID("contact-optout-contact-only")),
	)
	page, err := chromedp.Run(ctx, chromedp.Text(chromedp.CSS("body")))
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(page, "revoked") || !strings.Contains(page, "keyword") {
		t.Errorf("the consent history lacks the revoked keyword entry:\n%s", page)
	}
	for _, offer := range []string{"Opt back in", "Lift the opt-out"} {
		if strings.Contains(page, offer) {
			t.Errorf("the contact page offers %q after a STOP", offer)
		}
	}
	shots.take(ctx, "compliance-02-contact")
}
