package carrier_test

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"testing"
	"time"

	"switchboard/carrier"
	"switchboard/internal/fakecarrier"
	"switchboard/store"
)

const (
	ourSMS    = publicURL + "/carrier/twilio/sms"
	ourStatus = publicURL + "/carrier/twilio/status"
)

// wiredAsOurs fails unless the fake's number posts texts and receipts to Switchboard.
func wiredAsOurs(t *testing.T, f *fakecarrier.Twilio, phone string) {
	t.Helper()
	n, ok := f.Number(phone)
	if !ok || n.SMSURL != ourSMS || n.SMSMethod != "POST" || n.StatusCallback != ourStatus || n.SMSApplicationSID != "" {
		t.Fatalf("%s at Twilio: %+v, want SmsUrl %s, POST, StatusCallback %s", phone, n, ourSMS, ourStatus)
	}
}

// TestAccountNumbersPagesAndLeavesOutUsedOnes: the account's numbers come a page at a time, as
// Twilio pages them, without those a workspace already has; an account without numbers is an
// empty page.
func TestAccountNumbersPagesAndLeavesOutUsedOnes(t *testing.T) {
	e := newAcctEnv(t, nil)
	e.connectTwilio(t)
	ctx := context.Background()
	p, err := e.a.AccountNumbers(ctx, store.ProviderTwilio, "")
	if err != nil || len(p.Numbers) != 0 || p.Next != "" {
		t.Fatalf("an account without numbers: %+v %v", p, err)
	}
	for i := range 60 {
		e.twilio.Own(fakecarrier.TwilioNumber{Phone: fmt.Sprintf("+1415555%04d", 1000+i)})
	}
	if _, err := e.st.CreateNumber(e.ws.ID, store.NumberInput{Phone: "+14155551001", Carrier: store.ProviderTwilio}); err != nil {
		t.Fatal(err)
	}
	p, err = e.a.AccountNumbers(ctx, store.ProviderTwilio, "")
	if err != nil || len(p.Numbers) != 49 || p.Page != 1 || p.Next == "" || p.Prev != "" {
		t.Fatalf("first page: %d numbers, page %d, next %q, prev %q, %v; want 49 (one is used), page 1, a next page", len(p.Numbers), p.Page, p.Next, p.Prev, err)
	}
	for _, n := range p.Numbers {
		if n.Phone == "+14155551001" {
			t.Fatal("a number a workspace has is offered")
		}
	}
	p2, err := e.a.AccountNumbers(ctx, store.ProviderTwilio, p.Next)
	if err != nil || len(p2.Numbers) != 10 || p2.Page != 2 || p2.Next != "" || p2.Prev == "" {
		t.Fatalf("second page: %+v %v", p2, err)
	}
	if _, err := e.a.AccountNumbers(ctx, store.ProviderTwilio, "/2010-04-01/Accounts/ACother/Calls.json?x=1"); !carrier.IsKind(err, carrier.KindRefused) {
		t.Fatalf("a page token Twilio did not give: %v", err)
	}
}

// TestAddWiresReadsBackThenStores: adding sets SmsUrl, SmsMethod and StatusCallback, reads them
// back and only then stores the number with its link.
func TestAddWiresReadsBackThenStores(t *testing.T) {
	e := newAcctEnv(t, nil)
	e.connectTwilio(t)
	own := e.twilio.Own(fakecarrier.TwilioNumber{Phone: "+14155550177"})
	n, err := e.a.Add(context.Background(), e.ws.ID, carrier.AddRequest{Carrier: store.ProviderTwilio, ID: own.SID, Name: "Front desk"})
	if err != nil {
		t.Fatal(err)
	}
	if n.Phone != "+14155550177" || n.Carrier != store.ProviderTwilio || n.Name != "Front desk" || n.Link == nil || n.Link.ID != own.SID || n.Link.Problem != "" {
		t.Fatalf("stored %+v", n)
	}
	wiredAsOurs(t, e.twilio, "+14155550177")
	var updates, readsAfter int
	for _, r := range e.twilio.Requests() {
		if r.Method == "POST" && strings.HasSuffix(r.Path, own.SID+".json") {
			updates++
		}
		if updates > 0 && r.Method == "GET" && strings.HasSuffix(r.Path, own.SID+".json") {
			readsAfter++
		}
	}
	if updates != 1 || readsAfter != 1 {
		t.Fatalf("%d updates and %d reads after them, want one of each (set, then read back)", updates, readsAfter)
	}
	// The same number cannot be added twice, and nothing is changed at Twilio for the refusal.
	before := len(e.twilio.Requests())
	if _, err := e.a.Add(context.Background(), e.ws.ID, carrier.AddRequest{Carrier: store.ProviderTwilio, ID: own.SID}); !errors.Is(err, store.ErrConflict) {
		t.Fatalf("adding it again: %v", err)
	}
	for _, r := range e.twilio.Requests()[before:] {
		if r.Method != "GET" {
			t.Fatalf("a refused add changed something: %s %s", r.Method, r.Path)
		}
	}
}

