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
