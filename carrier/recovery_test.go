package carrier_test

import (
	"context"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus"

	"switchboard/carrier"
	"switchboard/internal/fakecarrier"
	"switchboard/internal/testutil"
	"switchboard/store"
)

const (
	recTwilioPhone = "+14155550100"
	recTelnyxPhone = "+14155550200"
	alice          = "+14155550111"
	bob            = "+14155550122"
)

// recEnv is a store on an injected clock with a workspace that has a Twilio and a Telnyx number,
// the fake carriers on the same clock, the accounts of the flags over them, and a recovery.
type recEnv struct {
	clock  *testutil.Clock
	st     *store.Store
	ws     string
	hook   string // a message.received subscription
	twilio *fakecarrier.Twilio
	telnyx *fakecarrier.Telnyx
	a      *carrier.Accounts
	reg    *prometheus.Registry
	r      *carrier.Receiver
	rc     *carrier.Recovery
}

func newRecEnv(t *testing.T, edit func(*carrier.RecoveryOptions)) *recEnv {
	t.Helper()
	e := &recEnv{clock: testutil.NewClock(time.Date(2025, 3, 4, 12, 0, 0, 0, time.UTC))}
	dir := t.TempDir()
	st, err := store.Open(filepath.Join(dir, "switchboard.db"), store.Options{Now: e.clock.Now})
	testutil.NoErr(t, err)
	t.Cleanup(func() { st.Close() })
	e.st = st
	w, err := st.CreateWorkspace("Acme Dental")
	testutil.NoErr(t, err)
	e.ws = w.ID
	u, err := st.CreateUser(store.NewUser{Email: "ana@example.com", Name: "Ana"})
	testutil.NoErr(t, err)
	_, err = st.AddMember(w.ID, u.ID, "")
	testutil.NoErr(t, err)
	sub, err := st.Subscribe(w.ID, u.ID, store.EventMessageReceived, "https://hooks.example.com/rx")
	testutil.NoErr(t, err)
	e.hook = sub.ID
	for phone, c := range map[string]string{recTwilioPhone: store.ProviderTwilio, recTelnyxPhone: store.ProviderTelnyx} {
		_, err := st.CreateNumber(w.ID, store.NumberInput{Phone: phone, Carrier: c})
		testutil.NoErr(t, err)
	}
	e.twilio = fakecarrier.NewTwilio(t, acctSID, authToken)
	e.twilio.Now = e.clock.Now
	e.telnyx = fakecarrier.NewTelnyx(t, txKey)
	e.telnyx.Now = e.clock.Now
	key := testutil.NewTelnyxKey(t)
	e.a = newAccounts(t, st, carrier.AccountsConfig{KeyFile: filepath.Join(dir, "carrier.key"),
		Twilio:        carrier.TwilioAccount{AccountSID: acctSID, AuthToken: authToken},
		Telnyx:        carrier.TelnyxAccount{APIKey: txKey, PublicKey: key.PublicBase64()},
		TwilioBaseURL: e.twilio.URL(), TelnyxBaseURL: e.telnyx.URL(), PublicURL: publicURL, PublicURLSet: true,
		Timeout: 500 * time.Millisecond})
	e.reg = prometheus.NewRegistry()
	e.r = carrier.NewReceiver(st, carrier.NewMetrics(e.reg, st))
	opts := carrier.RecoveryOptions{TwilioPageSize: 2}
	if edit != nil {
		edit(&opts)
	}
	e.rc = carrier.NewRecovery(e.a, e.r, opts)
	return e
}

// inbox is the workspace's inbound texts, oldest first.
func (e *recEnv) inbox(t *testing.T) []store.Message {
	t.Helper()
	msgs, err := e.st.ListMessages(e.ws, store.MessageFilter{Direction: "inbound", Limit: 1000})
	testutil.NoErr(t, err)
	slices.Reverse(msgs)
	return msgs
}

