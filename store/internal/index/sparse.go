package index

import (
	"bytes"
	"encoding/hex"
	"math/bits"
	"slices"

	"switchboard/internal/textfold"
)

// Sparse reports whether a page in name order of sel's total matches (of all contacts) costs
// less read from its members' ranks than walked: the walk passes about all×(limit+1)÷total keys
// to find a page (all of them when total is smaller), reading ranks costs one slot per member.
// A search's matches that sit together far into the order are read from their ranks too.
func (sel *Selection) Sparse(total, all, limit int) bool {
	if total == 0 || !slices.Contains(sel.neg, false) {
		return false // nothing to page, or no set to enumerate the members from
	}
	if sel.matches && sel.matchesByRank(total, limit) {
		return true
	}
	walk := all
	if total > limit {
		walk = all / total * (limit + 1)
	}
	return total*sel.e.Bounds.SparseStepCost < walk
}

// CountFew is Count for a selection whose first non-negated set has few members among all
// contacts: it tests those members' slots instead of every slot (ok false otherwise, or when
// no set can be enumerated). After AddSearch it is the matches' count.
func (sel *Selection) CountFew(all int) (n int, ok bool) {
	if sel.matches {
		return sel.sets[0].Count(), true
	}
	i := slices.Index(sel.neg, false)
	if i < 0 || sel.sets[i].Count()*sel.e.Bounds.SparseStepCost >= all {
		return 0, false
	}
	slots := NewSlotReader(sel.nums)
	for j, w := range sel.sets[i] {
		for ; w != 0; w &= w - 1 {
			num := uint32(j*64 + bits.TrailingZeros64(w))
			if _, _, live := slots.Slot(num); live && sel.keeps(num) {
				n++
			}
		}
	}
	return n, true
}

// WalkSparse is Walk in name order for a selection with few members: it enumerates the members
// of its first non-negated set, keeps those after cursor, and orders them by rank (the first
// RankLen bytes of their sort key, in their num slot), reading records only for the first
// limit+1 ranks (ties included) and for members whose rank equals the cursor's. It calls fn, in
// order, with at most limit+1 of them.
func (sel *Selection) WalkSparse(cursor string, limit int, fn func(id [16]byte) bool) error {
	var from []byte
	if cursor != "" {
		b, err := hex.DecodeString(cursor)
		if err != nil || len(b) < 4 {
			return ErrBadCursor
		}
		from = b
	}
	members := sel.sets[slices.Index(sel.neg, false)]
	slots := NewSlotReader(sel.nums)
	type member struct {
		rank [RankLen]byte
		id   [16]byte
		num  uint32
	}
	// Every member may come after the cursor: room for all of them at once, since a search's
	// matches can number tens of thousands and growing the slice step by step cost a sixth of
	// the walk.
	after := make([]member, 0, members.Count())
	var fromRank [RankLen]byte
	if from != nil {
		fromRank = RankOf(from[:len(from)-4])
	}
	for i, w := range members {
		for ; w != 0; w &= w - 1 {
			num := uint32(i*64 + bits.TrailingZeros64(w))
			if !sel.keeps(num) {
				continue
			}
			id, rank, ok := slots.Slot(num)
			if !ok {
				continue
			}
			if from != nil {
				c := cmpRank(rank, fromRank)
				if c < 0 {
					continue
				}
				if c == 0 {
					// The same rank as the cursor's: only the whole order key tells.
					if k := sel.orderKeyOf(id, num); k == nil || bytes.Compare(k, from) <= 0 {
						continue
					}
				}
			}
			after = append(after, member{rank, id, num})
		}
	}
	if len(after) == 0 {
		return nil
	}
	// The first limit+1 by rank, ties at the last included, then ordered by the whole key.
	want := min(limit+1, len(after))
	ranks := make([]ranked, len(after))
	for i, m := range after {
		ranks[i] = ranked{rank: m.rank, id: m.id}
	}
	hi := nthSmallest(ranks, want)
	type keyed struct {
		key []byte
		id  [16]byte
	}
	var page []keyed
	for _, m := range after {
		if cmpRank(m.rank, hi) <= 0 {
			if k := sel.orderKeyOf(m.id, m.num); k != nil {
				page = append(page, keyed{k, m.id})
			}
		}
	}
	slices.SortFunc(page, func(a, b keyed) int { return bytes.Compare(a.key, b.key) })
	for _, p := range page[:min(len(page), want)] {
		if !fn(p.id) {
			break
		}
	}
	return nil
}

// orderKeyOf is the contact's key in the name order, from its record; nil when it has none.
func (sel *Selection) orderKeyOf(id [16]byte, num uint32) []byte {
	t, ok := sel.text(id)
	if !ok {
		return nil
	}
	return OrderKey(Doc{First: textfold.Fold(t.First), Last: textfold.Fold(t.Last)}, num)
}
