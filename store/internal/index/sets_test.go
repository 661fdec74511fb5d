package index

import (
	"path/filepath"
	"testing"

	bolt "go.etcd.io/bbolt"
	"switchboard/store/kv"
)

// TestKeptSetsStayWithinTheirBudget: however many sets are kept, their memory stays within
// setCacheBytes, the least recently used going first.
func TestKeptSetsStayWithinTheirBudget(t *testing.T) {
	db, err := bolt.Open(filepath.Join(t.TempDir(), "budget.db"), 0o600, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	c := newSetCache()
	const maxNum = 1_000_000 // 125 KB a set
	first := SetKey{"w", SetGroup, "g0a"}
	err = rawView(db, func(tx *kv.Tx) error {
		for i := range 300 {
			c.put(tx, SetKey{"w", SetGroup, "g" + string(rune('0'+i%10)) + string(rune('a'+i/10))}, NewSet(maxNum))
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
}
