package store_test

import (
	"encoding/json"
	"errors"
	"sync"
	"testing"
	"time"

	"switchboard/internal/testutil"
	"switchboard/store"
)

// hookFixture is a workspace with a subscription to contact.created and a hand-moved clock.
type hookFixture struct {
	*fixture
	clock *testutil.Clock
	sub   store.Subscription
}

func newHookFixture(t *testing.T) *hookFixture {
	t.Helper()
	clock := testutil.NewClock(time.Date(2026, 11, 21, 22, 0, 0, 0, time.UTC))
	f := newFixtureOn(t, openStore(t, store.Options{Now: clock.Now}))
	sub, err := f.s.Subscribe(f.ws, f.user.ID, store.EventContactCreated, "https://hooks.example.com/in")
	if err != nil {
		t.Fatalf("Subscribe: %v", err)
	}
	return &hookFixture{fixture: f, clock: clock, sub: sub}
}

// due returns the deliveries due now, failing the test on error.
func (h *hookFixture) due(t *testing.T) []store.DueDelivery {
	t.Helper()
	due, _, err := h.s.DueDeliveries(h.clock.Now(), 100, nil)
	if err != nil {
		t.Fatalf("DueDeliveries: %v", err)
	}
	return due
}

func (h *hookFixture) delivery(t *testing.T, id string) store.Delivery {
	t.Helper()
	d, err := h.s.Delivery(id)
	if err != nil {
		t.Fatalf("Delivery(%s): %v", id, err)
	}
	return d
}

func TestDueDeliveriesCarryWhatThePostNeeds(t *testing.T) {
	h := newHookFixture(t)
	c := h.contact(t, "+14155550101", "Ada", "Lovelace")
	due := h.due(t)
	if len(due) != 1 {
		t.Fatalf("due = %d deliveries, want 1", len(due))
	}
	d := due[0]
	if d.Stale != "" || d.Subscription.ID != h.sub.ID || d.Subscription.Secret != h.sub.Secret {
		t.Fatalf("due delivery = %+v, want subscription %s and no Stale", d, h.sub.ID)
	}
	var p store.ContactPayload
	if err := json.Unmarshal(d.Payload, &p); err != nil || p.ID != c.ID || p.Phone != "+14155550101" {
		t.Fatalf("payload = %s (%v), want contact %s", d.Payload, err, c.ID)
	}
	// The caller's in-flight set hides it, and next says it is due now.
	got, next, err := h.s.DueDeliveries(h.clock.Now(), 100, func(id string) bool { return id == d.Delivery.ID })
	if err != nil || len(got) != 0 || !next.IsZero() {
		t.Fatalf("with it in flight: due %d, next %v, err %v; want none", len(got), next, err)
	}
	// limit 0 returns nothing and reports the entry as next.
	got, next, _ = h.s.DueDeliveries(h.clock.Now(), 0, nil)
	if len(got) != 0 || !next.Equal(h.clock.Now()) {
		t.Fatalf("limit 0: due %d, next %v; want none and next %v", len(got), next, h.clock.Now())
	}
	if n, _ := h.s.QueueDepth(); n != 1 {
		t.Fatalf("QueueDepth = %d, want 1", n)
	}
}

func TestRecordAttemptRetryMovesTheQueueEntry(t *testing.T) {
	h := newHookFixture(t)
	h.contact(t, "+14155550101", "Ada", "")
	d := h.due(t)[0].Delivery
	next := h.clock.Now().Add(5 * time.Second)
	got, disabled, err := h.s.RecordAttempt(d.ID, store.AttemptResult{
		Attempt: store.Attempt{At: h.clock.Now(), StatusCode: 500, Error: "HTTP 500", Response: "oops", LatencyMS: 12},
		Outcome: store.OutcomeRetry, NextAt: next})
	if err != nil || disabled {
		t.Fatalf("RecordAttempt: %v (disabled %v)", err, disabled)
	}
	if got.Status != store.DeliveryPending || got.Attempts != 1 || !got.NextAt.Equal(next) || got.LastStatus != 500 {
		t.Fatalf("delivery = %+v, want pending, 1 attempt, next %v, last status 500", got, next)
	}
	if n := store.QueueKeys(h.s, d.ID); n != 1 {
		t.Fatalf("queue entries of the delivery = %d, want 1", n)
	}
	if due := h.due(t); len(due) != 0 {
		t.Fatalf("due before the retry time: %d, want 0", len(due))
	}
	if _, nextDue, _ := h.s.DueDeliveries(h.clock.Now(), 10, nil); !nextDue.Equal(next) {
		t.Fatalf("next due = %v, want %v", nextDue, next)
	}
	h.clock.Advance(5 * time.Second)
	if due := h.due(t); len(due) != 1 {
		t.Fatalf("due at the retry time: %d, want 1", len(due))
	}
	sub, _ := h.s.FindSubscription(h.sub.ID)
	if sub.FailingSince == nil {
		t.Fatalf("subscription FailingSince not set after a failed attempt")
	}
	// Success clears the failure record and finishes the delivery.
	got, _, err = h.s.RecordAttempt(d.ID, store.AttemptResult{Attempt: store.Attempt{At: h.clock.Now(), StatusCode: 204}, Outcome: store.OutcomeDelivered})
	if err != nil || got.Status != store.DeliveryDelivered || got.DoneAt == nil || got.Attempts != 2 {
		t.Fatalf("after 204: %+v, %v; want delivered after 2 attempts", got, err)
	}
	if n := store.QueueKeys(h.s, d.ID); n != 0 {
		t.Fatalf("queue entries of a delivered delivery = %d, want 0", n)
	}
	if sub, _ := h.s.FindSubscription(h.sub.ID); sub.FailingSince != nil {
		t.Fatalf("FailingSince = %v after a success, want nil", sub.FailingSince)
	}
	atts, err := h.s.DeliveryAttempts(d.ID)
	if err != nil || len(atts) != 2 || atts[0].StatusCode != 500 || atts[0].Response != "oops" || atts[1].StatusCode != 204 {
		t.Fatalf("attempts = %+v, %v; want the 500 then the 204", atts, err)
	}
}

