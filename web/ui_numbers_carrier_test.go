package web

import (
	"io"
	"net/http"
	"net/url"
	"strings"
	"testing"
	"time"

	"switchboard/carrier"
	"switchboard/internal/fakecarrier"
	"switchboard/store"
)

// TestUIAddNumberFromTheAccount: an admin lists the account's unused numbers, adds one (wired,
// read back, "Receiving: checked"), is asked "Take it over?" for one wired elsewhere, and gets
// plain messages when the public URL is not https or Twilio hangs.
func TestUIAddNumberFromTheAccount(t *testing.T) {
	e := newCarrierUIEnv(t, nil)
	alice := e.signIn(t, e.alice)
	res, body := e.send(t, alice, "GET", "/settings/numbers", nil)
	wantStatus(t, "numbers before connecting", res, body, http.StatusOK, "No Twilio or Telnyx account is connected")
	e.connectTwilio(t)
	res, body = e.send(t, alice, "GET", "/settings/numbers/add", nil)
	wantStatus(t, "an account without numbers", res, body, http.StatusOK, "Your Twilio account has no number that no workspace uses")

	free := e.twilio.Own(fakecarrier.TwilioNumber{Phone: "+14155550177"})
	elsewhere := e.twilio.Own(fakecarrier.TwilioNumber{Phone: "+14155550178", SMSURL: "https://crm.example/sms"})
	res, body = e.send(t, alice, "GET", "/settings/numbers", nil)
	wantStatus(t, "numbers page", res, body, http.StatusOK, `href="/settings/numbers/add?carrier=twilio"`, "Add a number from Twilio", "Buy a number")
	res, body = e.send(t, alice, "GET", "/settings/numbers/add?carrier=twilio", nil)
	wantStatus(t, "account numbers", res, body, http.StatusOK, "<h1>Add a number from Twilio</h1>", "(415) 555-0177", "(415) 555-0178")

	res, _ = e.send(t, alice, "POST", "/settings/numbers/add", url.Values{"carrier": {"twilio"}, "id": {free.SID}, "name": {"Front desk"}})
	wantRedirect(t, res, "/settings/numbers?done=wired")
	res, body = e.send(t, alice, "GET", "/settings/numbers?done=wired", nil)
	wantStatus(t, "after adding", res, body, http.StatusOK, "Receiving: checked", `data-testid="receiving-badge">Receiving: checked`)
	if n, _ := e.twilio.Number("+14155550177"); n.SMSURL != cPublicURL+"/carrier/twilio/sms" {
		t.Fatalf("SmsUrl %q", n.SMSURL)
	}

	res, body = e.send(t, alice, "POST", "/settings/numbers/add", url.Values{"carrier": {"twilio"}, "id": {elsewhere.SID}})
	wantStatus(t, "wired elsewhere", res, body, http.StatusConflict, "Take it over?", "https://crm.example/sms", `name="takeOver" value="yes"`)
	res, _ = e.send(t, alice, "POST", "/settings/numbers/add", url.Values{"carrier": {"twilio"}, "id": {elsewhere.SID}, "takeOver": {"yes"}})
	wantRedirect(t, res, "/settings/numbers?done=wired")

	mo := e.signIn(t, e.mo)
	res, _ = e.send(t, mo, "GET", "/settings/numbers/add", nil)
	wantStatus(t, "a member", res, "", http.StatusForbidden)

	// Twilio hangs: the page says so within the injected timeout, and nothing is added.
	slow := newCarrierUIEnv(t, func(c *carrier.AccountsConfig) { c.Timeout = 150 * time.Millisecond })
	slow.connectTwilio(t)
	n := slow.twilio.Own(fakecarrier.TwilioNumber{Phone: "+14155550177"})
	slow.twilio.Fail("number", fakecarrier.Fault{Hang: true})
	res, body = slow.send(t, slow.signIn(t, slow.alice), "POST", "/settings/numbers/add", url.Values{"carrier": {"twilio"}, "id": {n.SID}})
	wantStatus(t, "Twilio hangs", res, body, http.StatusBadGateway, "The number was not added. Twilio did not answer within")
	if ns, _ := slow.st.Numbers(slow.a.ID); len(ns) != 1 {
		t.Fatalf("%d numbers after a timeout, want the sandbox one", len(ns))
	}

	// An http public URL: the page warns first, and adding is refused.
	plain := newCarrierUIEnv(t, func(c *carrier.AccountsConfig) { c.PublicURL = "http://sb.example.com" })
	plain.connectTwilio(t)
	p := plain.twilio.Own(fakecarrier.TwilioNumber{Phone: "+14155550177"})
	pa := plain.signIn(t, plain.alice)
	res, body = plain.send(t, pa, "GET", "/settings/numbers/add", nil)
	wantStatus(t, "http public URL", res, body, http.StatusOK, "which is not https")
	res, body = plain.send(t, pa, "POST", "/settings/numbers/add", url.Values{"carrier": {"twilio"}, "id": {p.SID}})
	wantStatus(t, "adding with an http public URL", res, body, http.StatusUnprocessableEntity, "not https")
}

