package carrier_test

import (
	"context"
	"fmt"
	"path/filepath"
	"slices"
	"sync"
	"testing"
	"testing/synctest"
	"time"

	"switchboard/carrier"
	"switchboard/internal/testutil"
	"switchboard/store"
)

// recorder is a carrier that records what it is handed and answers with fn (nil: accept).
type recorder struct {
	name string
	mu   sync.Mutex
	sent []carrier.Outbound
	fn   func(n int, m carrier.Outbound) error // n: how many calls before this one
}

func (r *recorder) Name() string { return r.name }
func (r *recorder) Send(_ context.Context, m carrier.Outbound) (string, error) {
	r.mu.Lock()
	n := len(r.sent)
	r.sent = append(r.sent, m)
	fn := r.fn
	r.mu.Unlock()
	if fn != nil {
		if err := fn(n, m); err != nil {
			return "", err
		}
	}
	return fmt.Sprintf("SM%06d", n), nil
}

func (r *recorder) calls() []carrier.Outbound {
	r.mu.Lock()
	defer r.mu.Unlock()
	return slices.Clone(r.sent)
}

type env struct {
	s      *store.Store
	ws     string
	number string
	clock  *testutil.Clock
	d      *carrier.Dispatcher // the one start ran

	mu     sync.Mutex
	passes []pass // the dispatcher's passes, as it reports them
}

// pass is one pass of the dispatcher's loop: the clock it read and what it claimed.
type pass struct {
	now     time.Time
	claimed int
}

// settle wakes the dispatcher until it makes a pass at the clock's current time that claims
// nothing: from then on, what the test checks is what the dispatcher decided at this time.
// (Waiting for that pass replaces sleeping and hoping the dispatcher has looked.)
func (e *env) settle(t *testing.T) {
	t.Helper()
	now := e.clock.Now()
	eventually(t, "a pass that claims nothing at "+now.Format(time.RFC3339Nano), func() bool {
		e.d.Wake()
		e.mu.Lock()
		defer e.mu.Unlock()
		for _, p := range e.passes {
			if !p.now.Before(now) && p.claimed == 0 {
				return true
			}
		}
		return false
	})
}

func newEnv(t *testing.T) *env {
	t.Helper()
	s, err := store.Open(filepath.Join(t.TempDir(), "sb.db"), store.Options{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close() })
	w, err := s.CreateWorkspace("Acme")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := s.AddNumber(w.ID, "+14155550100", "Main"); err != nil {
		t.Fatal(err)
	}
	return &env{s: s, ws: w.ID, number: "+14155550100", clock: testutil.NewClock(time.Date(2026, 11, 22, 12, 0, 0, 0, time.UTC))}
}

// start runs a dispatcher on e's store with the carriers given, stopped when the test ends.
func (e *env) start(t *testing.T, opts carrier.Options) *carrier.Dispatcher {
	t.Helper()
	if opts.Now == nil {
		opts.Now = e.clock.Now
	}
	if opts.Jitter == nil {
		opts.Jitter = func() float64 { return 1 }
	}
	d := carrier.NewDispatcher(e.s, opts)
	carrier.OnPass(d, func(now time.Time, claimed int) {
		e.mu.Lock()
		e.passes = append(e.passes, pass{now, claimed})
		e.mu.Unlock()
	})
	e.d = d
	e.s.SetHooks(store.Hooks{Outbox: d.Wake})
	if err := d.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(d.Stop)
	return d
}

func (e *env) send(t *testing.T, from, to, text string) store.Message {
	t.Helper()
	m, err := e.s.SendMessage(e.ws, store.SendInput{From: from, To: []string{to}, Text: text})
	if err != nil {
		t.Fatal(err)
	}
	return m
}

// eventually polls cond for up to 10 s (the dispatcher works in the background).
func eventually(t *testing.T, what string, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(60 * time.Second)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("timed out waiting until %s", what)
		}
		time.Sleep(5 * time.Millisecond)
	}
}

func (e *env) status(t *testing.T, id string) store.Message {
	t.Helper()
	m, err := e.s.Message(e.ws, id)
	if err != nil {
		t.Fatal(err)
	}
	return m
}

