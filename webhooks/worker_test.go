package webhooks_test

import (
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"net/http"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	dto "github.com/prometheus/client_model/go"
	standardwebhooks "github.com/standard-webhooks/standard-webhooks/libraries/go"

	"switchboard/store"
	"switchboard/webhooks"
)

func TestDeliveryIsSignedStandardWebhooks(t *testing.T) {
	e := newEnv(t, nil) // real time, so the verifier's timestamp tolerance applies
	rc := newReceiver(t, func(w http.ResponseWriter, _ *http.Request, _ int) { w.WriteHeader(http.StatusNoContent) })
	sub := e.subscribe(t, store.EventContactCreated, rc.srv.URL+"/hooks/contacts")
	rx := e.subscribe(t, store.EventMessageReceived, rc.srv.URL+"/hooks/inbound")
	e.start(t, webhooks.Options{})

	c := e.contact(t)
	m, err := e.s.RecordInboundMessage(e.ws, store.InboundMessage{From: "+14155550199", To: ourNumber, Text: "hello"})
	if err != nil {
		t.Fatal(err)
	}
	// contact.created for c, then for the inbound sender, then message.received.
	waitFor(t, "three deliveries", func() bool { return rc.count() >= 3 })

	byEvent := map[string][]request{}
	for i := range rc.count() {
		r := rc.get(i)
		byEvent[r.header.Get("webhook-event")] = append(byEvent[r.header.Get("webhook-event")], r)
	}
	for event, secret := range map[string]string{store.EventContactCreated: sub.Secret, store.EventMessageReceived: rx.Secret} {
		wh, err := standardwebhooks.NewWebhook(secret)
		if err != nil {
			t.Fatal(err)
		}
		for _, r := range byEvent[event] {
			if err := wh.Verify(r.body, r.header); err != nil {
				t.Errorf("%s: the Standard Webhooks verifier refused the signature: %v (headers %v)", event, err, r.header)
			}
			if ct := r.header.Get("Content-Type"); ct != "application/json" {
				t.Errorf("%s: Content-Type = %q, want application/json", event, ct)
			}
			if _, ok := store.ParseID(r.header.Get("webhook-id")); !ok {
				t.Errorf("%s: webhook-id = %q, want a delivery ULID", event, r.header.Get("webhook-id"))
			}
		}
	}
	// The other subscription's secret does not verify: the signature is per subscription.
	other, _ := standardwebhooks.NewWebhook(rx.Secret)
	if err := other.Verify(byEvent[store.EventContactCreated][0].body, byEvent[store.EventContactCreated][0].header); err == nil {
		t.Error("a contact.created delivery verified with the message.received subscription's secret")
	}

	// Bodies are the flat payloads.
	if len(byEvent[store.EventContactCreated]) != 2 {
		t.Fatalf("contact.created deliveries = %d, want 2", len(byEvent[store.EventContactCreated]))
	}
	// Two deliveries due at once go out concurrently: either may arrive first.
	var bodies []string
	found := false
	for _, r := range byEvent[store.EventContactCreated] {
		var cp store.ContactPayload
		if err := json.Unmarshal(r.body, &cp); err != nil {
			t.Fatalf("contact.created body %s: %v", r.body, err)
		}
		found = found || (cp.ID == c.ID && cp.WorkspaceID == e.ws)
		bodies = append(bodies, string(r.body))
	}
	if !found {
		t.Fatalf("contact.created bodies = %q, want one of contact %s", bodies, c.ID)
	}
	var mp store.MessagePayload
	if len(byEvent[store.EventMessageReceived]) != 1 {
		t.Fatalf("message.received deliveries = %d, want 1", len(byEvent[store.EventMessageReceived]))
	}
	r := byEvent[store.EventMessageReceived][0]
	if err := json.Unmarshal(r.body, &mp); err != nil || mp.Text != "hello" || mp.ConversationID != m.ConversationID || mp.From != "+14155550199" {
		t.Fatalf("message.received body = %s, want the inbound message", r.body)
	}

	// The store agrees: delivered after one attempt, logged with its status and latency.
	id := r.header.Get("webhook-id")
	waitFor(t, "the delivery recorded", func() bool { return e.delivery(t, id).Status == store.DeliveryDelivered })
	atts, err := e.s.DeliveryAttempts(id)
	if err != nil || len(atts) != 1 || atts[0].StatusCode != 204 || atts[0].Error != "" || atts[0].LatencyMS < 0 {
		t.Fatalf("attempts = %+v, %v; want one 204", atts, err)
	}
	ts, _ := strconv.ParseInt(r.header.Get("webhook-timestamp"), 10, 64)
	if d := time.Since(time.Unix(ts, 0)); d < -time.Second || d > time.Minute {
		t.Fatalf("webhook-timestamp %d is %v away from now", ts, d)
	}
}

