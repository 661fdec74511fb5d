package store

import (
	"path/filepath"
	"testing"

	bolt "go.etcd.io/bbolt"
)

// TestKeptSetIsOnlyUsedForSnapshotsItIsExactFor: a set built by a read that began before a
// write is neither kept nor used once that write commits; a set built after it serves later
// reads until the next write that changes it; writes to other sets leave it kept.
func TestKeptSetIsOnlyUsedForSnapshotsItIsExactFor(t *testing.T) {
	s, err := Open(filepath.Join(t.TempDir(), "sets.db"), Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	c := cacheOf(s.db)
	ws, other := s.NewID(), s.NewID()
	k := setKey{string(idKey(ws)), setOptedOut, ""}
	write := func(changed func(tx *bolt.Tx)) {
		t.Helper()
		err := s.update(func(tx *bolt.Tx, _ *effects) error {
			changed(tx)
			return tx.Bucket(bMeta).Put([]byte("sets-test"), []byte(ws))
		})
		if err != nil {
			t.Fatal(err)
		}
	}

	old, err := s.db.Begin(false)
	if err != nil {
		t.Fatal(err)
	}
	write(func(tx *bolt.Tx) { optOutSetChanged(tx, ws) })
	if c.put(old, k, newNumSet(100)) {
		t.Error("a set built before a committed write was kept")
	}
	_ = old.Rollback()

	err = s.db.View(func(tx *bolt.Tx) error {
		if !c.put(tx, k, newNumSet(100)) {
			t.Error("a set built after the last write was not kept")
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	got := func() bool {
		var ok bool
		_ = s.db.View(func(tx *bolt.Tx) error { _, ok = c.get(tx, k); return nil })
		return ok
	}
	if !got() {
		t.Fatal("the kept set was not used by the next read")
	}
	write(func(tx *bolt.Tx) { optOutSetChanged(tx, other) })
	if !got() {
		t.Error("another workspace's opt-out dropped the kept set")
	}
	write(func(tx *bolt.Tx) { groupSetChanged(tx, ws, s.NewID()); convSetChanged(tx, ws) })
	if !got() {
		t.Error("a group membership or a conversation dropped the kept opt-out set")
	}
	write(func(tx *bolt.Tx) { phoneSetsChanged(tx, idKey(ws)) })
	if got() {
		t.Error("the kept set was used after a phone changed hands")
	}
	_ = s.db.View(func(tx *bolt.Tx) error { c.put(tx, k, newNumSet(100)); return nil })
	write(func(tx *bolt.Tx) { optOutSetChanged(tx, ws) })
	if got() {
		t.Error("the kept set was used after a write that changed it")
	}
}

// TestKeptSetsStayWithinTheirBudget: however many sets are kept, their memory stays within
// setCacheBytes, the least recently used going first.
func TestKeptSetsStayWithinTheirBudget(t *testing.T) {
	s, err := Open(filepath.Join(t.TempDir(), "budget.db"), Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	c := cacheOf(s.db)
	const maxNum = 1_000_000 // 125 KB a set
	first := setKey{"w", setGroup, "g0a"}
	err = s.db.View(func(tx *bolt.Tx) error {
		for i := range 300 {
			c.put(tx, setKey{"w", setGroup, "g" + string(rune('0'+i%10)) + string(rune('a'+i/10))}, newNumSet(maxNum))
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if c.bytes > setCacheBytes || c.bytes <= setCacheBytes-2*(maxNum/8+8) {
		t.Errorf("kept %d bytes, want just under %d", c.bytes, setCacheBytes)
	}
	if _, ok := c.entries[first]; ok {
		t.Error("the least recently used set was kept over newer ones")
	}
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	if _, ok := setCaches.Load(s.db); ok {
		t.Error("a closed store's sets are still kept")
	}
}
