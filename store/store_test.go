package store_test

import (
	"bytes"
	"errors"
	"os"
	"path/filepath"
	"slices"
	"testing"
	"time"

	bolt "go.etcd.io/bbolt"

	"switchboard/internal/testutil"
	"switchboard/store"
)

func TestSchemaVersionAndReopen(t *testing.T) {
	path := filepath.Join(t.TempDir(), "data", "switchboard.db") // the directory is created
	s, err := store.Open(path, store.Options{})
	if err != nil {
		t.Fatal(err)
	}
	if v, err := s.SchemaVersion(); err != nil || v != store.SchemaVersion {
		t.Errorf("SchemaVersion = %d, %v; want %d", v, err, store.SchemaVersion)
	}
	f := newFixtureOn(t, s)
	c := f.contact(t, "+14155550123", "Ana", "")
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}

	s = openStoreAt(t, path, store.Options{})
	if v, err := s.SchemaVersion(); err != nil || v != store.SchemaVersion {
		t.Errorf("SchemaVersion after reopen = %d, %v; want %d", v, err, store.SchemaVersion)
	}
	got, err := s.Contact(f.ws, c.ID)
	if err != nil || got.FirstName != "Ana" {
		t.Errorf("contact after reopen = %+v, %v", got, err)
	}
	if res := search(t, s, f.ws, "ana"); len(res) != 1 {
		t.Errorf("search after reopen found %d, want 1", len(res))
	}
	w, err := s.Workspace(f.ws)
	if err != nil {
		t.Fatal(err)
	}
	// The tenant is created once and kept.
	s2w, err := s.CreateWorkspace("Second")
	if err != nil {
		t.Fatal(err)
	}
	if w.TenantID == "" || s2w.TenantID != w.TenantID {
		t.Errorf("tenant of a workspace made after reopen = %q, before = %q; want the same, non-empty", s2w.TenantID, w.TenantID)
	}
	// New ids after a reopen still sort after old ones.
	if id := s.NewID(); id <= c.ID {
		t.Errorf("id after reopen %s does not sort after %s", id, c.ID)
	}
}

func TestOpenWhileOpenFailsFast(t *testing.T) {
	path := filepath.Join(t.TempDir(), "switchboard.db")
	openStoreAt(t, path, store.Options{})
	start := time.Now()
	s2, err := store.Open(path, store.Options{Timeout: 100 * time.Millisecond})
	if err == nil {
		s2.Close()
		t.Fatal("a second Open of a file in use succeeded, want ErrLocked")
	}
	if !errors.Is(err, store.ErrLocked) {
		t.Errorf("second Open error = %v, want store.ErrLocked", err)
	}
	if d := time.Since(start); d > 2*time.Second {
		t.Errorf("second Open took %v, want it to give up after about its 100ms timeout", d)
	}
	// A read-only open waits for the same lock.
	if s3, err := store.Open(path, store.Options{Timeout: 50 * time.Millisecond, ReadOnly: true}); err == nil {
		s3.Close()
		t.Error("a read-only Open of a file held for writing succeeded, want ErrLocked")
	} else if !errors.Is(err, store.ErrLocked) {
		t.Errorf("read-only Open error = %v, want store.ErrLocked", err)
	}
}

func TestSchemaNewerThanBinaryIsRefused(t *testing.T) {
	path := filepath.Join(t.TempDir(), "switchboard.db")
	s, err := store.Open(path, store.Options{})
	if err != nil {
		t.Fatal(err)
	}
	err = s.DB().Update(func(tx *bolt.Tx) error {
		return tx.Bucket([]byte("meta")).Put([]byte("schema_version"), []byte{0, 0, 0, 0, 0, 0, 0, byte(store.SchemaVersion + 1)})
	})
	if err != nil {
		t.Fatal(err)
	}
	s.Close()
	if s, err := store.Open(path, store.Options{}); err == nil {
		s.Close()
		t.Fatal("Open of a file from a newer binary succeeded, want an error")
	}
}

func TestReadOnlyOpen(t *testing.T) {
	path := filepath.Join(t.TempDir(), "switchboard.db")
	s, err := store.Open(path, store.Options{})
	if err != nil {
		t.Fatal(err)
	}
	f := newFixtureOn(t, s)
	if _, _, err := s.CreateOptOut(f.ws, "", "+14155550123", store.OptOutAPI); err != nil {
		t.Fatal(err)
	}
	s.Close()
	ro := openStoreAt(t, path, store.Options{ReadOnly: true})
	if out, err := ro.IsOptedOut(f.ws, "+14155550123"); err != nil || !out {
		t.Errorf("IsOptedOut on a read-only open = %v, %v; want true", out, err)
	}
	if _, err := ro.CreateWorkspace("x"); err == nil {
		t.Error("a write on a read-only store succeeded")
	}
}

func TestNewIDIsMonotonicWithAStoppedClock(t *testing.T) {
	clock := testutil.NewClock(time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC))
	s := openStore(t, store.Options{Now: clock.Now})
	var got []string
	for range 1000 {
		got = append(got, s.NewID())
	}
	clock.Advance(-time.Hour) // a clock that steps back must not reorder ids
	for range 10 {
		got = append(got, s.NewID())
	}
	if !slices.IsSorted(got) {
		t.Error("ids from a stopped or stepped-back clock are not in increasing order")
	}
	if len(slices.Compact(slices.Clone(got))) != len(got) {
		t.Error("NewID repeated an id")
	}
	for _, id := range got[:3] {
		if _, ok := store.ParseID(id); !ok || len(id) != 26 {
			t.Errorf("NewID = %q, want a 26-character ULID", id)
		}
	}
}

func TestBackupIsAConsistentCopy(t *testing.T) {
	f := newFixture(t)
	c := f.contact(t, "+14155550123", "Ana", "")
	var buf bytes.Buffer
	var announced int64
	n, err := f.s.Backup(&buf, func(size int64) { announced = size })
	if err != nil {
		t.Fatal(err)
	}
	if n != int64(buf.Len()) || announced != n {
		t.Errorf("Backup wrote %d bytes, reported %d, announced %d; want all equal", buf.Len(), n, announced)
	}
	path := filepath.Join(t.TempDir(), "backup.db")
	if err := os.WriteFile(path, buf.Bytes(), 0o600); err != nil {
		t.Fatal(err)
	}
	b := openStoreAt(t, path, store.Options{})
	got, err := b.Contact(f.ws, c.ID)
	if err != nil || got.FirstName != "Ana" {
		t.Errorf("contact in the backup = %+v, %v", got, err)
	}
}

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