// seq returns the jitter values in turn (then 0.5), safe for the worker's goroutines.
func seq(us ...float64) func() float64 {
	var mu sync.Mutex
	return func() float64 {
		mu.Lock()
		defer mu.Unlock()
		if len(us) == 0 {
			return 0.5
		}
		u := us[0]
		us = us[1:]
		return u
	}
}

// within fails unless got is want to the millisecond (float jitter arithmetic).
func within(t *testing.T, what string, got, want time.Duration) {
	t.Helper()
	if d := got - want; d < -time.Millisecond || d > time.Millisecond {
		t.Fatalf("%s = %v, want %v", what, got, want)
	}
}

func TestFailTimeoutRedirectThenGone(t *testing.T) {
	clk := newClock()
	e := newEnv(t, clk)
	var elsewhere int
	var mu sync.Mutex
	rc := newReceiver(t, func(w http.ResponseWriter, r *http.Request, n int) {
		if r.URL.Path == "/elsewhere" {
			mu.Lock()
			elsewhere++
			mu.Unlock()
			return
		}
		switch n {
		case 0:
			http.Error(w, "database on fire", http.StatusInternalServerError)
		case 1:
			hang(w, r)
		case 2:
			http.Redirect(w, r, "/elsewhere", http.StatusFound)
		default:
			w.WriteHeader(http.StatusGone)
		}
	})
	sub := e.subscribe(t, store.EventContactCreated, rc.srv.URL+"/in")
	// A timeout of 15 s would make the test slow; the worker's timeout is injected like the clock.
	e.start(t, webhooks.Options{Rand: seq(0, 0.75, 0.5), Timeout: 200 * time.Millisecond})
	e.contact(t)

	var id string
	step := func(attempts int) store.Delivery {
		t.Helper()
		waitFor(t, fmt.Sprintf("attempt %d recorded", attempts), func() bool {
			if id == "" {
				if rc.count() == 0 {
					return false
				}
				id = rc.get(0).header.Get("webhook-id")
			}
			return e.delivery(t, id).Attempts >= attempts || e.delivery(t, id).Status != store.DeliveryPending
		})
		return e.delivery(t, id)
	}
	// Attempt 1: 500 → retry after 5 s × (0.8 + 0.4·0) = 4 s.
	d := step(1)
	within(t, "delay after the 500", d.NextAt.Sub(clk.Now()), 4*time.Second)
	// Not a moment early: a wake just before the due time sends nothing.
	clk.Advance(4*time.Second - time.Millisecond)
	// The dispatcher looks at this time; there must be nothing to see.
	if claimed := e.settle(t); claimed != 0 || rc.count() != 1 {
		t.Fatalf("requests = %d before the retry was due, want 1", rc.count())
	}
	clk.Advance(time.Millisecond)
	wakeUntil(t, e, func() bool { return rc.count() >= 2 })
	// Attempt 2: timeout → retry after 5 min × (0.8 + 0.4·0.75) = 5.5 min.
	d = step(2)
	within(t, "delay after the timeout", d.NextAt.Sub(clk.Now()), 330*time.Second)
	clk.Set(d.NextAt)
	wakeUntil(t, e, func() bool { return rc.count() >= 3 })
	// Attempt 3: redirect, not followed → retry after 30 min × 1.0.
	d = step(3)
	within(t, "delay after the redirect", d.NextAt.Sub(clk.Now()), 30*time.Minute)
	clk.Set(d.NextAt)
	wakeUntil(t, e, func() bool { return rc.count() >= 4 })
	// Attempt 4: 410 → the delivery fails and the subscription is gone.
	waitFor(t, "the 410 recorded", func() bool { return e.delivery(t, id).Status != store.DeliveryPending })
	d = e.delivery(t, id)
	if d.Status != store.DeliveryFailed || d.Attempts != 4 || d.LastStatus != 410 {
		t.Fatalf("after 410: %+v, want failed after 4 attempts", d)
	}
	if _, err := e.s.FindSubscription(sub.ID); err == nil {
		t.Fatal("the subscription survived a 410")
	}
	if err := e.s.Unsubscribe(e.ws, sub.ID); err == nil {
		t.Fatal("unsubscribing after a 410 succeeded, want not found")
	}
	mu.Lock()
	if elsewhere != 0 {
		t.Fatalf("the redirect was followed %d times", elsewhere)
	}
	mu.Unlock()

	atts, _ := e.s.DeliveryAttempts(id)
	if len(atts) != 4 {
		t.Fatalf("attempts = %d, want 4", len(atts))
	}
	checks := []struct {
		status int
		err    string
	}{{500, "HTTP 500"}, {0, "timed out"}, {302, "redirect (302)"}, {410, "HTTP 410"}}
	for i, c := range checks {
		a := atts[i]
		if a.StatusCode != c.status || !strings.Contains(a.Error, c.err) {
			t.Errorf("attempt %d = status %d error %q, want %d and %q", i+1, a.StatusCode, a.Error, c.status, c.err)
		}
	}
	if atts[0].Response != "database on fire\n" {
		t.Errorf("response snippet = %q", atts[0].Response)
	}
	// Every attempt carried the same webhook-id.
	for i := range rc.count() {
		if got := rc.get(i).header.Get("webhook-id"); got != id && rc.get(i).header.Get("webhook-id") != "" {
			t.Fatalf("request %d webhook-id = %q, want %q throughout", i, got, id)
		}
	}
	waitFor(t, "the gone outcome counted", func() bool {
		return counter(t, e, "switchboard_webhook_deliveries_total", "gone") == 1
	})
	if n := counter(t, e, "switchboard_webhook_deliveries_total", "retry"); n != 3 {
		t.Fatalf("retry outcomes = %v, want 3", n)
	}
}

