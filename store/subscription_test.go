package store_test

import (
	"fmt"
	"testing"
	"time"

	"switchboard/internal/testutil"
	"switchboard/store"
)

// TestSubscriptionLimit: 25 active subscriptions per workspace and event; the 26th is a
// conflict and stores nothing, another event or workspace is not affected, and re-enabling a
// disabled one beyond the limit is refused.
func TestSubscriptionLimit(t *testing.T) {
	clock := testutil.NewClock(time.Date(2026, 11, 21, 22, 0, 0, 0, time.UTC))
	f := newFixtureOn(t, openStore(t, store.Options{Now: clock.Now}))
	var first store.Subscription
	for i := range store.MaxActiveSubscriptions {
		sub, err := f.s.Subscribe(f.ws, f.user.ID, store.EventContactCreated, fmt.Sprintf("https://hooks.example.com/%d", i))
		if err != nil {
			t.Fatalf("subscription %d: %v", i+1, err)
		}
		if i == 0 {
			first = sub
		}
	}
	_, err := f.s.Subscribe(f.ws, f.user.ID, store.EventContactCreated, "https://hooks.example.com/one-too-many")
	wantKind(t, err, store.ErrConflict, "this workspace already has 25 active subscriptions to contact.created")
	if subs, _ := f.s.Subscriptions(f.ws); len(subs) != store.MaxActiveSubscriptions {
		t.Fatalf("%d subscriptions after the refusal, want %d", len(subs), store.MaxActiveSubscriptions)
	}
	if _, err := f.s.Subscribe(f.ws, f.user.ID, store.EventContactUpdated, "https://hooks.example.com/other-event"); err != nil {
		t.Fatalf("another event: %v", err)
	}

	// Disable the first by failing for five days, fill its place, then try to enable it.
	f.contact(t, "+14155550101", "Ada", "")
	due, _, _ := f.s.DueDeliveries(clock.Now(), 100, nil)
	var mine string
	for _, d := range due {
		if d.Delivery.SubscriptionID == first.ID {
			mine = d.Delivery.ID
		}
	}
	fail := func() bool {
		_, disabled, err := f.s.RecordAttempt(mine, store.AttemptResult{Attempt: store.Attempt{At: clock.Now(), StatusCode: 500},
			Outcome: store.OutcomeRetry, NextAt: clock.Now().Add(time.Hour)})
		if err != nil {
			t.Fatal(err)
		}
		return disabled
	}
	fail()
	clock.Advance(store.SubscriptionDisableAfter)
	if !fail() {
		t.Fatal("the subscription was not disabled after five days of failures")
	}
	if _, err := f.s.Subscribe(f.ws, f.user.ID, store.EventContactCreated, "https://hooks.example.com/replacement"); err != nil {
		t.Fatalf("a place freed by the disabled one: %v", err)
	}
	_, _, err = f.s.EnableSubscription(first.ID)
	wantKind(t, err, store.ErrConflict, "")
	if sub, _ := f.s.FindSubscription(first.ID); sub.Active {
		t.Fatal("the refused enable activated the subscription")
	}
}