// TestUIBuyNumber: search with prices, a confirmation naming the monthly price, the purchase;
// a number sold meanwhile is a plain message.
func TestUIBuyNumber(t *testing.T) {
	e := newCarrierUIEnv(t, nil)
	e.connectTwilio(t)
	e.twilio.Offer(fakecarrier.TwilioNumber{Phone: "+14155550123", Locality: "San Francisco", Region: "CA"},
		fakecarrier.TwilioNumber{Phone: "+14155550124", Locality: "San Francisco", Region: "CA"})
	alice := e.signIn(t, e.alice)
	res, body := e.send(t, alice, "GET", "/settings/numbers/buy?carrier=twilio&country=US&areaCode=415&search=1", nil)
	wantStatus(t, "search", res, body, http.StatusOK, "<h1>Buy a number</h1>", "(415) 555-0123", "$1.15 a month", "San Francisco, CA")
	res, body = e.send(t, alice, "GET", "/settings/numbers/buy?carrier=twilio&country=US&areaCode=212&search=1", nil)
	wantStatus(t, "nothing for sale", res, body, http.StatusOK, "no numbers for sale that match this search")
	res, body = e.send(t, alice, "GET", "/settings/numbers/buy?carrier=twilio&country=USA&search=1", nil)
	wantStatus(t, "bad country", res, body, http.StatusUnprocessableEntity, "Must be a two-letter country code")

	choose := url.Values{"carrier": {"twilio"}, "phone": {"+14155550123"}, "place": {"San Francisco, CA"}, "country": {"US"}, "areaCode": {"415"}}
	res, body = e.send(t, alice, "POST", "/settings/numbers/buy", choose)
	wantStatus(t, "confirmation", res, body, http.StatusOK, `Buy <span class="nowrap">(415) 555-0123</span>?`, "<strong>$1.15 a month</strong>", "Buy for $1.15 a month")
	if e.twilio.Count("POST", "/IncomingPhoneNumbers.json") != 0 {
		t.Fatal("bought before the confirmation")
	}
	confirm := func(phone string) url.Values {
		v := url.Values{"confirm": {"yes"}, "amount": {"1.15"}, "currency": {"USD"}, "name": {"Main"}}
		for k, x := range choose {
			v[k] = x
		}
		v.Set("phone", phone)
		return v
	}
	e.twilio.TakeAway("+14155550123")
	res, body = e.send(t, alice, "POST", "/settings/numbers/buy", confirm("+14155550123"))
	wantStatus(t, "sold meanwhile", res, body, http.StatusUnprocessableEntity, "someone else took it meanwhile")
	res, _ = e.send(t, alice, "POST", "/settings/numbers/buy", confirm("+14155550124"))
	wantRedirect(t, res, "/settings/numbers?done=bought")
	if n, ok := e.twilio.Number("+14155550124"); !ok || n.SMSURL != cPublicURL+"/carrier/twilio/sms" {
		t.Fatalf("bought number at Twilio: %+v %v", n, ok)
	}
}