func TestSandboxDeliversEverythingAndFinishesTheBroadcast(t *testing.T) {
	e := newEnv(t)
	var recipients []string
	for i := range 500 {
		recipients = append(recipients, fmt.Sprintf("+1415666%04d", i))
	}
	b, err := e.s.SendBroadcast(e.ws, store.BroadcastInput{From: e.number, Recipients: recipients, Text: "Sale today"})
	if err != nil {
		t.Fatal(err)
	}
	one := e.send(t, e.number, "+14155550123", "hi")
	e.start(t, carrier.Options{Carriers: map[string]carrier.Carrier{"sandbox": carrier.Sandbox{}}})
	eventually(t, "the outbox is empty", func() bool { return e.s.OutboxDepth() == 0 })
	if m := e.status(t, one.ID); m.Status != store.MessageDelivered || m.ProviderID != "sandbox-"+one.ID || m.DeliveredAt == nil {
		t.Errorf("1:1 send = status %q provider id %q delivered at %v; want delivered as sandbox-<id>", m.Status, m.ProviderID, m.DeliveredAt)
	}
	eventually(t, "the broadcast is sent", func() bool {
		bb, _ := e.s.Broadcast(e.ws, b.ID)
		return bb.Status == store.BroadcastSent
	})
	bb, _ := e.s.Broadcast(e.ws, b.ID)
	if bb.TotalSent != 500 || bb.TotalDelivered != 500 || bb.TotalFailed != 0 || bb.DeliveredAt == nil {
		t.Errorf("broadcast counters sent %d delivered %d failed %d, want 500 500 0", bb.TotalSent, bb.TotalDelivered, bb.TotalFailed)
	}
}

func TestPriorityKeywordRepliesThenSendsThenBroadcasts(t *testing.T) {
	e := newEnv(t)
	var recipients []string
	for i := range 100 {
		recipients = append(recipients, fmt.Sprintf("+1415666%04d", i))
	}
	if _, err := e.s.SendBroadcast(e.ws, store.BroadcastInput{From: e.number, Recipients: recipients, Text: "copy"}); err != nil {
		t.Fatal(err)
	}
	normal := e.send(t, e.number, "+14155550123", "normal")
	if _, err := e.s.ReceiveMessage(e.ws, store.InboundMessage{From: "+14155550124", To: e.number, Text: "HELP", Keyword: store.KeywordHelp}); err != nil {
		t.Fatal(err)
	}
	rec := &recorder{name: "sandbox"}
	e.start(t, carrier.Options{Carriers: map[string]carrier.Carrier{"sandbox": rec}, Workers: 1, Batch: 4})
	eventually(t, "all 102 are sent", func() bool { return len(rec.calls()) == 102 })
	calls := rec.calls()
	if calls[0].To != "+14155550124" || calls[1].MessageID != normal.ID {
		t.Errorf("first sends went to %s then %s; want the keyword reply, then the 1:1 send", calls[0].To, calls[1].MessageID)
	}
}

func TestANormalSendQueuedBehindABroadcastGoesOutSoon(t *testing.T) {
	e := newEnv(t)
	var recipients []string
	for i := range 2000 {
		recipients = append(recipients, fmt.Sprintf("+1415666%04d", i))
	}
	if _, err := e.s.SendBroadcast(e.ws, store.BroadcastInput{From: e.number, Recipients: recipients, Text: "copy"}); err != nil {
		t.Fatal(err)
	}
	slow := &recorder{name: "sandbox", fn: func(int, carrier.Outbound) error { time.Sleep(200 * time.Microsecond); return nil }}
	e.start(t, carrier.Options{Carriers: map[string]carrier.Carrier{"sandbox": slow}, Workers: 2, Batch: 16})
	eventually(t, "the broadcast is under way", func() bool { return len(slow.calls()) >= 100 })
	normal := e.send(t, e.number, "+14155550123", "normal")
	before := len(slow.calls()) // counted once it is queued: what was claimed before may go first
	eventually(t, "the 1:1 send went out", func() bool { return e.status(t, normal.ID).Status == store.MessageSent })
	pos := slices.IndexFunc(slow.calls(), func(m carrier.Outbound) bool { return m.MessageID == normal.ID })
	// What was already claimed (at most 4 batches in flight) may go first; nothing more.
	if pos-before > 4*16+16 {
		t.Errorf("the 1:1 send went out %d sends after it was queued; want within the messages already in flight (≤ 80)", pos-before)
	}
	if len(slow.calls()) == 2001 {
		t.Errorf("the 1:1 send waited for the whole broadcast")
	}
}

