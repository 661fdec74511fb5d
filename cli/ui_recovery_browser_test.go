package cli

import (
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"

	"switchboard/internal/fakecarrier"
	"switchboard/internal/testutil"
)

// TestBrowserInboundRecovery: after a start, the superuser finds on the Admin overview, and on the
// Carriers page its Missed texts card leads to, when each carrier was last asked for missed texts
// and what came of it — Twilio's two texts recovered, Telnyx's listing failing — and the
// recovered texts in the inbox. Screenshots at 1366 and 390 px go to SCREENSHOT_DIR as
// recovery-*.png.
func TestBrowserInboundRecovery(t *testing.T) {
	chrome := testutil.Chromium(t)
	key := testutil.NewTelnyxKey(t)
	tw := fakecarrier.NewTwilio(t, fakeAccountSID, fakeAuthToken)
	tx := fakecarrier.NewTelnyx(t, fakeTelnyxAK)
	f := newFixture(t)
	addTwilioNumber(t, f, "")
	r := sb(t, []string{"SWITCHBOARD_TELNYX_API_KEY=" + fakeTelnyxAK}, "admin", "add-number", "-data="+f.data, "--workspace", f.ws,
		"--phone", telnyxPhone, "--carrier", "telnyx")
	if r.code != 0 {
		t.Fatalf("add-number --carrier telnyx: exit %d, %q", r.code, r.stderr)
	}
	tw.Receive("+14155550111", twilioPhone, "Can I move my cleaning to Friday?")
	tw.Receive("+14155550122", twilioPhone, "Thanks, see you then")
	tx.Fail("records", fakecarrier.Fault{Status: 503, Body: `{"errors":[{"code":"10011","title":"Service unavailable"}]}`})
	started := time.Now().Add(-time.Second)
	srv := recoveryServer(t, f, tw, tx, key)
	deadline := time.Now().Add(20 * time.Second)
	for scrapeMetric(t, srv.base, `switchboard_inbound_recovery_failures_total{carrier="telnyx"}`) < 1 ||
		scrapeMetric(t, srv.base, `switchboard_inbound_recovery_last_success_timestamp_seconds{carrier="twilio"}`) < float64(started.Unix()) {
		if time.Now().After(deadline) {
			t.Fatalf("the first checks did not end; stderr:\n%s", srv.stderr)
		}
		time.Sleep(20 * time.Millisecond)
	}

	b := openBrowser(t, chrome, 2*time.Minute, nil)
	b.failShot = "recovery-failed"
	b.signIn(srv.base+"/admin", "ana@example.com", "correct horse", testutil.TestID("overview-recovery"))
	lines := func(where string) {
		t.Helper()
		if got := b.text(testutil.TestID("recovery-twilio")); !strings.Contains(got, "2 texts recovered") || !strings.Contains(got, "looking back to") {
			t.Fatalf("%s: Twilio's line: %q", where, got)
		}
		if got := b.text(testutil.TestID("recovery-telnyx")); !strings.Contains(got, "failed. Telnyx had a problem (HTTP 503)") {
			t.Fatalf("%s: Telnyx's line: %q", where, got)
		}
	}
	lines("the overview")
	if got := b.text(chromedp.CSS("#ov-recovery")); got != "Missed texts" {
		t.Fatalf("the overview's card is headed %q", got)
	}
	b.run("scroll to the overview's missed texts", chromedp.ScrollIntoView(testutil.TestID("overview-recovery")))
	b.shotWidths("recovery-overview")
	b.run("follow the card's heading to the Carriers page", chromedp.Click(chromedp.CSS("#ov-recovery a")),
		chromedp.WaitVisible(testutil.TestID("inbound-recovery")))
	lines("the Carriers page")
	b.run("scroll to the missed texts", chromedp.ScrollIntoView(testutil.TestID("inbound-recovery")))
	b.shotWidths("recovery")
	b.run("the inbox", desktop, chromedp.Navigate(srv.base+"/inbox"), chromedp.WaitVisible(testutil.TestID("inbox-row")))
	page := b.text(chromedp.CSS("main"))
	for _, want := range []string{"Can I move my cleaning to Friday?", "Thanks, see you then"} {
		if !strings.Contains(page, want) {
			t.Fatalf("the inbox lacks %q:\n%s", want, page)
		}
	}
	b.shot("recovery-inbox-1280")
}