// texts is the inbox as "from: text" lines.
func (e *recEnv) texts(t *testing.T) []string {
	var out []string
	for _, m := range e.inbox(t) {
		out = append(out, m.From+": "+m.Text)
	}
	return out
}

func (e *recEnv) received(t *testing.T) int {
	t.Helper()
	d, err := e.st.SubscriptionDeliveries(e.hook, 1000)
	testutil.NoErr(t, err)
	return len(d)
}

// metric is a counter's value for carrier.
func (e *recEnv) metric(t *testing.T, name, carrierName string) float64 {
	t.Helper()
	families, err := e.reg.Gather()
	testutil.NoErr(t, err)
	for _, f := range families {
		if f.GetName() != name {
			continue
		}
		for _, m := range f.GetMetric() {
			for _, l := range m.GetLabel() {
				if l.GetName() == "carrier" && l.GetValue() == carrierName {
					return m.GetCounter().GetValue()
				}
			}
		}
	}
	t.Fatalf("no %s{carrier=%q} in the registry", name, carrierName)
	return 0
}

// listings are the Twilio listing requests made so far.
func (e *recEnv) listings() []fakecarrier.Request {
	var out []fakecarrier.Request
	for _, r := range e.twilio.Requests() {
		if r.Method == "GET" && strings.HasSuffix(r.Path, "/Messages.json") {
			out = append(out, r)
		}
	}
	return out
}

func (e *recEnv) check(t *testing.T) map[string]store.RecoveryCheck {
	t.Helper()
	return e.rc.Check(context.Background())
}

// TestRecoveryTakesInTwilioTextsOnceInOrder: texts that reached the Twilio number while nobody
// listened are listed (To, DateSent>, paged with next_page_uri), taken in in the order they
// were sent with message.received each, a STOP among them opting its sender out, counted on
// /metrics and on the check; a second check finds them known and stores nothing again.
func TestRecoveryTakesInTwilioTextsOnceInOrder(t *testing.T) {
	e := newRecEnv(t, nil)
	e.clock.Advance(-3 * time.Hour)
	e.twilio.Receive(alice, recTwilioPhone, "Is the clinic open Saturday?")
	e.clock.Advance(time.Minute)
	e.twilio.Receive(bob, recTwilioPhone, "Running late, sorry")
	e.clock.Advance(time.Minute)
	e.twilio.Receive(alice, recTwilioPhone, "STOP")
	e.twilio.Receive(bob, "+14155550999", "to a number that is not ours")
	e.clock.Set(time.Date(2025, 3, 4, 12, 0, 0, 0, time.UTC))

	got := e.check(t)[store.ProviderTwilio]
	if got.Error != "" || got.Texts != 3 || !got.Since.Equal(e.clock.Now().Add(-24*time.Hour)) {
		t.Fatalf("first check: %+v, want 3 texts looking back 24 hours", got)
	}
	want := []string{alice + ": Is the clinic open Saturday?", bob + ": Running late, sorry", alice + ": STOP"}
	if texts := e.texts(t); !slices.Equal(texts, want) {
		t.Fatalf("inbox %q, want %q in the order they were sent", texts, want)
	}
	if n := e.received(t); n != 3 {
		t.Fatalf("message.received deliveries: %d, want 3", n)
	}
	if o, ok, _ := e.st.OptOutOf(e.ws, alice); !ok || o.Reason != store.OptOutKeyword {
		t.Fatalf("after a recovered STOP: opt-out %+v %v, want one with reason keyword", o, ok)
	}
	if v := e.metric(t, "switchboard_inbound_recovered_total", "twilio"); v != 3 {
		t.Fatalf("switchboard_inbound_recovered_total{carrier=twilio} = %v, want 3", v)
	}
	reqs := e.listings()
	if len(reqs) != 2 { // 4 texts to two numbers, but only ours is listed: 3 texts, two pages of 2
		t.Fatalf("listing requests: %d, want 2 pages", len(reqs))
	}
	first := reqs[0].Query
	if first.Get("To") != recTwilioPhone || first.Get("DateSent>") != "2025-03-03T12:00:00Z" {
		t.Fatalf("first listing asked %v, want To=%s and DateSent>=2025-03-03T12:00:00Z", first, recTwilioPhone)
	}
	if reqs[1].Query.Get("Page") != "1" || reqs[1].Query.Get("PageToken") == "" {
		t.Fatalf("second listing asked %v, want the next_page_uri's page", reqs[1].Query)
	}

	e.clock.Advance(5 * time.Minute)
	again := e.check(t)[store.ProviderTwilio]
	if again.Texts != 0 || again.Error != "" || len(e.inbox(t)) != 3 || e.received(t) != 3 {
		t.Fatalf("second check: %+v, inbox %d; want nothing new", again, len(e.inbox(t)))
	}
	if !again.Since.Equal(got.At.Add(-10 * time.Minute)) {
		t.Fatalf("second check looked back to %v, want the last check less the overlap (%v)", again.Since, got.At.Add(-10*time.Minute))
	}
	if again.TotalTexts != 3 {
		t.Fatalf("total recovered %d, want 3", again.TotalTexts)
	}
}