// TestAddAsksToTakeOver: a number whose texts go elsewhere is not touched until the
// administrator says to take it over; Twilio's placeholder for new numbers does not count.
func TestAddAsksToTakeOver(t *testing.T) {
	e := newAcctEnv(t, nil)
	e.connectTwilio(t)
	own := e.twilio.Own(fakecarrier.TwilioNumber{Phone: "+14155550177", SMSURL: "https://old-app.example/sms"})
	_, err := e.a.Add(context.Background(), e.ws.ID, carrier.AddRequest{Carrier: store.ProviderTwilio, ID: own.SID})
	var take *carrier.TakeOverError
	if !errors.As(err, &take) || take.Now != "https://old-app.example/sms" || !strings.Contains(err.Error(), "Take it over?") {
		t.Fatalf("a number wired elsewhere: %v", err)
	}
	if n, _ := e.twilio.Number("+14155550177"); n.SMSURL != "https://old-app.example/sms" || e.twilio.Count("POST", own.SID+".json") != 0 {
		t.Fatal("the number was changed before the administrator agreed")
	}
	if ns, _ := e.st.Numbers(e.ws.ID); len(ns) != 0 {
		t.Fatal("the number was stored")
	}
	if _, err := e.a.Add(context.Background(), e.ws.ID, carrier.AddRequest{Carrier: store.ProviderTwilio, ID: own.SID, TakeOver: true}); err != nil {
		t.Fatal(err)
	}
	wiredAsOurs(t, e.twilio, "+14155550177")

	app := e.twilio.Own(fakecarrier.TwilioNumber{Phone: "+14155550178", SMSApplicationSID: "AP0123456789abcdef0123456789abcdef"})
	if _, err := e.a.Add(context.Background(), e.ws.ID, carrier.AddRequest{Carrier: store.ProviderTwilio, ID: app.SID}); !errors.As(err, &take) || !strings.Contains(take.Now, "TwiML app") {
		t.Fatalf("a number in a TwiML app: %v", err)
	}
	demo := e.twilio.Own(fakecarrier.TwilioNumber{Phone: "+14155550179", SMSURL: "https://demo.twilio.com/welcome/sms/reply"})
	if _, err := e.a.Add(context.Background(), e.ws.ID, carrier.AddRequest{Carrier: store.ProviderTwilio, ID: demo.SID}); err != nil {
		t.Fatalf("a new number with Twilio's placeholder: %v", err)
	}
}