// TestSubscriptionsDieWithAccess: a personal token's revocation deletes the subscriptions made
// with it, a membership's end those its user made in that workspace; nothing else is touched.
func TestSubscriptionsDieWithAccess(t *testing.T) {
	f := newFixture(t)
	ws2, err := f.s.CreateWorkspace("Other")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := f.s.AddMember(ws2.ID, f.user.ID, ""); err != nil {
		t.Fatal(err)
	}
	tokA, plainA, _ := f.s.CreateToken(f.user.ID, "a")
	tokB, _, _ := f.s.CreateToken(f.user.ID, "b")
	subscribe := func(tok store.Token, ws, hook string) store.Subscription {
		t.Helper()
		sub, err := f.s.SubscribeAs(tok, ws, store.EventContactCreated, hook)
		if err != nil {
			t.Fatal(err)
		}
		return sub
	}
	viaA := subscribe(tokA, f.ws, "https://hooks.example.com/a")
	viaB := subscribe(tokB, f.ws, "https://hooks.example.com/b")
	otherWS := subscribe(tokB, ws2.ID, "https://hooks.example.com/ws2")
	f.contact(t, "+14155550101", "Ada", "")
	exists := func(ws, id string) bool {
		subs, _ := f.s.Subscriptions(ws)
		for _, s := range subs {
			if s.ID == id {
				return true
			}
		}
		return false
	}
	status := func(subID string) string {
		ds, _ := f.s.SubscriptionDeliveries(subID, 0)
		if len(ds) != 1 {
			return fmt.Sprintf("%d deliveries", len(ds))
		}
		return ds[0].Status
	}

	if _, err := f.s.RevokeToken(plainA); err != nil {
		t.Fatal(err)
	}
	if exists(f.ws, viaA.ID) || !exists(f.ws, viaB.ID) || !exists(ws2.ID, otherWS.ID) {
		t.Fatal("revoking token A: want exactly its subscription gone")
	}
	if status(viaA.ID) != store.DeliveryCancelled || status(viaB.ID) != store.DeliveryPending {
		t.Fatalf("deliveries: A %s, B %s; want cancelled and pending", status(viaA.ID), status(viaB.ID))
	}
	// A token revoked while subscribing cannot leave a subscription behind.
	_, err = f.s.SubscribeAs(tokA, f.ws, store.EventContactCreated, "https://hooks.example.com/late")
	wantKind(t, err, store.ErrNotFound, "")

	if err := f.s.RemoveMember(f.ws, f.user.ID); err != nil {
		t.Fatal(err)
	}
	if exists(f.ws, viaB.ID) || !exists(ws2.ID, otherWS.ID) {
		t.Fatal("removing the membership of one workspace: want its subscriptions gone, the other workspace's kept")
	}
	if status(viaB.ID) != store.DeliveryCancelled {
		t.Fatalf("delivery of the removed member's subscription: %s, want cancelled", status(viaB.ID))
	}
	if n, _ := f.s.QueueDepth(); n != 0 {
		t.Fatalf("queue depth %d, want 0", n)
	}
	// A former member cannot subscribe, and new events reach nobody in that workspace.
	_, err = f.s.Subscribe(f.ws, f.user.ID, store.EventContactCreated, "https://hooks.example.com/again")
	wantKind(t, err, store.ErrForbidden, "")
	f.contact(t, "+14155550102", "Bo", "")
	if n, _ := f.s.QueueDepth(); n != 0 {
		t.Fatalf("queue depth %d after an event in the workspace the user left, want 0", n)
	}
}

// TestUnsubscribeLeavesHistory: cancelling a subscription's pending deliveries leaves its
// finished ones as they were, and the queue depth follows every change.
func TestUnsubscribeLeavesHistory(t *testing.T) {
	h := newHookFixture(t)
	for i := range 6 {
		h.contact(t, fmt.Sprintf("+1415555%04d", 200+i), "Ada", "")
	}
	if n, _ := h.s.QueueDepth(); n != 6 {
		t.Fatalf("queue depth %d, want 6", n)
	}
	due := h.due(t)
	for _, d := range due[:3] {
		if _, _, err := h.s.RecordAttempt(d.Delivery.ID, store.AttemptResult{Attempt: store.Attempt{At: h.clock.Now(), StatusCode: 200},
			Outcome: store.OutcomeDelivered}); err != nil {
			t.Fatal(err)
		}
	}
	if n, _ := h.s.QueueDepth(); n != 3 {
		t.Fatalf("queue depth %d after three deliveries, want 3", n)
	}
	if err := h.s.Unsubscribe(h.ws, h.sub.ID); err != nil {
		t.Fatal(err)
	}
	counts := map[string]int{}
	ds, _ := h.s.SubscriptionDeliveries(h.sub.ID, 0)
	for _, d := range ds {
		counts[d.Status]++
	}
	if counts[store.DeliveryDelivered] != 3 || counts[store.DeliveryCancelled] != 3 || len(ds) != 6 {
		t.Fatalf("deliveries after unsubscribe: %v, want 3 delivered and 3 cancelled", counts)
	}
	if n, _ := h.s.QueueDepth(); n != 0 {
		t.Fatalf("queue depth %d, want 0", n)
	}
	for _, d := range ds {
		if store.QueueKeys(h.s, d.ID) != 0 {
			t.Fatalf("delivery %s (%s) still has a queue entry", d.ID, d.Status)
		}
	}
}
