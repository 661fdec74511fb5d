package cli

import (
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"

	"switchboard/internal/fakecarrier"
	"switchboard/internal/testutil"
)

// The carrier pages' screenshots are taken at the shared laptop width and on a phone.
var (
	narrow  = chromedp.EmulateViewport(390, 844)
	setupRe = regexp.MustCompile(`one-time link\): (\S+)`)
)

// TestBrowserConnectCarrier drives Chromium through connecting Twilio and wiring numbers, as an
// office manager would: the first administrator connects the account (a wrong token first),
// adds a number of the account from the numbers page, takes over one that texts elsewhere, buys
// one after a confirmation naming its monthly price, and checks a number with a test text.
// Screenshots at 1366 and 390 px go to SCREENSHOT_DIR as carriers-*.png.
func TestBrowserConnectCarrier(t *testing.T) {
	chrome := testutil.Chromium(t)
	tw := fakecarrier.NewTwilio(t, connSID, connToken)
	tx := fakecarrier.NewTelnyx(t, "KEY_unused_telnyx_key")
	tw.Own(fakecarrier.TwilioNumber{Phone: connPhone})
	tw.Own(fakecarrier.TwilioNumber{Phone: "+14155550178", SMSURL: "https://old-crm.example/twilio/sms"})
	tw.Offer(fakecarrier.TwilioNumber{Phone: "+14155550123", Locality: "San Francisco", Region: "CA"},
		fakecarrier.TwilioNumber{Phone: "+14155550124", Locality: "San Francisco", Region: "CA"})
	srv := carrierServer(t, t.TempDir(), tw, tx)
	base := srv.base
	m := setupRe.FindStringSubmatch(srv.stdout.String())
	if m == nil {
		t.Fatalf("no setup link in:\n%s", srv.stdout)
	}
	link := strings.Replace(m[1], publicURL, base, 1)

	b := openBrowser(t, chrome, 3*time.Minute, nil)
	b.failShot = "carriers-failed"
	b.setUpAdmin(link)
	b.setUpWorkspace()
	both := func(name string) {
		t.Helper()
		b.run("laptop width", laptop)
		b.shot(name + "-1366")
		b.run("phone width", narrow)
		b.shot(name + "-390")
		b.run("laptop width", laptop)
	}

	// Connect Twilio: a wrong token is refused with Twilio's words, the right one kept.
	b.run("open the carriers page", laptop, chromedp.Navigate(base+"/admin/carriers"), chromedp.WaitVisible(testutil.TestID("twilio-connect-form")))
	both("carriers-01-empty")
	b.run("type a wrong token",
		chromedp.SendKeys(b.labelled("twilio-connect-form", "Account SID"), connSID),
		chromedp.SendKeys(b.labelled("twilio-connect-form", "Auth Token"), "wrong-token-0000"),
		b.submit("twilio-connect-form", "twilio-connect", "Check and connect Twilio"),
		chromedp.WaitVisible(testutil.TestID("form-error")),
	)
	if got := b.text(testutil.TestID("form-error")); !strings.Contains(got, "Twilio said: authentication failed") {
		t.Fatalf("wrong token: %q", got)
	}
	both("carriers-02-refused")
	b.run("type the right token",
		chromedp.SendKeys(b.labelled("twilio-connect-form", "Auth Token"), connToken),
		b.submit("twilio-connect-form", "twilio-connect", "Check and connect Twilio"),
		chromedp.WaitVisible(testutil.TestID("twilio-last4")),
	)
	if got := b.text(testutil.TestID("twilio-last4")); !strings.Contains(got, "7d3f") {
		t.Fatalf("last four: %q", got)
	}
	both("carriers-03-connected")

	// Add a number of the account from the numbers page.
	b.run("numbers page", chromedp.Navigate(base+"/settings/numbers"), chromedp.WaitVisible(testutil.TestID("add-from-twilio")))
	if got := b.text(testutil.TestID("add-from-twilio")); got != "Add a number from Twilio" {
		t.Fatalf("the link reads %q", got)
	}
	b.run("open the account's numbers", chromedp.Click(testutil.TestID("add-from-twilio")), chromedp.WaitVisible(testutil.TestID("account-numbers-form")))
	both("carriers-04-account-numbers")
	b.run("add one",
		chromedp.Click(b.labelled("account-numbers-form", "(415) 555-0177")),
		chromedp.SendKeys(b.labelled("account-numbers-form", "Name"), "Front desk"),
		b.submit("account-numbers-form", "account-add", "Add number"),
		chromedp.WaitVisible(testutil.TestID("flash")),
	)
	if got := b.text(testutil.TestID("flash")); !strings.Contains(got, "Receiving: checked") {
		t.Fatalf("after adding: %q", got)
	}
	both("carriers-05-added")

	// One that texts elsewhere asks first.
	b.run("the account's numbers again", chromedp.Navigate(base+"/settings/numbers/add?carrier=twilio"), chromedp.WaitVisible(testutil.TestID("account-numbers-form")))
	b.run("add the one wired elsewhere",
		chromedp.Click(b.labelled("account-numbers-form", "(415) 555-0178")),
		b.submit("account-numbers-form", "account-add", "Add number"),
		chromedp.WaitVisible(testutil.TestID("take-over")),
	)
	if got := b.text(testutil.TestID("take-over-question")); !strings.Contains(got, "Take it over?") || !strings.Contains(got, "https://old-crm.example/twilio/sms") {
		t.Fatalf("take over question: %q", got)
	}
	both("carriers-06-take-over")
	b.run("take it over", b.submit("take-over", "take-over-confirm", "Take it over"), chromedp.WaitVisible(testutil.TestID("flash")))
	if n, _ := tw.Number("+14155550178"); n.SMSURL != publicURL+"/carrier/twilio/sms" {
		t.Fatalf("after taking over: %+v", n)
	}

	// Buy one, after a confirmation naming Twilio's monthly price.
	b.run("buy a number",
		chromedp.Navigate(base+"/settings/numbers"),
		chromedp.WaitVisible(testutil.TestID("buy-from-twilio")),
		chromedp.Click(testutil.TestID("buy-from-twilio")),
		chromedp.WaitVisible(testutil.TestID("buy-search-form")),
	)
	b.run("search by area code",
		chromedp.SendKeys(b.labelled("buy-search-form", "Area code"), "415"),
		b.submit("buy-search-form", "buy-search", "Search"),
		chromedp.WaitVisible(testutil.TestID("buy-results")),
	)
	both("carriers-07-search")
	b.run("choose one", chromedp.Click(testutil.TestID("buy-choose")), chromedp.WaitVisible(testutil.TestID("buy-confirm-form")))
	if got := b.text(testutil.TestID("buy-price")); !strings.Contains(got, "$1.15 a month") {
		t.Fatalf("confirmation: %q", got)
	}
	both("carriers-08-confirm")
	if tw.Count("POST", "/IncomingPhoneNumbers.json") != 0 {
		t.Fatal("bought before the confirmation")
	}
	b.run("confirm", b.submit("buy-confirm-form", "buy-confirm-submit", "Buy for $1.15 a month"), chromedp.WaitVisible(testutil.TestID("flash")))
	if got := b.text(testutil.TestID("flash")); !strings.Contains(got, "bought") {
		t.Fatalf("after buying: %q", got)
	}
	both("carriers-09-numbers")

	// Check a number and send a test text to the admin's own phone.
	b.run("check", chromedp.Click(testutil.TestID("number-check-link")), chromedp.WaitVisible(testutil.TestID("number-check-form")))
	b.run("send a test text",
		chromedp.SendKeys(b.labelled("number-check-form", "Send a test text to"), "(415) 555-0142"),
		b.submit("number-check-form", "number-check-submit", "Check now"),
		chromedp.WaitVisible(testutil.TestID("flash")),
	)
	if got := b.text(testutil.TestID("receiving")); !strings.Contains(got, "Receiving: checked") {
		t.Fatalf("check: %q", got)
	}
	if s := tw.Sent(); len(s) != 1 || s[0].Get("To") != "+14155550142" {
		t.Fatalf("test texts: %v", s)
	}
	both("carriers-10-checked")

	// The webhook is changed at Twilio behind Switchboard's back: Check flags it, the Carriers
	// page and the admin overview warn of it, and Take it over points it back.
	tw.SetWebhook(connPhone, "https://someone-else.example/sms")
	b.run("check again", b.submit("number-check-form", "number-check-submit", "Check now"), chromedp.WaitVisible(testutil.TestID("number-reconnect-form")))
	if got := b.text(testutil.TestID("receiving")); !strings.Contains(got, "https://someone-else.example/sms") {
		t.Fatalf("check after the change: %q", got)
	}
	both("carriers-11-not-receiving")
	b.run("the carriers page warns", chromedp.Navigate(base+"/admin/carriers"), chromedp.WaitVisible(testutil.TestID("miswired-numbers")))
	both("carriers-12-admin-warning")
	b.run("the admin overview warns", chromedp.Navigate(base+"/admin"), chromedp.WaitVisible(testutil.TestID("miswired-numbers")))
	if got := b.text(testutil.TestID("miswired-numbers")); !strings.Contains(got, "(415) 555-0177") {
		t.Fatalf("the overview's warning: %q", got)
	}
	both("carriers-12b-overview-warning")
	b.run("back to the check page", chromedp.NavigateBack(), chromedp.NavigateBack(), chromedp.WaitVisible(testutil.TestID("number-reconnect-form")))
	b.run("take it over", b.submit("number-reconnect-form", "number-reconnect", "Take it over"), flashSays("Its texts come to Switchboard again."))
	if n, _ := tw.Number(connPhone); n.SMSURL != publicURL+"/carrier/twilio/sms" {
		t.Fatalf("after taking it over: %+v", n)
	}

	// Remove it, clearing its webhooks and releasing it after a second confirmation.
	b.run("remove", chromedp.Navigate(base+"/settings/numbers"), chromedp.WaitVisible(testutil.TestID("number-remove-link")),
		chromedp.Click(testutil.TestID("number-remove-link")+`:not([aria-label="Remove (415) 555-0100"])`), chromedp.WaitVisible(testutil.TestID("number-remove-form")))
	b.run("ask to release too", chromedp.Click(b.labelled("number-remove-form", "Then release the number at Twilio")),
		b.submit("number-remove-form", "remove-submit", "Remove from Acme Dental"), chromedp.WaitVisible(testutil.TestID("release-warning")))
	both("carriers-13-release-confirm")
	if _, ok := tw.Number(connPhone); !ok {
		t.Fatal("released before the second confirmation")
	}
	b.run("confirm the release", chromedp.SendKeys(b.labelled("number-remove-form", "Type the number's last four digits to confirm"), "0177"),
		b.submit("number-remove-form", "release-confirm", "Remove and release (415) 555-0177"), chromedp.WaitVisible(testutil.TestID("flash")))
	if _, ok := tw.Number(connPhone); ok {
		t.Fatal("still in the Twilio account after the release")
	}
	both("carriers-14-released")
}