// TestRecoveryAndWebhookStoreATextOnce: a text whose webhook came after its recovery, or before
// it, is stored once; on Telnyx too, whose ids are its own.
func TestRecoveryAndWebhookStoreATextOnce(t *testing.T) {
	e := newRecEnv(t, nil)
	late := e.twilio.Receive(alice, recTwilioPhone, "recovered first")
	early := e.twilio.Receive(bob, recTwilioPhone, "webhook first")
	tx := e.telnyx.Receive(alice, recTelnyxPhone, "telnyx webhook first")
	webhook := func(provider, id, from, to, text string) store.InboundResult {
		res, err := e.r.Inbound(provider, carrier.InboundSMS{MessageSID: id, From: from, To: to, Text: text})
		testutil.NoErr(t, err)
		return res
	}
	webhook(store.ProviderTwilio, early.SID, bob, recTwilioPhone, "webhook first")
	webhook(store.ProviderTelnyx, tx.ID, alice, recTelnyxPhone, "telnyx webhook first")
	checks := e.check(t)
	if checks[store.ProviderTwilio].Texts != 1 || checks[store.ProviderTelnyx].Texts != 0 {
		t.Fatalf("checks %+v: want 1 Twilio text recovered (the other came by webhook), no Telnyx one", checks)
	}
	if res := webhook(store.ProviderTwilio, late.SID, alice, recTwilioPhone, "recovered first"); !res.Duplicate {
		t.Fatalf("the late webhook of a recovered text: %+v, want a duplicate", res)
	}
	if n := len(e.inbox(t)); n != 3 || e.received(t) != 3 {
		t.Fatalf("inbox %q, %d message.received; want each text once", e.texts(t), e.received(t))
	}
	// A known Telnyx text is not even read again.
	if n := e.telnyx.Count("GET", "/messages/"+tx.ID); n != 0 {
		t.Fatalf("Telnyx's message %s was read %d times, want 0: it was known", tx.ID, n)
	}
}

// TestRecoveryLooksBackToTheLastCheckAfterARestart: a recovery built again over the same store
// (a restart) looks back to the last check kept there, less the overlap, not a whole day.
func TestRecoveryLooksBackToTheLastCheckAfterARestart(t *testing.T) {
	e := newRecEnv(t, nil)
	first := e.check(t)[store.ProviderTwilio]
	e.clock.Advance(2 * time.Hour)
	e.twilio.Receive(alice, recTwilioPhone, "while you were down")
	e.clock.Advance(time.Hour)
	restarted := carrier.NewRecovery(e.a, e.r, carrier.RecoveryOptions{})
	got := restarted.Check(context.Background())[store.ProviderTwilio]
	if !got.Since.Equal(first.At.Add(-10*time.Minute)) || got.Texts != 1 {
		t.Fatalf("after a restart: %+v, want 1 text looking back to %v", got, first.At.Add(-10*time.Minute))
	}
	reqs := e.listings()
	if q := reqs[len(reqs)-1].Query.Get("DateSent>"); q != first.At.Add(-10*time.Minute).Format(time.RFC3339) {
		t.Fatalf("DateSent> %q after a restart", q)
	}
}

