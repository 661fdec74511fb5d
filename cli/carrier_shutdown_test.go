package cli

import (
	"fmt"
	"net/http"
	"net/url"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"switchboard/carrier"
	"switchboard/store"
)

// The carrier across a crash, a shutdown and a stop mid-broadcast of the real binary: what was
// queued is sent after the restart, what was in flight is not lost.

// outboxDepth is the series of the messages queued or sending.
const outboxDepth = "switchboard_outbox_depth"

// waitMetric waits until the server's series reads want, or fails after d.
func waitMetric(t testing.TB, base, series string, want float64, d time.Duration) {
	t.Helper()
	deadline := time.Now().Add(d)
	for {
		got := scrapeMetric(t, base, series)
		if got == want {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("%s is %v after %v, want %v", series, got, d, want)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

func TestServeCrashResendsEverything(t *testing.T) {
	fake := newTwilioFake(t)
	fake.delay.Store(int64(30 * time.Second)) // the carrier hangs: calls stay in flight
	f := newFixture(t)
	addTwilioNumber(t, f, "0")
	srv := startTwilioServer(t, f, fake)

	var want []string
	for i := range 10 {
		to := fmt.Sprintf("+1202555%04d", i)
		sendMessage(t, srv.base, f, twilioPhone, to, "single")
		want = append(want, to)
	}
	rec := phones("+1303", 5550000, 1500) // more than the dispatcher holds in flight: some stay queued
	sendBroadcast(t, srv.base, f, twilioPhone, rec, "broadcast")
	want = append(want, rec...)
	fake.waitArrivals(t, 20, 10*time.Second) // the singles and some broadcast copies are at the carrier
	// The hung carrier answers none, so every message is queued or sending until the kill: the
	// outbox holds them all once the broadcast is expanded.
	waitMetric(t, srv.base, outboxDepth, float64(len(want)), 10*time.Second)

	// SIGKILL with calls in flight and messages queued.
	if err := srv.cmd.Process.Kill(); err != nil {
		t.Fatal(err)
	}
	<-srv.done
	before := len(fake.log())
	// The kill must have caught messages both at the carrier (sending) and still queued, or
	// the test proves nothing.
	st, err := store.Open(filepath.Join(f.data, "switchboard.db"), store.Options{ReadOnly: true})
	if err != nil {
		t.Fatal(err)
	}
	msgs, err := st.ListMessages(f.ws, store.MessageFilter{Direction: "outbound", Limit: 10_000})
	st.Close()
	if err != nil {
		t.Fatal(err)
	}
	states := map[string]int{}
	for _, m := range msgs {
		states[m.Status]++
	}
	if states[store.MessageSending] == 0 || states[store.MessageQueued] == 0 || len(msgs) != len(want) {
		t.Fatalf("at the kill: %d messages by status %v, want %d with some sending and some queued", len(msgs), states, len(want))
	}
	t.Logf("at the kill: %v, %d calls at the carrier", states, before)
	fake.delay.Store(0)

	srv = startTwilioServer(t, f, fake)
	deadline := time.Now().Add(60 * time.Second)
	seen := map[string]int{}
	for {
		clear(seen)
		for _, a := range fake.log() {
			seen[a.To]++
		}
		missing := 0
		for _, to := range want {
			if seen[to] == 0 {
				missing++
			}
		}
		if missing == 0 {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("%d of %d messages never reached the carrier after the restart (%d had before the kill)", missing, len(want), before)
		}
		time.Sleep(50 * time.Millisecond)
	}
	// Nothing is left queued or sending: the newest messages say sent, and so does every one
	// in the file once the server stops.
	deadline = time.Now().Add(20 * time.Second)
	for {
		stuck := 0
		for _, m := range listMessages(t, srv.base, f, 100) {
			if m.Status == "queued" || m.Status == "sending" {
				stuck++
			}
		}
		if stuck == 0 {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("%d of the newest 100 messages stay queued or sending", stuck)
		}
		time.Sleep(50 * time.Millisecond)
	}
	if code := srv.stop(t); code != 0 {
		t.Errorf("exit %d after SIGTERM", code)
	}
	st, err = store.Open(filepath.Join(f.data, "switchboard.db"), store.Options{ReadOnly: true})
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	msgs, err = st.ListMessages(f.ws, store.MessageFilter{Direction: "outbound", Limit: 10_000})
	if err != nil {
		t.Fatal(err)
	}
	if len(msgs) != len(want) {
		t.Fatalf("%d outbound messages stored, want %d", len(msgs), len(want))
	}
	for _, m := range msgs {
		if m.Status != store.MessageSent {
			t.Fatalf("message to %s is %s after the restart, want sent", m.To, m.Status)
		}
	}
	dup := 0
	for _, n := range seen {
		if n > 1 {
			dup++
		}
	}
	t.Logf("%d calls before the kill; %d recipients got their text twice (at least once: the window is the calls in flight)", before, dup)
}

func TestServeShutdownWaitsForInFlightSends(t *testing.T) {
	fake := newTwilioFake(t)
	fake.delay.Store(int64(1500 * time.Millisecond))
	f := newFixture(t)
	addTwilioNumber(t, f, "0")
	srv := startTwilioServer(t, f, fake)
	var ids []string
	for i := range 3 {
		ids = append(ids, sendMessage(t, srv.base, f, twilioPhone, fmt.Sprintf("+1202555%04d", i), "in flight"))
	}
	fake.waitArrivals(t, 3, 10*time.Second)
	// SIGTERM while Twilio has not answered: serve waits for the answers and records them.
	if code := srv.stop(t); code != 0 {
		t.Fatalf("exit %d after SIGTERM; stderr:\n%s", code, srv.stderr)
	}
	st, err := store.Open(filepath.Join(f.data, "switchboard.db"), store.Options{ReadOnly: true})
	if err != nil {
		t.Fatal(err)
	}
	for _, id := range ids {
		m, err := st.Message(f.ws, id)
		if err != nil {
			t.Fatal(err)
		}
		if m.Status != store.MessageSent || m.ProviderID == "" {
			t.Errorf("message %s is %s (provider id %q) after a graceful stop, want sent with Twilio's sid", id, m.Status, m.ProviderID)
		}
	}
	st.Close()
	// So a restart sends nothing twice.
	fake.delay.Store(0)
	srv = startTwilioServer(t, f, fake)
	// The dispatcher puts back what a stop cut off before serve answers, and sends only what is
	// queued: with the outbox empty and no send counted once it answers, none will follow.
	if d := scrapeMetric(t, srv.base, outboxDepth); d != 0 {
		t.Errorf("after the restart %v messages are queued or sending, want none: a graceful stop leaves nothing to send again", d)
	}
	for _, outcome := range []string{"sent", "failed", "retry"} {
		if n := scrapeMetric(t, srv.base, `switchboard_messages_total{carrier="twilio",outcome="`+outcome+`"}`); n != 0 {
			t.Errorf("after the restart %v sends %s, want none", n, outcome)
		}
	}
	if n := len(fake.log()); n != 3 {
		t.Errorf("%d calls at the carrier after the restart, want still 3", n)
	}
}

func TestServeStopMidBroadcast(t *testing.T) {
	fake := newTwilioFake(t)
	f := newFixture(t)
	addTwilioNumber(t, f, "10")
	srv := startTwilioServer(t, f, fake)
	rec := phones("+1202", 5550000, 30)
	x := rec[29] // last in the queue: far behind the STOP at 10/s
	sendBroadcast(t, srv.base, f, twilioPhone, rec, "promo")
	form := url.Values{"MessageSid": {"SM00000000000000000000000000000stop"}, "From": {x}, "To": {twilioPhone}, "Body": {"STOP"}}
	u := srv.base + "/carrier/twilio/sms"
	req, _ := http.NewRequest(http.MethodPost, u, strings.NewReader(form.Encode()))
	req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	req.Header.Set("X-Twilio-Signature", carrier.TwilioSignature(fakeAuthToken, u, form))
	res, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	res.Body.Close()
	if res.StatusCode != http.StatusOK {
		t.Fatalf("signed STOP: %d", res.StatusCode)
	}
	// The 29 others and the STOP confirmation reach the carrier (so the broadcast, one fan-out
	// chunk, is all queued); then the outbox empties: nothing is left that could still reach x.
	fake.waitArrivals(t, 30, 20*time.Second)
	waitMetric(t, srv.base, outboxDepth, 0, 20*time.Second)
	var toX []string
	for _, a := range fake.log() {
		if a.To == x {
			toX = append(toX, a.Body)
		}
	}
	if len(toX) != 1 || !strings.Contains(toX[0], "unsubscribed") {
		t.Errorf("%s texted STOP mid-broadcast and then got %q, want only the STOP confirmation", x, toX)
	}
	if n := len(fake.log()); n != 30 {
		t.Errorf("%d calls at the carrier, want 29 copies and the confirmation", n)
	}
	for _, m := range listMessages(t, srv.base, f, 100) {
		if m.To == x && m.Text == "promo" && (m.Status != "failed" || !strings.Contains(m.Error, "opted out")) {
			t.Errorf("the copy to %s is %s %q, want failed because the recipient opted out", x, m.Status, m.Error)
		}
	}
}