// TestAddNeverHalfDone: when Twilio does not keep the settings, or the number cannot be stored,
// the webhooks are put back as they were and nothing is stored; without a public https URL
// nothing is tried at all.
func TestAddNeverHalfDone(t *testing.T) {
	e := newAcctEnv(t, nil)
	e.connectTwilio(t)
	ctx := context.Background()
	own := e.twilio.Own(fakecarrier.TwilioNumber{Phone: "+14155550177", SMSURL: "https://demo.twilio.com/welcome/sms/reply", StatusCallback: "https://old.example/status"})

	// Twilio answers the update but keeps the old settings: the read-back catches it.
	e.twilio.Fail("update", fakecarrier.Fault{Status: 200, Body: `{"sid":"` + own.SID + `","phone_number":"+14155550177"}`})
	_, err := e.a.Add(ctx, e.ws.ID, carrier.AddRequest{Carrier: store.ProviderTwilio, ID: own.SID})
	var werr *carrier.WiringError
	if !errors.As(err, &werr) || !strings.Contains(err.Error(), "did not keep the settings") {
		t.Fatalf("settings not kept: %v", err)
	}
	assertUnchanged := func(what string) {
		t.Helper()
		n, _ := e.twilio.Number("+14155550177")
		if n.SMSURL != "https://demo.twilio.com/welcome/sms/reply" || n.StatusCallback != "https://old.example/status" {
			t.Fatalf("%s: the webhooks were not put back: %+v", what, n)
		}
		if ns, _ := e.st.Numbers(e.ws.ID); len(ns) != 0 {
			t.Fatalf("%s: the number was stored", what)
		}
	}
	assertUnchanged("settings not kept")

	// Storing fails (the workspace is gone): the webhooks set a moment before are put back.
	_, err = e.a.Add(ctx, "01HZZZZZZZZZZZZZZZZZZZZZZZ", carrier.AddRequest{Carrier: store.ProviderTwilio, ID: own.SID})
	if !errors.Is(err, store.ErrNotFound) {
		t.Fatalf("storing into no workspace: %v", err)
	}
	if e.twilio.Count("POST", own.SID+".json") < 3 {
		t.Fatal("the webhooks were never set, so the put-back was not exercised")
	}
	assertUnchanged("storing failed")

	// Twilio answers 500 to the update, or garbage to the read.
	e.twilio.Fail("update", fakecarrier.Fault{Status: 500, Body: `{"code":20500,"message":"Internal Server Error","status":500}`})
	if _, err := e.a.Add(ctx, e.ws.ID, carrier.AddRequest{Carrier: store.ProviderTwilio, ID: own.SID}); !carrier.IsKind(err, carrier.KindServer) {
		t.Fatalf("500: %v", err)
	}
	assertUnchanged("500")
	e.twilio.Fail("number", fakecarrier.Fault{Status: 200, Body: `<html>not json`})
	if _, err := e.a.Add(ctx, e.ws.ID, carrier.AddRequest{Carrier: store.ProviderTwilio, ID: own.SID}); !carrier.IsKind(err, carrier.KindGarbage) {
		t.Fatalf("garbage: %v", err)
	}
	assertUnchanged("garbage")

	noURL := newAcctEnv(t, func(c *carrier.AccountsConfig) { c.PublicURL, c.PublicURLSet = "http://localhost:8080", false })
	noURL.connectTwilio(t)
	x := noURL.twilio.Own(fakecarrier.TwilioNumber{Phone: "+14155550177"})
	var perr *carrier.PublicURLError
	if _, err := noURL.a.Add(ctx, noURL.ws.ID, carrier.AddRequest{Carrier: store.ProviderTwilio, ID: x.SID}); !errors.As(err, &perr) || !strings.Contains(err.Error(), "-base-url") {
		t.Fatalf("no public URL: %v", err)
	}
	plain := newAcctEnv(t, func(c *carrier.AccountsConfig) { c.PublicURL = "http://sb.example.com" })
	plain.connectTwilio(t)
	y := plain.twilio.Own(fakecarrier.TwilioNumber{Phone: "+14155550177"})
	if _, err := plain.a.Add(ctx, plain.ws.ID, carrier.AddRequest{Carrier: store.ProviderTwilio, ID: y.SID}); !errors.As(err, &perr) || !strings.Contains(err.Error(), "not https") {
		t.Fatalf("an http public URL: %v", err)
	}
	if plain.twilio.Count("POST", y.SID+".json")+noURL.twilio.Count("POST", x.SID+".json") != 0 {
		t.Fatal("a number was changed without a public https URL")
	}
}

// TestAddTimesOut: a Twilio that hangs is given up on after the injected timeout, with a plain
// message and nothing changed.
func TestAddTimesOut(t *testing.T) {
	e := newAcctEnv(t, func(c *carrier.AccountsConfig) { c.Timeout = 150 * time.Millisecond })
	e.connectTwilio(t)
	own := e.twilio.Own(fakecarrier.TwilioNumber{Phone: "+14155550177"})
	e.twilio.Fail("number", fakecarrier.Fault{Hang: true})
	start := time.Now()
	_, err := e.a.Add(context.Background(), e.ws.ID, carrier.AddRequest{Carrier: store.ProviderTwilio, ID: own.SID})
	if !carrier.IsKind(err, carrier.KindTimeout) || !strings.Contains(err.Error(), "did not answer within") {
		t.Fatalf("hanging Twilio: %v", err)
	}
	if d := time.Since(start); d > 5*time.Second {
		t.Fatalf("gave up after %s", d)
	}
	if ns, _ := e.st.Numbers(e.ws.ID); len(ns) != 0 || e.twilio.Count("POST", own.SID+".json") != 0 {
		t.Fatal("something changed after a timeout")
	}
}