func TestEachNumberIsHeldToItsOwnRate(t *testing.T) {
	e := newEnv(t)
	rate := 2.0
	if _, err := e.s.CreateNumber(e.ws, store.NumberInput{Phone: "+14155550200", Carrier: "twilio", Rate: &rate}); err != nil {
		t.Fatal(err)
	}
	var slowIDs []string
	for i := range 10 {
		slowIDs = append(slowIDs, e.send(t, "+14155550200", fmt.Sprintf("+1415777%04d", i), "slow").ID)
		e.send(t, e.number, fmt.Sprintf("+1415888%04d", i), "fast")
	}
	// claimedSlow counts the rate-2 number's messages the dispatcher has taken off the queue
	// (sending or sent): a claim shows in the store before the carrier hears of it.
	claimedSlow := func() int {
		n := 0
		for _, id := range slowIDs {
			if e.status(t, id).Status != store.MessageQueued {
				n++
			}
		}
		return n
	}
	tw := &recorder{name: "twilio"}
	sb := &recorder{name: "sandbox"}
	e.start(t, carrier.Options{Carriers: map[string]carrier.Carrier{"sandbox": sb, "twilio": tw}, DefaultRate: 1})
	eventually(t, "the unlimited sandbox number sent all 10", func() bool { return len(sb.calls()) == 10 })
	e.settle(t)
	if n := claimedSlow(); n != 2 {
		t.Fatalf("the rate-2 number sent %d while the clock stood still, want its burst of 2", n)
	}
	e.clock.Advance(time.Second)
	eventually(t, "two more after a second", func() bool { return len(tw.calls()) == 4 })
	e.settle(t)
	if n := claimedSlow(); n != 4 {
		t.Errorf("after one second the rate-2 number had sent %d, want 4", n)
	}
}

func TestTransientErrorsAreRetriedOnScheduleHonouringRetryAfter(t *testing.T) {
	e := newEnv(t)
	rec := &recorder{name: "sandbox", fn: func(n int, _ carrier.Outbound) error {
		switch n {
		case 0:
			return &carrier.TransientError{Reason: "503 from the carrier"}
		case 1:
			return &carrier.TransientError{Reason: "429 slow down", RetryAfter: 20 * time.Second}
		}
		return nil
	}}
	m := e.send(t, e.number, "+14155550123", "retry me")
	e.start(t, carrier.Options{Carriers: map[string]carrier.Carrier{"sandbox": rec}})
	eventually(t, "the first attempt", func() bool { return len(rec.calls()) == 1 })
	eventually(t, "the retry is recorded", func() bool { return e.status(t, m.ID).Status == store.MessageQueued })
	if got := e.status(t, m.ID); got.ProviderErr != "503 from the carrier" || got.Attempts != 1 {
		t.Errorf("after a transient failure: err %q attempts %d", got.ProviderErr, got.Attempts)
	}
	e.clock.Advance(900 * time.Millisecond)
	e.settle(t)
	if n := len(rec.calls()); n != 1 || e.status(t, m.ID).Status != store.MessageQueued {
		t.Fatalf("retried after 0.9 s, want the 1 s delay kept")
	}
	e.clock.Advance(100 * time.Millisecond)
	eventually(t, "the second attempt at 1 s", func() bool { return len(rec.calls()) == 2 })
	eventually(t, "the second retry is recorded", func() bool { return e.status(t, m.ID).Attempts == 2 && e.status(t, m.ID).Status == store.MessageQueued })
	e.clock.Advance(5 * time.Second) // the schedule's 5 s, but the carrier asked for 20
	e.settle(t)
	if n := len(rec.calls()); n != 2 || e.status(t, m.ID).Status != store.MessageQueued {
		t.Fatalf("retried after 5 s though the carrier said Retry-After 20 s")
	}
	e.clock.Advance(15 * time.Second)
	eventually(t, "the message is sent on the third attempt", func() bool { return e.status(t, m.ID).Status == store.MessageSent })
	if got := e.status(t, m.ID); got.Attempts != 3 || got.ProviderErr != "" || got.ProviderID != "SM000002" {
		t.Errorf("sent message attempts %d err %q id %q, want 3, no error, SM000002", got.Attempts, got.ProviderErr, got.ProviderID)
	}
}

func TestAMessageFailsAfterItsLastRetry(t *testing.T) {
	e := newEnv(t)
	rec := &recorder{name: "sandbox", fn: func(int, carrier.Outbound) error { return carrier.Transientf("network down") }}
	m := e.send(t, e.number, "+14155550123", "doomed")
	e.start(t, carrier.Options{Carriers: map[string]carrier.Carrier{"sandbox": rec}})
	for i, d := range carrier.RetryDelays {
		eventually(t, fmt.Sprintf("attempt %d", i+1), func() bool {
			got := e.status(t, m.ID)
			return got.Attempts == i+1 && got.Status == store.MessageQueued
		})
		e.clock.Advance(d)
	}
	eventually(t, "the message fails", func() bool { return e.status(t, m.ID).Status == store.MessageFailed })
	if got := e.status(t, m.ID); got.Attempts != 1+len(carrier.RetryDelays) || got.ProviderErr != "network down" {
		t.Errorf("failed message attempts %d err %q, want %d and the carrier's reason", got.Attempts, got.ProviderErr, 1+len(carrier.RetryDelays))
	}
}