// TestUICheckFlagsAndRemoveReleases: a webhook changed at Twilio shows after Check, on the
// numbers page, on the admin overview and in /metrics; Take it over fixes it; a test text goes out; removing offers to
// clear the webhooks and releasing asks again for the last four digits.
func TestUICheckFlagsAndRemoveReleases(t *testing.T) {
	e := newCarrierUIEnv(t, nil)
	e.connectTwilio(t)
	own := e.twilio.Own(fakecarrier.TwilioNumber{Phone: "+14155550177"})
	n, err := e.accounts.Add(t.Context(), e.a.ID, carrier.AddRequest{Carrier: store.ProviderTwilio, ID: own.SID})
	if err != nil {
		t.Fatal(err)
	}
	alice := e.signIn(t, e.alice)
	check := "/settings/numbers/" + n.ID + "/check"
	res, body := e.send(t, alice, "GET", check, nil)
	wantStatus(t, "check page", res, body, http.StatusOK, "Receiving: checked", cPublicURL+"/carrier/twilio/sms", `<label for="check-to">Send a test text to</label>`)

	e.twilio.SetWebhook("+14155550177", "https://crm.example/sms")
	res, _ = e.send(t, alice, "POST", check, url.Values{"action": {"check"}})
	wantRedirect(t, res, check+"?done=checked")
	res, body = e.send(t, alice, "GET", check, nil)
	wantStatus(t, "after the change", res, body, http.StatusOK, "Not receiving:", "https://crm.example/sms", "Take it over")
	res, body = e.send(t, alice, "GET", "/settings/numbers", nil)
	wantStatus(t, "numbers page flags it", res, body, http.StatusOK, "Not receiving")
	if m := metricsText(t, e.srv.URL); !strings.Contains(m, "switchboard_number_miswired 1") {
		t.Fatalf("/metrics lacks switchboard_number_miswired 1:\n%s", m)
	}
	root, err := e.st.UserByEmail("root@example.com") // the superuser who connected Twilio
	if err != nil {
		t.Fatal(err)
	}
	res, body = e.send(t, e.signIn(t, root), "GET", "/admin", nil)
	wantStatus(t, "the admin overview flags it", res, body, http.StatusOK, `data-testid="miswired-numbers"`,
		`<strong class="nowrap">(415) 555-0177</strong> (Acme)`, "1 number not receiving.", "Twilio in use.")
	res, _ = e.send(t, alice, "POST", check, url.Values{"action": {"reconnect"}})
	wantRedirect(t, res, check+"?done=reconnected")
	if m := metricsText(t, e.srv.URL); !strings.Contains(m, "switchboard_number_miswired 0") {
		t.Fatal("still counted as miswired after taking it over")
	}
	res, body = e.send(t, alice, "POST", check, url.Values{"action": {"check"}, "testTo": {"not a phone"}})
	wantStatus(t, "bad test phone", res, body, http.StatusUnprocessableEntity, "Is not a phone number")
	res, _ = e.send(t, alice, "POST", check, url.Values{"action": {"check"}, "testTo": {"(415) 555-0142"}})
	wantRedirect(t, res, check+"?done=sent")
	if s := e.twilio.Sent(); len(s) != 1 || s[0].Get("To") != "+14155550142" || s[0].Get("From") != "+14155550177" {
		t.Fatalf("test text: %v", s)
	}

	remove := "/settings/numbers/" + n.ID + "/remove"
	res, body = e.send(t, alice, "GET", remove, nil)
	wantStatus(t, "remove page", res, body, http.StatusOK, `<label for="remove-clear">Also clear its webhooks at Twilio</label>`, `<label for="remove-release">Then release the number at Twilio</label>`)
	res, body = e.send(t, alice, "POST", remove, url.Values{"clear": {"on"}, "release": {"on"}})
	wantStatus(t, "release asks again", res, body, http.StatusOK, `Release <span class="nowrap">(415) 555-0177</span> at Twilio?`, "last four digits")
	if ns, _ := e.st.Numbers(e.a.ID); len(ns) != 2 {
		t.Fatal("removed before the second confirmation")
	}
	res, body = e.send(t, alice, "POST", remove, url.Values{"clear": {"on"}, "release": {"on"}, "confirm": {"release"}, "digits": {"0000"}})
	wantStatus(t, "wrong digits", res, body, http.StatusUnprocessableEntity, "Type the last four digits")
	res, _ = e.send(t, alice, "POST", remove, url.Values{"clear": {"on"}, "release": {"on"}, "confirm": {"release"}, "digits": {"0177"}})
	wantRedirect(t, res, "/settings/numbers?done=released")
	if _, ok := e.twilio.Number("+14155550177"); ok {
		t.Fatal("still in the Twilio account")
	}
	if ns, _ := e.st.Numbers(e.a.ID); len(ns) != 1 {
		t.Fatal("still in the workspace")
	}
}

func metricsText(t *testing.T, base string) string {
	t.Helper()
	res, err := http.Get(base + "/metrics")
	if err != nil {
		t.Fatal(err)
	}
	defer res.Body.Close()
	b, _ := io.ReadAll(res.Body)
	return string(b)
}