func TestGoneDeletesTheSubscriptionAndCancelsItsDeliveries(t *testing.T) {
	h := newHookFixture(t)
	h.contact(t, "+14155550101", "Ada", "")
	h.contact(t, "+14155550102", "Bob", "")
	due := h.due(t)
	if len(due) != 2 {
		t.Fatalf("due = %d, want 2", len(due))
	}
	got, _, err := h.s.RecordAttempt(due[0].Delivery.ID, store.AttemptResult{
		Attempt: store.Attempt{At: h.clock.Now(), StatusCode: 410}, Outcome: store.OutcomeGone})
	if err != nil || got.Status != store.DeliveryFailed {
		t.Fatalf("after 410: %+v, %v; want failed", got, err)
	}
	if other := h.delivery(t, due[1].Delivery.ID); other.Status != store.DeliveryCancelled {
		t.Fatalf("other pending delivery is %s, want cancelled", other.Status)
	}
	if n, _ := h.s.QueueDepth(); n != 0 {
		t.Fatalf("queue depth = %d after 410, want 0", n)
	}
	wantKind(t, h.s.Unsubscribe(h.ws, h.sub.ID), store.ErrNotFound, "subscription not found")
	// The log outlives the subscription.
	if ds, _ := h.s.SubscriptionDeliveries(h.sub.ID, 0); len(ds) != 2 {
		t.Fatalf("deliveries listed after 410: %d, want 2", len(ds))
	}
}

func TestUnsubscribeCancelsPendingDeliveries(t *testing.T) {
	h := newHookFixture(t)
	h.contact(t, "+14155550101", "Ada", "")
	pending := h.due(t)
	if len(pending) != 1 {
		t.Fatalf("due before unsubscribe = %d, want 1", len(pending))
	}
	if err := h.s.Unsubscribe(h.ws, h.sub.ID); err != nil {
		t.Fatal(err)
	}
	if due := h.due(t); len(due) != 0 {
		t.Fatalf("due after unsubscribe = %+v, want none", due)
	}
	if d := h.delivery(t, pending[0].Delivery.ID); d.Status != store.DeliveryCancelled || d.LastError != "unsubscribed" {
		t.Fatalf("delivery = %+v, want cancelled (unsubscribed)", d)
	}
	if n, _ := h.s.QueueDepth(); n != 0 {
		t.Fatalf("queue depth = %d, want 0", n)
	}
}

