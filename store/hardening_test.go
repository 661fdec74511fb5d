package store_test

import (
	"bytes"
	"errors"
	"fmt"
	"path/filepath"
	"testing"
	"time"

	bolt "go.etcd.io/bbolt"

	"switchboard/store"
)

// TestNonULIDIDsAreNotFound: an id that is not a ULID finds nothing, even when its bytes are
// the binary key of a real record (the old raw-byte fallback let such a string reach it).
func TestNonULIDIDsAreNotFound(t *testing.T) {
	f := newFixture(t)
	sub, err := f.s.Subscribe(f.ws, f.user.ID, store.EventContactCreated, "https://hooks.example.com/x")
	if err != nil {
		t.Fatal(err)
	}
	rawWS, rawUser, rawSub := string(store.IDKey(f.ws)), string(store.IDKey(f.user.ID)), string(store.IDKey(sub.ID))
	for _, id := range []string{rawWS, rawUser, rawSub, "", "x", "../..", rawWS + rawUser, "00000000000000000000000000"} {
		if bytes.Equal(store.IDKey(id), store.IDKey(f.ws)) || bytes.Equal(store.IDKey(id), store.IDKey(sub.ID)) {
			t.Errorf("IDKey(%q) is the key of a real record", id)
		}
	}
	if _, err := f.s.Workspace(rawWS); !errors.Is(err, store.ErrNotFound) {
		t.Errorf("Workspace(raw bytes): %v, want ErrNotFound", err)
	}
	if err := f.s.Authorize(rawWS, rawUser); !errors.Is(err, store.ErrNotFound) {
		t.Errorf("Authorize(raw bytes): %v, want ErrNotFound", err)
	}
	if err := f.s.RemoveMember(rawWS, rawUser); !errors.Is(err, store.ErrNotFound) {
		t.Errorf("RemoveMember(raw bytes): %v, want ErrNotFound", err)
	}
	if err := f.s.Unsubscribe(rawWS, rawSub); !errors.Is(err, store.ErrNotFound) {
		t.Errorf("Unsubscribe(raw bytes): %v, want ErrNotFound", err)
	}
	if err := f.s.Unsubscribe(f.ws, "not-a-ulid"); !errors.Is(err, store.ErrNotFound) {
		t.Errorf("Unsubscribe(not a ULID): %v, want ErrNotFound", err)
	}
	if subs, _ := f.s.Subscriptions(rawWS); len(subs) != 0 {
		t.Errorf("Subscriptions(raw bytes) listed %d", len(subs))
	}
	if ms, _ := f.s.Members(rawWS); len(ms) != 0 {
		t.Errorf("Members(raw bytes) listed %d", len(ms))
	}
	// Nothing was changed.
	if err := f.s.Authorize(f.ws, f.user.ID); err != nil {
		t.Fatalf("the member lost access: %v", err)
	}
	if subs, _ := f.s.Subscriptions(f.ws); len(subs) != 1 {
		t.Fatalf("%d subscriptions left, want 1", len(subs))
	}
}

// TestSubscriptionLimit: 25 active subscriptions per workspace and event; the 26th is a
// conflict and stores nothing, another event or workspace is not affected, and re-enabling a
// disabled one beyond the limit is refused.
func TestSubscriptionLimit(t *testing.T) {
	clock := &testClock{t: time.Date(2026, 11, 21, 22, 0, 0, 0, time.UTC)}
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

// TestMigrationBuildsWebhookIndexes opens a file as the previous schema left it (no owner or
// pending indexes, no pending count): the migration builds them, so the queue depth is right and
// removing the member still ends their subscription.
func TestMigrationBuildsWebhookIndexes(t *testing.T) {
	path := filepath.Join(t.TempDir(), "old.db")
	s, err := store.Open(path, store.Options{})
	if err != nil {
		t.Fatal(err)
	}
	f := newFixtureOn(t, s)
	sub, err := s.Subscribe(f.ws, f.user.ID, store.EventContactCreated, "https://hooks.example.com/x")
	if err != nil {
		t.Fatal(err)
	}
	// A user who left before the migration, whose subscription the old RemoveMember kept.
	gone, err := s.CreateUser(store.NewUser{Email: "gone@example.com", Name: "Gone"})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := s.AddMember(f.ws, gone.ID, ""); err != nil {
		t.Fatal(err)
	}
	orphan, err := s.Subscribe(f.ws, gone.ID, store.EventContactCreated, "https://hooks.example.com/gone")
	if err != nil {
		t.Fatal(err)
	}
	f.contact(t, "+14155550101", "Ada", "")
	f.contact(t, "+14155550102", "Bo", "")
	s.Close()

	// Make it the previous version's file.
	db, err := bolt.Open(path, 0o600, nil)
	if err != nil {
		t.Fatal(err)
	}
	if err := db.Update(func(tx *bolt.Tx) error {
		for _, b := range []string{"idx_webhook_subscription_owner", "idx_webhook_subscription_pending", "idx_webhook_event_pending"} {
			if err := tx.DeleteBucket([]byte(b)); err != nil {
				return err
			}
		}
		membership := append(store.IDKey(f.ws), store.IDKey(gone.ID)...)
		if err := tx.Bucket([]byte("memberships")).Delete(membership); err != nil {
			return err
		}
		meta := tx.Bucket([]byte("meta"))
		if err := meta.Delete([]byte("webhook_pending_count")); err != nil {
			return err
		}
		return meta.Put([]byte("schema_version"), []byte{0, 0, 0, 0, 0, 0, 0, 1})
	}); err != nil {
		t.Fatal(err)
	}
	db.Close()

	s = openStoreAt(t, path, store.Options{})
	if v, _ := s.SchemaVersion(); v != store.SchemaVersion {
		t.Fatalf("schema %d after open, want %d", v, store.SchemaVersion)
	}
	if n, _ := s.QueueDepth(); n != 2 {
		t.Fatalf("queue depth %d after the migration, want 2 (the orphan's 2 cancelled)", n)
	}
	if _, err := s.FindSubscription(orphan.ID); !errors.Is(err, store.ErrNotFound) {
		t.Fatalf("the subscription of a user who had left: %v, want deleted by the migration", err)
	}
	if ds, _ := s.SubscriptionDeliveries(orphan.ID, 0); len(ds) != 2 || ds[0].Status != store.DeliveryCancelled {
		t.Fatalf("the orphan's deliveries: %+v, want 2 cancelled", ds)
	}
	if err := s.RemoveMember(f.ws, f.user.ID); err != nil {
		t.Fatal(err)
	}
	if _, err := s.FindSubscription(sub.ID); !errors.Is(err, store.ErrNotFound) {
		t.Fatalf("the subscription of a removed member made before the migration: %v, want deleted", err)
	}
	if n, _ := s.QueueDepth(); n != 0 {
		t.Fatalf("queue depth %d, want 0", n)
	}
}
