package cli

import (
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
	base := "http://" + addr
	b := openBrowser(t, chrome, 2*time.Minute, nil)
	b.failShot = "compliance-failed"
	b.setUpAdmin(setupLink(t, srv))
	b.setUpWorkspace()
	// The sandbox filters texts to +15005550007 as a carrier would (30007).
	b.run("a reply the carrier filters is explained",
		chromedp.SendKeys(chromedp.CSS("#new-to"), "+15005550007"),
		chromedp.Click(testutil.TestID("new-conversation-submit")),
		chromedp.WaitVisible(testutil.TestID("reply-form")),
		chromedp.SendKeys(testutil.TestID("reply-text"), "Big sale today"),
		chromedp.Click(testutil.TestID("reply-submit")),
		chromedp.WaitVisible(testutil.TestID("message-error-explained")),
	)
	explained, err := chromedp.Run(b.ctx, chromedp.Text(testutil.TestID("message-error-explained")))
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(explained, "filtered the message") || !strings.Contains(explained, "What to do") {
		t.Errorf("explanation %q, want what happened and what to do", explained)
	}
	b.shot("compliance-01-30007")

	b.run("a contact texts STOP.",
		chromedp.Navigate(base+"/inbox"),
		chromedp.WaitVisible(testutil.TestID("new-conversation-form")),
		chromedp.SendKeys(chromedp.CSS("#new-to"), "+14155550123"),
		chromedp.Click(testutil.TestID("new-conversation-submit")),
		chromedp.WaitVisible(testutil.TestID("simulate-form")),
		chromedp.SendKeys(chromedp.CSS("#sim-text"), "Stop."),
		chromedp.Click(testutil.TestID("simulate-submit")),
		chromedp.WaitVisible(testutil.TestID("thread-opted-out")),
	)
	b.run("the contact page shows the revoked consent and no opt-in",
		chromedp.Navigate(base+"/contacts?q=4155550123"),
		chromedp.WaitVisible(testutil.TestID("contacts-list")),
		chromedp.Click(testutil.TestID("contact-link")),
		chromedp.WaitVisible(testutil.TestID("consent-history")),
		chromedp.WaitVisible(testutil.TestID("contact-optout-contact-only")),
	)
	page, err := chromedp.Run(b.ctx, chromedp.Text(chromedp.CSS("body")))
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
	b.shot("compliance-02-contact")
}