func TestSandboxRefusalsFailAndAnUnsubscribeOptsOut(t *testing.T) {
	e := newEnv(t)
	bad := e.send(t, e.number, "+15005550001", "x")
	unsub := e.send(t, e.number, "+15005550004", "x")
	e.start(t, carrier.Options{Carriers: map[string]carrier.Carrier{"sandbox": carrier.Sandbox{}}})
	eventually(t, "both fail", func() bool {
		return e.status(t, bad.ID).Status == store.MessageFailed && e.status(t, unsub.ID).Status == store.MessageFailed
	})
	if got := e.status(t, unsub.ID); got.ProviderErr != "sandbox 21610: the recipient unsubscribed" {
		t.Errorf("unsubscribed failure reason %q", got.ProviderErr)
	}
	if out, _ := e.s.IsOptedOut(e.ws, "+15005550004"); !out {
		t.Error("a carrier unsubscribe made no opt-out")
	}
	if out, _ := e.s.IsOptedOut(e.ws, "+15005550001"); out {
		t.Error("an invalid number was opted out")
	}
}

func TestAGroupMessageGoesToEveryMember(t *testing.T) {
	e := newEnv(t)
	m, err := e.s.SendMessage(e.ws, store.SendInput{From: e.number, To: []string{"+14155550125", "+14155550123", "+14155550124"}, Text: "all"})
	if err != nil {
		t.Fatal(err)
	}
	rec := &recorder{name: "sandbox"}
	e.start(t, carrier.Options{Carriers: map[string]carrier.Carrier{"sandbox": rec}})
	eventually(t, "the group message is sent", func() bool { return e.status(t, m.ID).Status == store.MessageSent })
	var to []string
	for _, c := range rec.calls() {
		to = append(to, c.To)
	}
	slices.Sort(to)
	if !slices.Equal(to, []string{"+14155550123", "+14155550124", "+14155550125"}) {
		t.Errorf("sends went to %v, want each member once", to)
	}
}

// TestStopWaitsForSendsInFlight: Stop returns only once the send at the carrier has answered,
// with its outcome recorded. The dispatcher runs in a synctest bubble, so "Stop has not returned"
// is checked once every goroutine of it is blocked, not after a guessed pause.
func TestStopWaitsForSendsInFlight(t *testing.T) {
	e := newEnv(t)
	m := e.send(t, e.number, "+14155550123", "in flight")
	synctest.Test(t, func(t *testing.T) {
		release := make(chan struct{})
		called := make(chan struct{}, 1)
		rec := &recorder{name: "sandbox", fn: func(int, carrier.Outbound) error {
			called <- struct{}{}
			<-release
			return nil
		}}
		d := carrier.NewDispatcher(e.s, carrier.Options{Carriers: map[string]carrier.Carrier{"sandbox": rec}, Now: e.clock.Now})
		if err := d.Start(); err != nil {
			t.Fatal(err)
		}
		<-called
		stopped := make(chan struct{})
		go func() { d.Stop(); close(stopped) }()
		synctest.Wait() // Stop has done all it can without the carrier's answer
		select {
		case <-stopped:
			t.Fatal("Stop returned while a send was at the carrier")
		default:
		}
		close(release)
		<-stopped
	})
	if got := e.status(t, m.ID); got.Status != store.MessageSent {
		t.Errorf("after Stop the in-flight message is %q, want its outcome recorded (sent)", got.Status)
	}
}

func TestAMessageOfADeactivatedNumberFails(t *testing.T) {
	e := newEnv(t)
	m := e.send(t, e.number, "+14155550123", "x")
	n, _ := e.s.NumberByPhone(e.number)
	off := false
	if _, err := e.s.UpdateNumber(e.ws, n.ID, nil, &off, nil); err != nil {
		t.Fatal(err)
	}
	rec := &recorder{name: "sandbox"}
	e.start(t, carrier.Options{Carriers: map[string]carrier.Carrier{"sandbox": rec}})
	eventually(t, "the message fails", func() bool { return e.status(t, m.ID).Status == store.MessageFailed })
	if len(rec.calls()) != 0 {
		t.Error("a deactivated number's message reached the carrier")
	}
}