// wakeUntil wakes the worker (as the retry timer would after the injected clock moved) until
// cond holds.
func wakeUntil(t *testing.T, e *env, cond func() bool) {
	t.Helper()
	waitFor(t, "the retry", func() bool {
		e.w.Wake()
		return cond()
	})
}

func TestRetriesExhaustWithinJitterBounds(t *testing.T) {
	clk := newClock()
	e := newEnv(t, clk)
	rc := newReceiver(t, func(w http.ResponseWriter, _ *http.Request, _ int) { w.WriteHeader(http.StatusServiceUnavailable) })
	e.subscribe(t, store.EventContactCreated, rc.srv.URL)
	r := rand.New(rand.NewPCG(1, 2))
	var mu sync.Mutex
	e.start(t, webhooks.Options{Rand: func() float64 { mu.Lock(); defer mu.Unlock(); return r.Float64() }})
	e.contact(t)
	waitFor(t, "the first attempt", func() bool { return rc.count() == 1 })
	id := rc.get(0).header.Get("webhook-id")
	for k := 1; k <= webhooks.MaxAttempts; k++ {
		waitFor(t, fmt.Sprintf("attempt %d recorded", k), func() bool { return e.delivery(t, id).Attempts == k })
		d := e.delivery(t, id)
		if k == webhooks.MaxAttempts {
			if d.Status != store.DeliveryFailed || d.DoneAt == nil {
				t.Fatalf("after %d attempts: %+v, want failed", k, d)
			}
			break
		}
		base := webhooks.Schedule[k-1]
		delay := d.NextAt.Sub(clk.Now())
		lo, hi := time.Duration(float64(base)*0.8), time.Duration(float64(base)*1.2)
		if delay < lo || delay > hi {
			t.Fatalf("retry %d delay = %v, want within ±20%% of %v", k, delay, base)
		}
		clk.Set(d.NextAt)
		wakeUntil(t, e, func() bool { return rc.count() == k+1 })
	}
	if n, _ := e.s.QueueDepth(); n != 0 {
		t.Fatalf("queue depth = %d after the delivery failed, want 0", n)
	}
	waitFor(t, "the failed outcome counted", func() bool {
		return counter(t, e, "switchboard_webhook_deliveries_total", "failed") == 1
	})
	if rc.count() != webhooks.MaxAttempts {
		t.Fatalf("requests = %d, want %d", rc.count(), webhooks.MaxAttempts)
	}
}

func TestRetryAfterIsClamped(t *testing.T) {
	// u = 0.5 makes the first retry's jittered delay exactly 5 s: the clamp is [5 s, 10 s].
	cases := []struct {
		name   string
		status int
		header func(now time.Time) string
		want   time.Duration
	}{
		{"503 asks an hour: 2× the delay", 503, func(time.Time) string { return "3600" }, 10 * time.Second},
		{"503 asks 1 s: the delay", 503, func(time.Time) string { return "1" }, 5 * time.Second},
		{"502 asks 7 s: granted", 502, func(time.Time) string { return "7" }, 7 * time.Second},
		{"429 with an HTTP date 8 s away", 429, func(now time.Time) string { return now.Add(8 * time.Second).Format(http.TimeFormat) }, 8 * time.Second},
		{"504 with a date in the past: the delay", 504, func(now time.Time) string { return now.Add(-time.Hour).Format(http.TimeFormat) }, 5 * time.Second},
		{"500 ignores Retry-After", 500, func(time.Time) string { return "7" }, 5 * time.Second},
		{"503 with garbage: the delay", 503, func(time.Time) string { return "soon" }, 5 * time.Second},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			clk := newClock()
			e := newEnv(t, clk)
			rc := newReceiver(t, func(w http.ResponseWriter, _ *http.Request, _ int) {
				w.Header().Set("Retry-After", c.header(clk.Now()))
				w.WriteHeader(c.status)
			})
			e.subscribe(t, store.EventContactCreated, rc.srv.URL)
			e.start(t, webhooks.Options{Rand: func() float64 { return 0.5 }})
			e.contact(t)
			waitFor(t, "the attempt", func() bool { return rc.count() == 1 })
			id := rc.get(0).header.Get("webhook-id")
			waitFor(t, "the attempt recorded", func() bool { return e.delivery(t, id).Attempts == 1 })
			within(t, "retry delay", e.delivery(t, id).NextAt.Sub(clk.Now()), c.want)
		})
	}
}