// TestBuyConfirmsThePriceAndWires: the price is asked again at purchase; a changed price asks
// for a new confirmation, a number sold meanwhile (21422) is a plain message, and a bought
// number is wired and stored.
func TestBuyConfirmsThePriceAndWires(t *testing.T) {
	e := newAcctEnv(t, nil)
	e.connectTwilio(t)
	ctx := context.Background()
	e.twilio.Offer(fakecarrier.TwilioNumber{Phone: "+14155550123", Locality: "San Francisco", Region: "CA"},
		fakecarrier.TwilioNumber{Phone: "+14155550124", Locality: "San Francisco", Region: "CA"})
	found, err := e.a.Search(ctx, store.ProviderTwilio, carrier.Search{Country: "US", AreaCode: "415"})
	if err != nil || len(found) != 2 || found[0].Monthly.String() != "$1.15" || found[0].Locality != "San Francisco" {
		t.Fatalf("search: %+v %v", found, err)
	}
	if _, err := e.a.Search(ctx, store.ProviderTwilio, carrier.Search{Country: "US", AreaCode: "212"}); !carrier.IsKind(err, carrier.KindNoNumbers) {
		t.Fatalf("a search with no result: %v", err)
	}
	e.twilio.Fail("search", fakecarrier.Fault{Status: 400, Body: `{"code":21452,"message":"No phone numbers found","status":400}`})
	if _, err := e.a.Search(ctx, store.ProviderTwilio, carrier.Search{Country: "US", AreaCode: "415"}); !carrier.IsKind(err, carrier.KindNoNumbers) || !strings.Contains(err.Error(), "no numbers for sale") {
		t.Fatalf("21452: %v", err)
	}

	e.twilio.SetPrice("1.25")
	_, err = e.a.Buy(ctx, e.ws.ID, carrier.BuyRequest{Carrier: store.ProviderTwilio, Phone: "+14155550123", Price: found[0].Monthly})
	var changed *carrier.QuoteChangedError
	if !errors.As(err, &changed) || changed.Quote.Monthly.Amount != "1.25" || e.twilio.Count("POST", "/IncomingPhoneNumbers.json") != 0 {
		t.Fatalf("a changed price: %v", err)
	}
	e.twilio.TakeAway("+14155550123")
	_, err = e.a.Buy(ctx, e.ws.ID, carrier.BuyRequest{Carrier: store.ProviderTwilio, Phone: "+14155550123", Price: changed.Quote.Monthly})
	if !carrier.IsKind(err, carrier.KindTaken) || !strings.Contains(err.Error(), "someone else took it meanwhile") {
		t.Fatalf("a number sold meanwhile: %v", err)
	}
	n, err := e.a.Buy(ctx, e.ws.ID, carrier.BuyRequest{Carrier: store.ProviderTwilio, Phone: "+14155550124", Name: "Main", Price: changed.Quote.Monthly})
	if err != nil || n.Phone != "+14155550124" || n.Link == nil {
		t.Fatalf("buy: %+v %v", n, err)
	}
	wiredAsOurs(t, e.twilio, "+14155550124")
}

