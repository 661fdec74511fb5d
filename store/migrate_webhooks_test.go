package store_test

import (
	"errors"
	"path/filepath"
	"switchboard/store"
	"testing"

	bolt "go.etcd.io/bbolt"
)

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