func TestBoundedConcurrencyOneAttemptPerDelivery(t *testing.T) {
	e := newEnv(t, nil)
	var mu sync.Mutex
	active, maxActive := 0, 0
	perID := map[string]int{}
	rc := newReceiver(t, func(w http.ResponseWriter, r *http.Request, n int) {
		id := r.Header.Get("webhook-id")
		mu.Lock()
		active++
		maxActive = max(maxActive, active)
		perID[id]++
		twice := perID[id] > 1
		mu.Unlock()
		if twice {
			t.Errorf("delivery %s attempted while its attempt was in flight (or again after success)", id)
		}
		time.Sleep(20 * time.Millisecond)
		mu.Lock()
		active--
		mu.Unlock()
		w.WriteHeader(http.StatusOK)
	})
	e.subscribe(t, store.EventContactCreated, rc.srv.URL)
	e.subscribe(t, store.EventContactCreated, rc.srv.URL+"/second")
	for range 12 {
		e.contact(t) // queued before the worker starts: picked up at start
	}
	w := e.start(t, webhooks.Options{Workers: 4})
	stop := make(chan struct{})
	go func() { // wake storms must not make the dispatcher hand out a delivery twice
		for {
			select {
			case <-stop:
				return
			default:
				w.Wake()
				time.Sleep(100 * time.Microsecond)
			}
		}
	}()
	waitFor(t, "24 deliveries", func() bool { return rc.count() >= 24 })
	waitFor(t, "queue drained", func() bool { n, _ := e.s.QueueDepth(); return n == 0 })
	close(stop)
	w.Stop() // waits for every attempt: one still running would be a second send
	mu.Lock()
	defer mu.Unlock()
	if maxActive > 4 || maxActive < 2 {
		t.Fatalf("at most %d requests at once, want 2..4 (Workers: 4)", maxActive)
	}
	if rc.count() != 24 {
		t.Fatalf("requests = %d, want 24 (each delivery once)", rc.count())
	}
}

func TestMetrics(t *testing.T) {
	e := newEnv(t, nil)
	rc := newReceiver(t, func(w http.ResponseWriter, _ *http.Request, _ int) {})
	e.subscribe(t, store.EventContactCreated, rc.srv.URL)
	e.contact(t)
	e.contact(t)
	// Before the worker runs: two queued.
	w := webhooks.New(e.s, webhooks.Options{Guard: webhooks.NewGuard(loopback(t)), Registry: e.reg})
	if got := gauge(t, e, "switchboard_webhook_queue_depth"); got != 2 {
		t.Fatalf("queue depth = %v, want 2", got)
	}
	w.Start()
	defer w.Stop()
	waitFor(t, "two delivered", func() bool { return counter(t, e, "switchboard_webhook_deliveries_total", "delivered") == 2 })
	if got := gauge(t, e, "switchboard_webhook_queue_depth"); got != 0 {
		t.Fatalf("queue depth = %v after delivery, want 0", got)
	}
	if n := histogramCount(t, e, "switchboard_webhook_delivery_duration_seconds"); n != 2 {
		t.Fatalf("latency observations = %d, want 2", n)
	}
}

func family(t testing.TB, e *env, name string) *dto.MetricFamily {
	t.Helper()
	fams, err := e.reg.Gather()
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range fams {
		if f.GetName() == name {
			return f
		}
	}
	t.Fatalf("metric %s not exported", name)
	return nil
}

func counter(t testing.TB, e *env, name, outcome string) float64 {
	t.Helper()
	for _, m := range family(t, e, name).GetMetric() {
		for _, l := range m.GetLabel() {
			if l.GetName() == "outcome" && l.GetValue() == outcome {
				return m.GetCounter().GetValue()
			}
		}
	}
	return 0
}

func gauge(t testing.TB, e *env, name string) float64 {
	t.Helper()
	return family(t, e, name).GetMetric()[0].GetGauge().GetValue()
}

func histogramCount(t testing.TB, e *env, name string) uint64 {
	t.Helper()
	return family(t, e, name).GetMetric()[0].GetHistogram().GetSampleCount()
}