// TestRecoveryMediaAsTheWebhookGivesThem: a recovered MMS keeps its media's URLs as Twilio's
// webhook would have given them (the resource's URI without .json, on the API's host).
func TestRecoveryMediaAsTheWebhookGivesThem(t *testing.T) {
	e := newRecEnv(t, nil)
	m := e.twilio.Receive(alice, recTwilioPhone, "the x-ray", fakecarrier.TwilioMedia{ContentType: "image/png", Data: []byte("png")})
	e.check(t)
	in := e.inbox(t)
	want := e.twilio.URL() + "/2010-04-01/Accounts/" + acctSID + "/Messages/" + m.SID + "/Media/" + m.Media[0].SID
	if len(in) != 1 || !slices.Equal(in[0].Media, []string{want}) {
		t.Fatalf("recovered MMS %+v, want media [%s]", in, want)
	}
}

// twilioSend queues a text from the Twilio number, sends it through the fake as the dispatcher
// does and records the carrier's acceptance; it returns the message id and Twilio's sid.
func (e *recEnv) twilioSend(t *testing.T, to, text string) (string, string) {
	t.Helper()
	m, err := e.st.SendMessage(e.ws, store.SendInput{From: recTwilioPhone, To: []string{to}, Text: text})
	testutil.NoErr(t, err)
	return m.ID, e.accept(t, store.ProviderTwilio, m)
}

// accept claims m, hands it to its carrier and records what the carrier said.
func (e *recEnv) accept(t *testing.T, provider string, m store.Message) string {
	t.Helper()
	claims, err := e.st.ClaimOutbound(10, 10, "", func(*store.PhoneNumber) int { return 10 })
	testutil.NoErr(t, err)
	if len(claims) != 1 || len(claims[0].Messages) != 1 {
		t.Fatalf("claims %+v, want the one message", claims)
	}
	sid, err := e.a.Carrier(provider).Send(context.Background(), carrier.Outbound{MessageID: m.ID, From: m.From, To: m.To, Text: m.Text})
	testutil.NoErr(t, err)
	testutil.NoErr(t, e.st.RecordOutcomes([]store.Outcome{{WorkspaceID: e.ws, MessageID: m.ID, Provider: provider, ProviderIDs: []string{sid}}}))
	return sid
}

func (e *recEnv) message(t *testing.T, id string) store.Message {
	t.Helper()
	m, err := e.st.Message(e.ws, id)
	testutil.NoErr(t, err)
	return m
}

