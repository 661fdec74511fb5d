package index

import (
	"encoding/binary"
	"math/rand/v2"
	"path/filepath"
	"slices"
	"testing"

	bolt "go.etcd.io/bbolt"
	"switchboard/store/kv"
)

// TestWalkEstimateDoesNotFallShortOfABlockOfFirstNames: a common first-name prefix (`chr` at a
// million contacts) has most of its candidates in one block of the name order, a tenth of the
// way in, and a few (last names) spread over the whole order. The walk to its 100th match in
// name order passes the tenth before the block. The planner's estimate of that walk must not
// fall far short of it, or it walks several times what ranking the candidates costs.
func TestWalkEstimateDoesNotFallShortOfABlockOfFirstNames(t *testing.T) {
	const (
		contacts = 100_000
		block    = 15_000 // candidates in the block of first names
		spread   = 750    // candidates spread over the order (last names)
		limit    = 100
	)
	db, err := bolt.Open(filepath.Join(t.TempDir(), "estimate.db"), 0o600, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	b := DefaultBounds(1000)
	for seed := range uint64(12) {
		rng := rand.New(rand.NewPCG(seed, 99))
		// A contact's place in the name order is a number in [0, 1), its rank the number's bytes.
		pos := make([]float64, contacts)
		cands := NewSet(contacts)
		for num := range pos {
			pos[num] = rng.Float64()
		}
		for _, num := range rng.Perm(contacts)[:block+spread] {
			cands.Add(uint32(num))
		}
		// Nums are given in creation order, which has nothing to do with names: which
		// candidates are first names is drawn at random.
		for num := range pos {
			if cands.Has(uint32(num)) && rng.IntN(block+spread) < block {
				pos[num] = 0.10 + 0.015*rng.Float64()
			}
		}
		var truth int
		err := rawUpdate(db, func(tx *kv.Tx) error {
			_ = tx.DeleteBucket([]byte("nums"))
			nb, err := tx.CreateBucket([]byte("nums"))
			if err != nil {
				return err
			}
			for blk := 0; blk*numBlock < contacts; blk++ {
				v := make([]byte, 0, numBlock*slotLen)
				for num := blk * numBlock; num < min(contacts, (blk+1)*numBlock); num++ {
					var id [16]byte
					binary.BigEndian.PutUint32(id[:], uint32(num)+1)
					var rank [RankLen]byte
					binary.BigEndian.PutUint64(rank[:], uint64(pos[num]*(1<<63))<<1)
					v = append(append(v, id[:]...), rank[:]...)
				}
				if err := nb.Put(NumKey(uint32(blk)), v); err != nil {
					return err
				}
			}
			// The walk's length: contacts before the limit-th candidate in the order.
			var cp []float64
			for num, p := range pos {
				if cands.Has(uint32(num)) {
					cp = append(cp, p)
				}
			}
			slices.Sort(cp)
			for _, p := range pos {
				if p < cp[limit-1] {
					truth++
				}
			}
			s := &searcher{b: &b, num: nb}
			est, ok := s.walkEstimate(cands, cands.Count(), contacts-1, limit)
			if !ok {
				t.Fatalf("seed %d: no estimate for %d candidates", seed, cands.Count())
			}
			if est < truth/2 {
				t.Errorf("seed %d: estimated %d steps where the walk takes %d", seed, est, truth)
			}
			return nil
		})
		if err != nil {
			t.Fatal(err)
		}
	}
}
