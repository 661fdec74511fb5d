package webhooks_test

import (
	"net/http"
	"strings"
	"sync"
	"testing"
	"time"

	"switchboard/store"
	"switchboard/webhooks"
)

// goneReceiver answers 410 slowly: each request waits until the test opens the gate. It notes
// which requests arrived after its first 410 was written.
type goneReceiver struct {
	*receiver
	gate       chan struct{}
	mu         sync.Mutex
	goneSent   bool
	afterGone  int
	markerSeen chan struct{}
}

func newGoneReceiver(t *testing.T) *goneReceiver {
	g := &goneReceiver{gate: make(chan struct{}), markerSeen: make(chan struct{}, 64)}
	g.receiver = newReceiver(t, func(w http.ResponseWriter, r *http.Request, _ int) {
		if strings.HasSuffix(r.URL.Path, "/marker") {
			g.markerSeen <- struct{}{}
			w.WriteHeader(http.StatusNoContent)
			return
		}
		g.mu.Lock()
		if g.goneSent {
			g.afterGone++
		}
		g.mu.Unlock()
		<-g.gate
		g.mu.Lock()
		g.goneSent = true
		g.mu.Unlock()
		w.WriteHeader(http.StatusGone)
	})
	return g
}

// TestGoneStopsQueuedDeliveries: 30 deliveries wait for a receiver that answers 410 slowly.
// Once it has answered 410, none of the deliveries not yet sent arrives, claimed ones included:
// the subscription is checked right before each attempt.
func TestGoneStopsQueuedDeliveries(t *testing.T) {
	for _, workers := range []int{1, 4} {
		t.Run(map[int]string{1: "one worker", 4: "four workers"}[workers], func(t *testing.T) {
			e := newEnv(t, nil)
			g := newGoneReceiver(t)
			sub := e.subscribe(t, store.EventContactCreated, g.srv.URL+"/hook")
			for range 30 {
				e.contact(t)
			}
			e.start(t, webhooks.Options{Workers: workers})
			// Every worker is now waiting on the slow receiver; the rest are queued or claimed.
			waitFor(t, "every worker in flight", func() bool { return g.count() == workers })
			close(g.gate)
			waitFor(t, "the queue settled", func() bool { n, _ := e.s.QueueDepth(); return n == 0 })
			if _, err := e.s.FindSubscription(sub.ID); err == nil {
				t.Fatal("the subscription survived its 410")
			}
			// A marker delivery to another subscription goes through the same workers after every
			// claim made before it: once each worker has delivered one, none holds an old claim.
			e.subscribe(t, store.EventContactCreated, g.srv.URL+"/marker")
			for range workers {
				e.contact(t)
			}
			for range workers {
				<-g.markerSeen
			}
			e.w.Stop()
			g.srv.Close() // waits for every request the server has begun

			g.mu.Lock()
			defer g.mu.Unlock()
			if g.afterGone != 0 {
				t.Fatalf("%d deliveries arrived after the 410, want none (only those already in flight, which arrived before it)", g.afterGone)
			}
			if got := g.count() - workers; got != workers {
				t.Fatalf("the gone subscription received %d requests, want the %d in flight when it answered 410", got, workers)
			}
			// The first 410 fails its delivery and cancels the 29 others, those in flight
			// included (their own answers then only add to the log).
			states := map[string]int{}
			for _, d := range deliveriesOf(t, e, sub.ID) {
				states[d.Status]++
			}
			if states[store.DeliveryCancelled] != 29 || states[store.DeliveryFailed] != 1 {
				t.Fatalf("delivery states = %v, want 29 cancelled and 1 failed", states)
			}
		})
	}
}

