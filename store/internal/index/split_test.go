package index

import (
	"bytes"
	"math/rand/v2"
	"path/filepath"
	"slices"
	"testing"

	bolt "go.etcd.io/bbolt"
	"switchboard/store/kv"
)

// TestSplitCursorMergesInKeyOrder spreads random keys over the two parts of an index (some in
// both, as no writer leaves them but a reader must survive) and checks the merged cursor against
// the sorted union: First then Next to the end, and Seek to keys present, absent and past the
// last, from a fresh cursor and from one already moved.
func TestSplitCursorMergesInKeyOrder(t *testing.T) {
	db, err := bolt.Open(filepath.Join(t.TempDir(), "c.db"), 0o600, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	rng := rand.New(rand.NewPCG(1, 2))
	key := func() []byte {
		k := make([]byte, 1+rng.IntN(4))
		for i := range k {
			k[i] = byte('a' + rng.IntN(4))
		}
		return k
	}
	for round := range 200 {
		var union [][]byte
		err := rawUpdate(db, func(tx *kv.Tx) error {
			for _, name := range []string{"main", "recent"} {
				_ = tx.DeleteBucket([]byte(name))
			}
			main, _ := tx.CreateBucket([]byte("main"))
			recent, _ := tx.CreateBucket([]byte("recent"))
			parts := []*kv.Bucket{main, recent}
			for range rng.IntN(40) {
				k := key()
				switch rng.IntN(5) {
				case 0: // in both
					main.Put(k, k)
					recent.Put(k, k)
				default:
					parts[rng.IntN(2)].Put(k, k)
				}
				union = append(union, k)
			}
			return nil
		})
		if err != nil {
			t.Fatal(err)
		}
		slices.SortFunc(union, bytes.Compare)
		union = slices.CompactFunc(union, bytes.Equal)
		rawView(db, func(tx *kv.Tx) error {
			x := SplitIndex{main: tx.Bucket([]byte("main")), recent: tx.Bucket([]byte("recent"))}
			if round%7 == 0 {
				x.recent = nil // a workspace no import wrote to
			}
			want := union
			if x.recent == nil {
				want = nil
				x.main.ForEach(func(k, _ []byte) error { want = append(want, bytes.Clone(k)); return nil })
			}
			var got [][]byte
			c := x.Cursor()
			for k, v := c.First(); k != nil; k, v = c.Next() {
				if !bytes.Equal(k, v) {
					t.Fatalf("round %d: key %q has value %q", round, k, v)
				}
				got = append(got, bytes.Clone(k))
			}
			if !slices.EqualFunc(got, want, bytes.Equal) {
				t.Fatalf("round %d: walked %q, want %q", round, got, want)
			}
			if k, _ := c.Next(); k != nil {
				t.Fatalf("round %d: Next past the end gave %q", round, k)
			}
			for range 10 {
				target := key()
				if rng.IntN(3) == 0 {
					c = x.Cursor()
				}
				i, _ := slices.BinarySearchFunc(want, target, bytes.Compare)
				k, _ := c.Seek(target)
				for ; i < len(want); i++ {
					if !bytes.Equal(k, want[i]) {
						t.Fatalf("round %d: after Seek(%q) got %q, want %q", round, target, k, want[i])
					}
					k, _ = c.Next()
				}
				if k != nil {
					t.Fatalf("round %d: after Seek(%q) the walk went on to %q", round, target, k)
				}
			}
			return nil
		})
	}
}
