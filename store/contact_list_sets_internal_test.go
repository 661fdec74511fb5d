package store

import (
	"errors"
	"testing"

	"switchboard/store/internal/index"
	"switchboard/store/kv"
)

// phoneNum is the num holding phone.
func (f *patchFix) phoneNum(t *testing.T, phone string) uint32 {
	t.Helper()
	var n uint32
	err := f.s.view(func(tx *kv.Tx) error {
		v := index.ReadSplit(tx, indexLayout.Phone, idKey(f.ws)).Get([]byte(phone))
		if len(v) != 4 {
			return errors.New("no contact has " + phone)
		}
		n = u32(v)
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return n
}

// TestPatchedSetsKeepEachReadersSnapshot: bbolt gives each read transaction the snapshot of the
// last commit before it began. A reader that holds a kept set keeps seeing its snapshot after a
// write patches it; a reader of a snapshot before the write neither uses the patched set nor
// replaces it with one it builds; a reader of the write's snapshot uses the patched set.
func TestPatchedSetsKeepEachReadersSnapshot(t *testing.T) {
	f := newPatchFix(t)
	k := f.key(index.SetOptedOut)
	n := f.phoneNum(t, f.phones[3])
	oldTx, err := f.s.DB().Begin(false)
	if err != nil {
		t.Fatal(err)
	}
	old := kv.Wrap(oldTx, 0, nil)
	held, ok := f.s.idx.KeptSet(old, k)
	if !ok {
		t.Fatal("the opted-out set is not kept after a read")
	}
	if _, _, err := f.s.CreateOptOut(f.ws, "", f.phones[3], OptOutAdmin); err != nil {
		t.Fatal(err)
	}
	if held.Has(n) {
		t.Error("the set a reader holds was patched under it")
	}
	if _, ok := f.s.idx.KeptSet(old, k); ok {
		t.Error("a reader of the snapshot before the write got the patched set")
	}
	if f.s.idx.KeepSet(old, k, index.NewSet(100)) {
		t.Error("a set built from the snapshot before the write replaced the patched one")
	}
	_ = oldTx.Rollback()
	_ = f.s.view(func(tx *kv.Tx) error {
		if s, ok := f.s.idx.KeptSet(tx, k); !ok || !s.Has(n) {
			t.Errorf("a reader after the write: kept %v, has the opted-out num %v; want both", ok, ok && s.Has(n))
		}
		return nil
	})
	f.check(t, "an opt-out")
}

// TestRolledBackWriteLeavesTheKeptSets: a write that fails after touching the sets (batched or
// not) leaves them as they were and still used by the next read, without a rebuild.
func TestRolledBackWriteLeavesTheKeptSets(t *testing.T) {
	f := newPatchFix(t)
	k := f.key(index.SetOptedOut)
	if _, _, err := f.s.CreateOptOut(f.ws, "", f.phones[5], OptOutAdmin); err != nil {
		t.Fatal(err)
	}
	n5, n6 := f.phoneNum(t, f.phones[5]), f.phoneNum(t, f.phones[6])
	kept := func() index.Set {
		var s index.Set
		_ = f.s.view(func(tx *kv.Tx) error { s, _ = f.s.idx.KeptSet(tx, k); return nil })
		return s
	}
	before := kept()
	if before == nil || !before.Has(n5) {
		t.Fatal("the opted-out set is not kept with the opt-out")
	}
	boom := errors.New("boom")
	err := f.s.update(func(tx *wtx) error {
		if _, err := removeOptOut(tx, f.ws, f.phones[5]); err != nil {
			return err
		}
		return boom
	})
	if !errors.Is(err, boom) {
		t.Fatalf("the failing batched write returned %v", err)
	}
	err = f.s.updateNow(func(tx *wtx) error {
		if _, _, err := f.s.createOptOut(tx, f.ws, "", f.phones[6], OptOutAdmin, optOutSource{}); err != nil {
			return err
		}
		return boom
	})
	if !errors.Is(err, boom) {
		t.Fatalf("the failing write returned %v", err)
	}
	after := kept()
	if after == nil {
		t.Fatal("a rolled-back write left the set to be rebuilt")
	}
	if &after[0] != &before[0] || !after.Has(n5) || after.Has(n6) {
		t.Error("a rolled-back write changed the kept set")
	}
	f.check(t, "two rolled-back writes")
}

// TestReaderBetweenCommitAndPatch: bbolt runs commit handlers (which patch the sets) after it
// has released the write lock, so a reader may begin on the new snapshot before the patch, and
// another write may commit and patch before the first one's handler runs. Neither may see a
// set that misses a committed write.
func TestReaderBetweenCommitAndPatch(t *testing.T) {
	f := newPatchFix(t)
	k := f.key(index.SetOptedOut)
	write := func(phone string, meanwhile func()) {
		t.Helper()
		tx, btx := beginWrite(t, f.s)
		tx.OnCommit(meanwhile) // registered first, so it runs before the patch
		if _, _, err := f.s.createOptOut(tx, f.ws, "", phone, OptOutAdmin, optOutSource{}); err != nil {
			t.Fatal(err)
		}
		tx.settleSets()
		if err := btx.Commit(); err != nil {
			t.Fatal(err)
		}
	}
	n := f.phoneNum(t, f.phones[7])
	write(f.phones[7], func() {
		_ = f.s.view(func(tx *kv.Tx) error {
			if s, ok := f.s.idx.KeptSet(tx, k); ok && !s.Has(n) {
				t.Error("a reader between the commit and the patch used a set without the write")
			}
			return nil
		})
	})
	if !f.kept(index.SetOptedOut) {
		t.Error("the set was not patched")
	}
	f.check(t, "an opt-out")

	write(f.phones[8], func() {
		if _, _, err := f.s.CreateOptOut(f.ws, "", f.phones[9], OptOutAdmin); err != nil {
			t.Error(err)
		}
	})
	f.check(t, "two opt-outs whose patches ran in the wrong order")
	yes := true
	if n, _ := f.answer(t, ContactFilter{OptedOut: &yes}); n != 3 {
		t.Errorf("%d opted out, want 3", n)
	}
}