// TestRecoveryFetchesStatusesOfSendsOneByOne: sends still "sent" get the status Twilio has for
// them, asked one by one (GET …/Messages/{Sid}.json); delivered and undelivered move them as the
// status webhook would; one whose receipt is still to come is asked again, less and less often.
func TestRecoveryFetchesStatusesOfSendsOneByOne(t *testing.T) {
	e := newRecEnv(t, nil)
	delivered, sid1 := e.twilioSend(t, alice, "Your appointment is at 3")
	failed, sid2 := e.twilioSend(t, bob, "Your appointment is at 4")
	pending, sid3 := e.twilioSend(t, "+14155550133", "Your appointment is at 5")
	e.clock.Advance(30 * time.Second)
	e.twilio.SetStatus(sid1, "delivered", 0)
	e.twilio.SetStatus(sid2, "undelivered", 30003)
	e.twilio.SetStatus(sid3, "sent", 0)
	if c := e.check(t)[store.ProviderTwilio]; c.Statuses != 0 || e.twilio.Count("GET", "/Messages/"+sid1+".json") != 0 {
		t.Fatalf("30 s after the sends: %+v; their receipts are still the webhook's to bring", c)
	}
	e.clock.Advance(5 * time.Minute)
	if c := e.check(t)[store.ProviderTwilio]; c.Statuses != 2 || c.Error != "" {
		t.Fatalf("check: %+v, want 2 statuses recovered", c)
	}
	if m := e.message(t, delivered); m.Status != store.MessageDelivered || m.DeliveredAt == nil {
		t.Fatalf("delivered send: %s, want delivered", m.Status)
	}
	if m := e.message(t, failed); m.Status != store.MessageFailed || m.ProviderErr != "twilio 30003" {
		t.Fatalf("undelivered send: %s %q, want failed with twilio 30003", m.Status, m.ProviderErr)
	}
	if m := e.message(t, pending); m.Status != store.MessageSent {
		t.Fatalf("pending send: %s, want still sent", m.Status)
	}
	for _, sid := range []string{sid1, sid2, sid3} {
		if n := e.twilio.Count("GET", "/Messages/"+sid+".json"); n != 1 {
			t.Fatalf("GET …/Messages/%s.json %d times, want 1", sid, n)
		}
	}
	// The pending one was asked at 5½ minutes old: not again until it is twice that (11), then
	// not until 31.
	for _, want := range []int{1, 2, 2, 2, 2, 3} { // at 10½, 15½, 20½, 25½, 30½, 35½ minutes
		e.clock.Advance(5 * time.Minute)
		e.check(t)
		if n := e.twilio.Count("GET", "/Messages/"+sid3+".json"); n != want {
			t.Fatalf("pending send asked %d times at %v, want %d", n, e.clock.Now().Sub(time.Date(2025, 3, 4, 12, 0, 0, 0, time.UTC)), want)
		}
	}
	// Final ones are not asked about again, and a day later the pending one is let go.
	if n := e.twilio.Count("GET", "/Messages/"+sid1+".json"); n != 1 {
		t.Fatalf("a delivered send was asked again: %d", n)
	}
	// After a restart, a send made just before it is asked about at once: its receipt may have
	// come while the server was down.
	_, sid4 := e.twilioSend(t, "+14155550144", "Your appointment is at 6")
	e.twilio.SetStatus(sid4, "delivered", 0)
	e.clock.Advance(time.Second)
	if c := carrier.NewRecovery(e.a, e.r, carrier.RecoveryOptions{}).Check(context.Background())[store.ProviderTwilio]; c.Statuses != 1 {
		t.Fatalf("first check after a restart: %+v, want the send of a second ago asked about", c)
	}
	e.clock.Advance(25 * time.Hour)
	e.check(t)
	if left, _ := e.st.AwaitingReceipts(store.ProviderTwilio, time.Time{}, 10); len(left) != 0 {
		t.Fatalf("a day later %d sends still await their receipt, want none", len(left))
	}
}