func TestFailingFiveDaysDisablesTheSubscription(t *testing.T) {
	h := newHookFixture(t)
	h.contact(t, "+14155550101", "Ada", "")
	first := h.due(t)[0].Delivery
	fail := func(id string) (store.Delivery, bool) {
		t.Helper()
		d, disabled, err := h.s.RecordAttempt(id, store.AttemptResult{
			Attempt: store.Attempt{At: h.clock.Now(), Error: "connection refused"},
			Outcome: store.OutcomeRetry, NextAt: h.clock.Now().Add(time.Hour)})
		if err != nil {
			t.Fatal(err)
		}
		return d, disabled
	}
	if _, disabled := fail(first.ID); disabled {
		t.Fatal("disabled after the first failure")
	}
	h.clock.Advance(store.SubscriptionDisableAfter - time.Second)
	h.contact(t, "+14155550102", "Bob", "")
	h.contact(t, "+14155550103", "Cy", "")
	due := h.due(t)
	if len(due) != 3 {
		t.Fatalf("due = %d, want 3", len(due))
	}
	if _, disabled := fail(due[1].Delivery.ID); disabled {
		t.Fatal("disabled before 5 days of failures")
	}
	h.clock.Advance(time.Second)
	d, disabled := fail(due[2].Delivery.ID)
	if !disabled || d.Status != store.DeliveryFailed {
		t.Fatalf("after 5 days: disabled %v, delivery %s; want disabled and failed", disabled, d.Status)
	}
	sub, _ := h.s.FindSubscription(h.sub.ID)
	if sub.Active || sub.DisabledAt == nil {
		t.Fatalf("subscription = %+v, want inactive with DisabledAt", sub)
	}
	for _, id := range []string{first.ID, due[1].Delivery.ID} {
		if d := h.delivery(t, id); d.Status != store.DeliveryCancelled {
			t.Fatalf("pending delivery %s is %s after disabling, want cancelled", id, d.Status)
		}
	}
	// A disabled subscription gets no new deliveries and cannot be redelivered to.
	h.contact(t, "+14155550104", "Di", "")
	if n, _ := h.s.QueueDepth(); n != 0 {
		t.Fatalf("queue depth = %d with the subscription disabled, want 0", n)
	}
	_, err := h.s.Redeliver(first.ID)
	wantKind(t, err, store.ErrConflict, "")

	sub, changed, err := h.s.EnableSubscription(h.sub.ID)
	if err != nil || !changed || !sub.Active || sub.DisabledAt != nil || sub.FailingSince != nil {
		t.Fatalf("EnableSubscription = %+v, %v, %v; want active, cleared", sub, changed, err)
	}
	if _, changed, _ := h.s.EnableSubscription(h.sub.ID); changed {
		t.Fatal("enabling an active subscription reported a change")
	}
	_, _, err = h.s.EnableSubscription("01JZZZZZZZZZZZZZZZZZZZZZZZ")
	wantKind(t, err, store.ErrNotFound, "subscription not found")
	r, err := h.s.Redeliver(first.ID)
	if err != nil || r.Status != store.DeliveryPending || r.Attempts != 0 || !r.NextAt.Equal(h.clock.Now()) {
		t.Fatalf("Redeliver = %+v, %v; want pending now with attempts reset", r, err)
	}
	if due := h.due(t); len(due) != 1 || due[0].Delivery.ID != first.ID {
		t.Fatalf("due after redeliver = %+v, want the redelivered one", due)
	}
	if atts, _ := h.s.DeliveryAttempts(first.ID); len(atts) != 1 {
		t.Fatalf("attempts kept across redelivery = %d, want 1", len(atts))
	}
}

func TestRedeliverPendingMovesItToNow(t *testing.T) {
	h := newHookFixture(t)
	h.contact(t, "+14155550101", "Ada", "")
	d := h.due(t)[0].Delivery
	if _, _, err := h.s.RecordAttempt(d.ID, store.AttemptResult{Attempt: store.Attempt{At: h.clock.Now(), StatusCode: 503},
		Outcome: store.OutcomeRetry, NextAt: h.clock.Now().Add(2 * time.Hour)}); err != nil {
		t.Fatal(err)
	}
	r, err := h.s.Redeliver(d.ID)
	if err != nil || r.Attempts != 1 || !r.NextAt.Equal(h.clock.Now()) {
		t.Fatalf("Redeliver = %+v, %v; want due now, attempt count kept", r, err)
	}
	if n := store.QueueKeys(h.s, d.ID); n != 1 {
		t.Fatalf("queue entries = %d, want 1", n)
	}
	_, err = h.s.Redeliver("nope")
	wantKind(t, err, store.ErrNotFound, "delivery not found")
}

func TestSubscriptionDeliveriesNewestFirst(t *testing.T) {
	h := newHookFixture(t)
	other, err := h.s.Subscribe(h.ws, h.user.ID, store.EventContactCreated, "https://other.example.com/")
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range []string{"+14155550101", "+14155550102", "+14155550103"} {
		h.contact(t, p, "", "")
		h.clock.Advance(time.Millisecond)
	}
	ds, err := h.s.SubscriptionDeliveries(h.sub.ID, 0)
	if err != nil || len(ds) != 3 {
		t.Fatalf("SubscriptionDeliveries = %d, %v; want 3", len(ds), err)
	}
	for i := 1; i < len(ds); i++ {
		if ds[i-1].ID <= ds[i].ID {
			t.Fatalf("not newest first: %s before %s", ds[i-1].ID, ds[i].ID)
		}
	}
	for _, d := range ds {
		if d.SubscriptionID != h.sub.ID {
			t.Fatalf("delivery of subscription %s listed under %s", d.SubscriptionID, h.sub.ID)
		}
	}
	if ds, _ := h.s.SubscriptionDeliveries(h.sub.ID, 2); len(ds) != 2 {
		t.Fatalf("limit 2 gave %d", len(ds))
	}
	if ds, _ := h.s.SubscriptionDeliveries(other.ID, 0); len(ds) != 3 {
		t.Fatalf("the other subscription has %d deliveries, want 3", len(ds))
	}
}

