package webhooks_test

import (
	"fmt"
	"net/http"
	"slices"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"switchboard/store"
	"switchboard/webhooks"
)

// BenchmarkDeliveries measures deliveries per second to a local receiver (target: ≥ 1,000/s):
// b.N events are queued first (one import transaction), then the timer runs while the worker
// drains the queue, each delivery POSTed, signed and its attempt recorded durably.
func BenchmarkDeliveries(b *testing.B) {
	e := newEnv(b, nil)
	var got atomic.Int64
	rc := newReceiver(b, func(w http.ResponseWriter, _ *http.Request, _ int) {
		got.Add(1)
		w.WriteHeader(http.StatusNoContent)
	})
	e.subscribe(b, store.EventContactCreated, rc.srv.URL)
	var csv strings.Builder
	csv.WriteString("phone\n")
	for i := range b.N {
		fmt.Fprintf(&csv, "+1%010d\n", 2000000000+i)
	}
	if _, err := e.s.ImportContacts(e.ws, strings.NewReader(csv.String()), nil); err != nil {
		b.Fatal(err)
	}
	if depth, _ := e.s.QueueDepth(); depth != b.N {
		b.Fatalf("queued %d deliveries, want %d", depth, b.N)
	}
	b.ResetTimer()
	start := time.Now()
	e.start(b, webhooks.Options{})
	for {
		depth, err := e.s.QueueDepth()
		if err != nil {
			b.Fatal(err)
		}
		if depth == 0 {
			break
		}
		time.Sleep(time.Millisecond)
	}
	elapsed := time.Since(start)
	b.StopTimer()
	if int(got.Load()) < b.N {
		b.Fatalf("receiver got %d, want %d", got.Load(), b.N)
	}
	b.ReportMetric(float64(b.N)/elapsed.Seconds(), "deliveries/s")
}

// BenchmarkEventToDelivery measures, on an idle server, the time from an event's commit (the
// moment the store calls OnEvents: the transaction is durable) to the receiver holding the
// request (target: p99 ≤ 100 ms). It also reports the end-to-end time from the start of the
// call that makes the event (CreateContact: DB.Batch's wait and the fsync included), whose tail
// is this disk's fsync, not the worker.
func BenchmarkEventToDelivery(b *testing.B) {
	e := newEnv(b, nil)
	arrived := make(chan time.Time, 1)
	rc := newReceiver(b, func(w http.ResponseWriter, _ *http.Request, _ int) {
		arrived <- time.Now()
		w.WriteHeader(http.StatusNoContent)
	})
	e.subscribe(b, store.EventContactCreated, rc.srv.URL)
	w := e.start(b, webhooks.Options{})
	var committed atomic.Int64
	e.s.SetHooks(store.Hooks{Events: func() {
		committed.Store(time.Now().UnixNano())
		w.Wake()
	}})
	lat := make([]time.Duration, 0, b.N)
	total := make([]time.Duration, 0, b.N)
	b.ResetTimer()
	for i := range b.N {
		t0 := time.Now()
		if _, err := e.s.CreateContact(e.ws, store.ContactInput{Phone: fmt.Sprintf("+1%010d", 3000000000+i)}); err != nil {
			b.Fatal(err)
		}
		select {
		case at := <-arrived:
			lat = append(lat, at.Sub(time.Unix(0, committed.Load())))
			total = append(total, at.Sub(t0))
		case <-time.After(10 * time.Second):
			b.Fatal("no delivery within 10 s")
		}
		// Idle between events: let the attempt be recorded before the next one.
		time.Sleep(20 * time.Millisecond)
	}
	b.StopTimer()
	rc.mu.Lock()
	rc.reqs = nil
	rc.mu.Unlock()
	q := func(xs []time.Duration, p float64) float64 {
		slices.Sort(xs)
		return float64(xs[min(len(xs)-1, int(p*float64(len(xs))))].Microseconds()) / 1000
	}
	b.ReportMetric(q(lat, 0.50), "p50-ms")
	b.ReportMetric(q(lat, 0.99), "p99-ms")
	b.ReportMetric(q(total, 0.50), "with-commit-p50-ms")
	b.ReportMetric(q(total, 0.99), "with-commit-p99-ms")
	b.ReportMetric(0, "ns/op") // the idle pauses make ns/op meaningless
}