// TestRecoveryFailuresAreRetriedAndTheServerGoesOn: a listing that fails, hangs past the
// timeout or answers garbage is noted on the check, logged and counted, and takes nothing
// half-way; the next check looks back as far as the last good one and recovers the text.
func TestRecoveryFailuresAreRetriedAndTheServerGoesOn(t *testing.T) {
	for _, tc := range []struct {
		name  string
		fault fakecarrier.Fault
		words string
	}{
		{"server error", fakecarrier.Fault{Status: 503, Body: `{"code":20500,"message":"Internal Server Error","status":503}`}, "problem (HTTP 503)"},
		{"timeout", fakecarrier.Fault{Hang: true}, "did not answer within"},
		{"garbage", fakecarrier.Fault{Status: 200, Body: `<html>maintenance</html>`}, "could not be read"},
		{"no messages", fakecarrier.Fault{Status: 200, Body: `{"page":0}`}, "could not be read"},
		{"a page elsewhere", fakecarrier.Fault{Status: 200, Body: `{"messages":[],"next_page_uri":"/2010-04-01/Accounts/ACother/Messages.json?Page=1"}`}, "could not be read"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			e := newRecEnv(t, nil)
			good := e.check(t)[store.ProviderTwilio]
			e.clock.Advance(time.Minute)
			e.twilio.Receive(alice, recTwilioPhone, "hello?")
			e.clock.Advance(4 * time.Minute)
			e.twilio.Fail("messages-list", tc.fault)
			bad := e.check(t)[store.ProviderTwilio]
			if !strings.Contains(bad.Error, tc.words) || !bad.LastOK.Equal(good.At) || bad.Texts != 0 {
				t.Fatalf("failed check: %+v, want an error with %q and the last good check kept", bad, tc.words)
			}
			if strings.Contains(bad.Error, authToken) {
				t.Fatalf("the error shows the auth token: %q", bad.Error)
			}
			if v := e.metric(t, "switchboard_inbound_recovery_failures_total", "twilio"); v != 1 {
				t.Fatalf("failures counted %v, want 1", v)
			}
			if n := len(e.inbox(t)); n != 0 {
				t.Fatalf("inbox after the failed check: %d texts", n)
			}
			e.clock.Advance(5 * time.Minute)
			retry := e.check(t)[store.ProviderTwilio]
			if retry.Error != "" || retry.Texts != 1 || !retry.Since.Equal(good.At.Add(-10*time.Minute)) {
				t.Fatalf("next check: %+v, want the text, looking back to the last good check", retry)
			}
		})
	}
}

// TestRecoveryRunsAtStartAndAtEachTick: Start checks at once and then at each tick of the
// injected clock (never on its own in between), Stop ends it, and Start runs it again (a
// cluster's new leader).
func TestRecoveryRunsAtStartAndAtEachTick(t *testing.T) {
	ticks := make(chan time.Time)
	checks := make(chan map[string]store.RecoveryCheck, 10)
	e := newRecEnv(t, func(o *carrier.RecoveryOptions) {
		o.Ticks = ticks
		o.OnCheck = func(c map[string]store.RecoveryCheck) { checks <- c }
	})
	e.twilio.Receive(alice, recTwilioPhone, "first")
	e.rc.Start()
	defer e.rc.Stop()
	if c := <-checks; c[store.ProviderTwilio].Texts != 1 {
		t.Fatalf("check at start: %+v", c)
	}
	e.clock.Advance(5 * time.Minute)
	e.twilio.Receive(bob, recTwilioPhone, "second")
	ticks <- e.clock.Now()
	if c := <-checks; c[store.ProviderTwilio].Texts != 1 || !c[store.ProviderTwilio].At.Equal(e.clock.Now()) {
		t.Fatalf("check at the tick: %+v", c)
	}
	e.rc.Stop()
	if len(checks) != 0 {
		t.Fatalf("%d checks without a tick", len(checks))
	}
	e.rc.Start()
	<-checks
	if n := len(e.inbox(t)); n != 2 {
		t.Fatalf("inbox %d texts, want 2", n)
	}
}

// TestRecoveryWithoutAnAccountAsksNobody: a carrier without an account in use is not asked.
func TestRecoveryWithoutAnAccountAsksNobody(t *testing.T) {
	e := newRecEnv(t, nil)
	a := newAccounts(t, e.st, carrier.AccountsConfig{KeyFile: filepath.Join(t.TempDir(), "carrier.key"),
		TwilioBaseURL: e.twilio.URL(), TelnyxBaseURL: e.telnyx.URL()})
	checks := carrier.NewRecovery(a, e.r, carrier.RecoveryOptions{}).Check(context.Background())
	if len(checks) != 0 || len(e.twilio.Requests()) != 0 || len(e.telnyx.Requests()) != 0 {
		t.Fatalf("checks %+v, %d + %d requests; want none", checks, len(e.twilio.Requests()), len(e.telnyx.Requests()))
	}
}