func TestPurgeWebhookHistoryKeepsPendingWork(t *testing.T) {
	h := newHookFixture(t)
	h.contact(t, "+14155550101", "Old", "Done")
	h.contact(t, "+14155550102", "Old", "Pending")
	due := h.due(t)
	done, pending := due[0].Delivery, due[1].Delivery
	if _, _, err := h.s.RecordAttempt(done.ID, store.AttemptResult{Attempt: store.Attempt{At: h.clock.Now(), StatusCode: 200},
		Outcome: store.OutcomeDelivered}); err != nil {
		t.Fatal(err)
	}
	h.clock.Advance(store.WebhookRetention + time.Hour)
	h.contact(t, "+14155550103", "New", "")
	n, err := h.s.PurgeWebhookHistory(h.clock.Now().Add(-store.WebhookRetention))
	if err != nil || n != 1 {
		t.Fatalf("PurgeWebhookHistory = %d, %v; want 1 removed", n, err)
	}
	if _, err := h.s.Delivery(done.ID); !errors.Is(err, store.ErrNotFound) {
		t.Fatalf("old delivered delivery still there: %v", err)
	}
	if atts, _ := h.s.DeliveryAttempts(done.ID); len(atts) != 0 {
		t.Fatalf("its attempts are still there: %d", len(atts))
	}
	if _, err := h.s.Event(done.EventID); !errors.Is(err, store.ErrNotFound) {
		t.Fatalf("its event is still there: %v", err)
	}
	if d := h.delivery(t, pending.ID); d.Status != store.DeliveryPending {
		t.Fatalf("pending delivery = %s, want kept pending", d.Status)
	}
	if _, err := h.s.Event(pending.EventID); err != nil {
		t.Fatalf("the pending delivery's event was purged: %v", err)
	}
	if ds, _ := h.s.SubscriptionDeliveries(h.sub.ID, 0); len(ds) != 2 {
		t.Fatalf("deliveries left = %d, want 2 (old pending, new)", len(ds))
	}
}

func TestPurgeWorksInChunks(t *testing.T) {
	h := newHookFixture(t)
	// More deliveries than one purge transaction takes: 11 subscriptions × 100 contacts (few
	// contacts, because indexing them is what costs under -race).
	for range 10 {
		if _, err := h.s.Subscribe(h.ws, h.user.ID, store.EventContactCreated, "https://hooks.example.com/more"); err != nil {
			t.Fatal(err)
		}
	}
	const contacts, n = 100, 1100
	ins := make([]store.ContactInput, contacts)
	for i := range ins {
		ins[i] = store.ContactInput{Phone: "+1415555" + string(rune('0'+i/1000)) + pad3(i%1000)}
	}
	if _, err := store.BulkContacts(h.s, h.ws, ins); err != nil {
		t.Fatal(err)
	}
	due, _, err := h.s.DueDeliveries(h.clock.Now(), n, nil)
	if err != nil || len(due) != n {
		t.Fatalf("due = %d, %v; want %d", len(due), err, n)
	}
	// Concurrent, as the worker pool records them, so DB.Batch shares the fsyncs.
	var wg sync.WaitGroup
	errs := make(chan error, n)
	sem := make(chan struct{}, 64)
	for i, d := range due {
		if i%2 == 0 {
			continue // every other one stays pending
		}
		wg.Add(1)
		sem <- struct{}{}
		go func() {
			defer wg.Done()
			defer func() { <-sem }()
			_, _, err := h.s.RecordAttempt(d.Delivery.ID, store.AttemptResult{Attempt: store.Attempt{StatusCode: 200}, Outcome: store.OutcomeDelivered})
			errs <- err
		}()
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		if err != nil {
			t.Fatal(err)
		}
	}
	h.clock.Advance(store.WebhookRetention + time.Hour)
	removed, err := h.s.PurgeWebhookHistory(h.clock.Now().Add(-store.WebhookRetention))
	if err != nil || removed != n/2 {
		t.Fatalf("removed %d, %v; want %d", removed, err, n/2)
	}
	if depth, _ := h.s.QueueDepth(); depth != n-n/2 {
		t.Fatalf("queue depth = %d, want %d", depth, n-n/2)
	}
}

func pad3(i int) string {
	s := "00" + string(rune('0'+i/100%10)) + string(rune('0'+i/10%10)) + string(rune('0'+i%10))
	return s[len(s)-3:]
}