// TestCheckFlagsAndReconnectFixes: a webhook changed at Twilio is found by Check (and the hourly
// CheckAll), counted by Miswired, and Reconnect points it back.
func TestCheckFlagsAndReconnectFixes(t *testing.T) {
	e := newAcctEnv(t, nil)
	e.connectTwilio(t)
	ctx := context.Background()
	own := e.twilio.Own(fakecarrier.TwilioNumber{Phone: "+14155550177"})
	n, err := e.a.Add(ctx, e.ws.ID, carrier.AddRequest{Carrier: store.ProviderTwilio, ID: own.SID})
	if err != nil {
		t.Fatal(err)
	}
	if n, err = e.a.Check(ctx, e.ws.ID, n.ID); err != nil || n.Link.Problem != "" {
		t.Fatalf("check of a wired number: %+v %v", n.Link, err)
	}
	e.twilio.SetWebhook("+14155550177", "https://elsewhere.example/in")
	if _, err := e.a.CheckAll(); err != nil {
		t.Fatal(err)
	}
	bad, _ := carrier.Miswired(e.st)
	if len(bad) != 1 || !strings.Contains(bad[0].Link.Problem, "https://elsewhere.example/in") {
		t.Fatalf("miswired after the hourly check: %+v", bad)
	}
	// A Twilio that fails leaves the last reading as it was.
	e.twilio.Fail("number", fakecarrier.Fault{Status: 503, Body: `{"code":20503,"message":"Service Unavailable","status":503}`})
	if _, err := e.a.Check(ctx, e.ws.ID, n.ID); !carrier.IsKind(err, carrier.KindServer) {
		t.Fatalf("check while Twilio fails: %v", err)
	}
	if bad, _ := carrier.Miswired(e.st); len(bad) != 1 {
		t.Fatal("a failed check changed the flag")
	}
	if n, err = e.a.Reconnect(ctx, e.ws.ID, n.ID); err != nil || n.Link.Problem != "" {
		t.Fatalf("reconnect: %+v %v", n.Link, err)
	}
	wiredAsOurs(t, e.twilio, "+14155550177")
	if bad, _ := carrier.Miswired(e.st); len(bad) != 0 {
		t.Fatal("still flagged after reconnecting")
	}
	// A number added by hand (no link) is found by its phone.
	hand := e.twilio.Own(fakecarrier.TwilioNumber{Phone: "+14155550190", SMSURL: ourSMS, StatusCallback: ourStatus})
	byHand, _ := e.st.CreateNumber(e.ws.ID, store.NumberInput{Phone: "+14155550190", Carrier: store.ProviderTwilio})
	if got, err := e.a.Check(ctx, e.ws.ID, byHand.ID); err != nil || got.Link == nil || got.Link.ID != hand.SID || got.Link.Problem != "" {
		t.Fatalf("check of a number added by hand: %+v %v", got.Link, err)
	}
	// A test text goes out through Twilio from the number.
	if id, err := e.a.SendTest(ctx, n, "+14155550142"); err != nil || id == "" {
		t.Fatalf("test text: %q %v", id, err)
	}
	if s := e.twilio.Sent(); len(s) != 1 || s[0].Get("From") != "+14155550177" || s[0].Get("To") != "+14155550142" {
		t.Fatalf("sent %v", s)
	}
}

// TestRemoveClearsAndReleaseAsksTwice: removing clears the webhooks only when asked and only
// when they point at Switchboard; releasing refuses a number a workspace has.
func TestRemoveClearsAndRelease(t *testing.T) {
	e := newAcctEnv(t, nil)
	e.connectTwilio(t)
	ctx := context.Background()
	own := e.twilio.Own(fakecarrier.TwilioNumber{Phone: "+14155550177"})
	n, err := e.a.Add(ctx, e.ws.ID, carrier.AddRequest{Carrier: store.ProviderTwilio, ID: own.SID})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := e.a.Release(ctx, store.ProviderTwilio, own.SID); !errors.Is(err, store.ErrConflict) {
		t.Fatalf("releasing a number a workspace has: %v", err)
	}
	e.twilio.Fail("update", fakecarrier.Fault{Hang: true})
	short := newAccounts(t, e.st, withTimeout(e.cfg, 100*time.Millisecond))
	if _, err := short.Remove(ctx, e.ws.ID, n.ID, true); !carrier.IsKind(err, carrier.KindTimeout) {
		t.Fatalf("remove while Twilio hangs: %v", err)
	}
	if ns, _ := e.st.Numbers(e.ws.ID); len(ns) != 1 {
		t.Fatal("the number was removed although its webhooks could not be cleared")
	}
	wiredAsOurs(t, e.twilio, "+14155550177")
	r, err := e.a.Remove(ctx, e.ws.ID, n.ID, true)
	if err != nil || !r.Cleared || r.CarrierID != own.SID {
		t.Fatalf("remove: %+v %v", r, err)
	}
	if got, _ := e.twilio.Number("+14155550177"); got.SMSURL != "" || got.StatusCallback != "" {
		t.Fatalf("webhooks after removing: %+v", got)
	}
	if ns, _ := e.st.Numbers(e.ws.ID); len(ns) != 0 {
		t.Fatal("still in the workspace")
	}
	if _, err := e.a.Release(ctx, store.ProviderTwilio, own.SID); err != nil {
		t.Fatal(err)
	}
	if _, ok := e.twilio.Number("+14155550177"); ok {
		t.Fatal("still in the account after releasing")
	}
}

func withTimeout(c carrier.AccountsConfig, d time.Duration) carrier.AccountsConfig {
	c.Timeout = d
	return c
}