// TestAttemptInFlightCannotReviveSubscription: the subscription is removed while an attempt is
// running; whatever that attempt then comes to (a 500 that would retry, or a 410), it records
// its log entry and nothing else: the subscription stays gone and nothing more is sent.
func TestAttemptInFlightCannotReviveSubscription(t *testing.T) {
	for _, status := range []int{http.StatusInternalServerError, http.StatusGone} {
		t.Run(http.StatusText(status), func(t *testing.T) {
			clk := newClock()
			e := newEnv(t, clk)
			gate := make(chan struct{})
			rc := newReceiver(t, func(w http.ResponseWriter, _ *http.Request, _ int) {
				<-gate
				w.WriteHeader(status)
			})
			sub := e.subscribe(t, store.EventContactCreated, rc.srv.URL)
			e.contact(t)
			e.contact(t)
			e.start(t, webhooks.Options{Workers: 1})
			waitFor(t, "the first attempt in flight", func() bool { return rc.count() == 1 })
			if err := e.s.Unsubscribe(e.ws, sub.ID); err != nil {
				t.Fatal(err)
			}
			close(gate)
			id := rc.get(0).header.Get("webhook-id")
			waitFor(t, "the attempt recorded", func() bool { a, _ := e.s.DeliveryAttempts(id); return len(a) == 1 })
			if _, err := e.s.FindSubscription(sub.ID); err == nil {
				t.Fatal("the attempt's outcome brought the deleted subscription back")
			}
			if d := e.delivery(t, id); d.Status != store.DeliveryCancelled {
				t.Fatalf("delivery status = %s, want cancelled (unsubscribed)", d.Status)
			}
			if n, _ := e.s.QueueDepth(); n != 0 {
				t.Fatalf("queue depth = %d after the unsubscribe, want 0", n)
			}
			// Even a retry's time coming round sends nothing.
			clk.Advance(24 * time.Hour)
			e.w.Wake()
			e.w.Stop()
			rc.srv.Close()
			if rc.count() != 1 {
				t.Fatalf("requests = %d, want only the one in flight", rc.count())
			}
		})
	}
}

func deliveriesOf(t *testing.T, e *env, subID string) []store.Delivery {
	t.Helper()
	ds, err := e.s.SubscriptionDeliveries(subID, 1000)
	if err != nil {
		t.Fatal(err)
	}
	return ds
}

// TestNoAttemptStartsAfterA410: the receiver answers one delivery 410 at once while another
// worker's request is still held. While the 410's outcome is being recorded (held here by the
// test), the other worker finishes and takes the subscription's third delivery: the store still
// shows the subscription, but the 410 has been heard, so that delivery is cancelled and never
// sent. Before, it was sent 2–18 ms after the 410, during the outcome's commit.
func TestNoAttemptStartsAfterA410(t *testing.T) {
	e := newEnv(t, newClock())
	held := make(chan struct{})
	rc := newReceiver(t, func(w http.ResponseWriter, _ *http.Request, n int) {
		switch n {
		case 0: // the first to arrive waits for the test, then fails (a retry, much later)
			<-held
			w.WriteHeader(http.StatusInternalServerError)
		case 1:
			w.WriteHeader(http.StatusGone)
		default:
			w.WriteHeader(http.StatusNoContent)
		}
	})
	sub := e.subscribe(t, store.EventContactCreated, rc.srv.URL)
	for range 3 {
		e.contact(t)
	}
	goneHeard, recordGone := make(chan struct{}), make(chan struct{})
	w := webhooks.New(e.s, webhooks.Options{Workers: 2, Guard: webhooks.NewGuard(loopback(t)), Now: e.clock.Now})
	webhooks.BeforeRecord(w, func(_ string, status int) {
		if status == http.StatusGone {
			close(goneHeard)
			<-recordGone // the 410's outcome waits until the other worker has decided
		}
	})
	e.s.SetHooks(store.Hooks{Events: w.Wake})
	w.Start()
	t.Cleanup(w.Stop)
	var release sync.Once
	recorded := func() { release.Do(func() { close(recordGone) }) }
	t.Cleanup(recorded) // before Stop, when the test fails early
	<-goneHeard
	close(held) // the other worker now records its 500 and takes the third delivery
	waitFor(t, "the third delivery sent or cancelled", func() bool {
		if rc.count() > 2 {
			return true
		}
		for _, d := range deliveriesOf(t, e, sub.ID) {
			if d.Status == store.DeliveryCancelled {
				return true
			}
		}
		return false
	})
	if n := rc.count(); n != 2 {
		t.Fatalf("the receiver got %d requests, want 2: an attempt started after its 410", n)
	}
	recorded()
	waitFor(t, "the 410 recorded", func() bool { _, err := e.s.FindSubscription(sub.ID); return err != nil })
	states := map[string]int{}
	for _, d := range deliveriesOf(t, e, sub.ID) {
		states[d.Status] = states[d.Status] + 1
	}
	if states[store.DeliveryCancelled] != 2 || states[store.DeliveryFailed] != 1 {
		t.Fatalf("delivery states = %v, want 1 failed (the 410) and 2 cancelled", states)
	}
}
