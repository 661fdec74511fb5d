package index

import (
	"bytes"
	"cmp"
	"encoding/binary"
	"math/bits"
	"slices"
	"sync"
)

// byRank returns the first limit candidates in display order that are not skipped (skip may be
// nil) and match q. Ranks order the candidates without reading them: only those ranked among the
// first target (ties included) are read and sorted by their full sort key, then, if some of them
// failed verification, the next ones, twice as many each time. Every candidate not read ranks
// after every one read, so the first limit read are the first limit of all.
func (s *searcher) byRank(cands Set, n int, skip func([16]byte) bool, limit int) [][16]byte {
	kept := s.keptRanks(uint32(s.num.Sequence()), n)
	if !s.verify && skip == nil {
		if ids, ok := s.byPlace(cands, limit); ok {
			return ids
		}
	}
	all := getRanked(n)
	defer putRanked(all)
	rs := all
	sl := NewSlotReader(s.num)
	// A kept table gives the ranks of most candidates without their blocks (kept_ranks.go);
	// their ids are read later, for those that make the answer only. The candidates are listed
	// first and looked up after, in a loop whose reads of the table overlap.
	for i, w := range cands {
		for w != 0 {
			b := uint32(i*64) + uint32(bits.TrailingZeros64(w))
			w &= w - 1
			rs = append(rs, ranked{num: b})
		}
	}
	k := 0
	for _, r := range rs {
		rank, ok := kept.rank(r.num)
		if !ok {
			var id [16]byte
			if id, rank, ok = sl.Slot(r.num); !ok || (skip != nil && skip(id)) {
				continue
			}
			r.id = id
		} else if rank == ([RankLen]byte{}) {
			continue // no contact
		}
		r.rank = rank
		rs[k] = r
		k++
	}
	rs = rs[:k]
	// Ids are wanted before the answer when a candidate is verified on its record or may be
	// skipped.
	early := s.verify || skip != nil
	var found []hit
	for target := limit; len(rs) > 0 && len(found) < limit; target *= 2 {
		// Move the candidates ranked up to the target-th smallest rank (ties included) to the
		// front, in place, read them, and drop them from rs.
		var take []ranked
		if target >= len(rs) {
			take, rs = rs, nil
		} else {
			hi := nthSmallest(rs, target)
			k := 0
			for i := range rs {
				if cmpRank(rs[i].rank, hi) <= 0 {
					rs[k], rs[i] = rs[i], rs[k]
					k++
				}
			}
			take, rs = rs[:k], rs[k:]
		}
		if kept != nil && early {
			take = s.takeIDs(take, skip)
		}
		var batch []hit
		if !s.verify {
			// Every candidate matches: only their order is wanted, which the ranks give but
			// for equal ranks, whose full keys the display-order index holds.
			batch = s.orderTaken(take)
		} else {
			for _, r := range take {
				if sk, ok := s.check(r.id, true); ok {
					batch = append(batch, hit{num: r.num, id: r.id, sort: sk})
				}
			}
		}
		if !early {
			batch = s.answerIDs(batch, limit-len(found))
		}
		sortHits(batch)
		found = append(found, batch...)
	}
	out := make([][16]byte, 0, min(len(found), limit))
	for _, h := range found[:min(len(found), limit)] {
		out = append(out, h.id)
	}
	return out
}

// ranked is a candidate with its rank, and its id once read (zero before).
type ranked struct {
	rank [RankLen]byte
	id   [16]byte
	num  uint32
}

// readIDs reads the ids still zero among xs (id gives an item's) from the kept table where it
// answers, else from the num slots, in num order (one block fetch per block); an item whose num
// has no contact keeps a zero id.
func readIDs[T any](s *searcher, xs []T, num func(*T) uint32, id func(*T) *[16]byte) {
	var missing []int
	for i := range xs {
		if *id(&xs[i]) != ([16]byte{}) {
			continue
		}
		if v, ok := s.kept.id(num(&xs[i])); ok {
			*id(&xs[i]) = v
		} else {
			missing = append(missing, i)
		}
	}
	if len(missing) == 0 {
		return
	}
	slices.SortFunc(missing, func(a, b int) int { return cmp.Compare(num(&xs[a]), num(&xs[b])) })
	sl := NewSlotReader(s.num)
	for _, i := range missing {
		if v, _, ok := sl.Slot(num(&xs[i])); ok {
			*id(&xs[i]) = v
		}
	}
}

func rankedNum(r *ranked) uint32   { return r.num }
func rankedID(r *ranked) *[16]byte { return &r.id }
func hitNum(h *hit) uint32         { return h.num }
func hitID(h *hit) *[16]byte       { return &h.id }

// takeIDs reads the ids of the candidates of take whose rank came from a kept table and drops
// those with no contact or skipped (skip may be nil); it reuses take's array.
func (s *searcher) takeIDs(take []ranked, skip func([16]byte) bool) []ranked {
	readIDs(s, take, rankedNum, rankedID)
	return slices.DeleteFunc(take, func(r ranked) bool {
		return r.id == ([16]byte{}) || skip != nil && skip(r.id)
	})
}

// answerIDs keeps the first need hits of batch by sort key, and the hits whose key equals the
// last of those (ids order equal keys), reading the ids not read yet.
func (s *searcher) answerIDs(batch []hit, need int) []hit {
	slices.SortFunc(batch, func(a, b hit) int {
		if c := bytes.Compare(a.sort, b.sort); c != 0 {
			return c
		}
		return cmp.Compare(a.num, b.num)
	})
	cut := min(need, len(batch))
	for cut > 0 && cut < len(batch) && bytes.Equal(batch[cut].sort, batch[cut-1].sort) {
		cut++
	}
	batch = batch[:cut]
	readIDs(s, batch, hitNum, hitID)
	return slices.DeleteFunc(batch, func(h hit) bool { return h.id == ([16]byte{}) })
}

// tieStepsPerRecord is how many display-order index entries a search walks to order
// candidates of equal rank rather than read their records: a step costs about 25 ns, a record
// read cold over a microsecond.
const tieStepsPerRecord = 32

// orderTaken returns the candidates of take (each a match) as hits whose sort values order
// them as their full sort keys do, reading no record when it can: a candidate alone with its
// rank sorts by the rank; candidates of equal rank (two people named Christopher Jo…) get
// their full keys from the display-order index, walking the entries of that rank, or from
// their records when those entries are many more than they.
func (s *searcher) orderTaken(take []ranked) []hit {
	slices.SortFunc(take, func(a, b ranked) int { return cmpRank(a.rank, b.rank) })
	out := make([]hit, 0, len(take))
	for i := 0; i < len(take); {
		j := i + 1
		for j < len(take) && take[j].rank == take[i].rank {
			j++
		}
		group := take[i:j]
		i = j
		if len(group) == 1 {
			r := group[0]
			out = append(out, hit{num: r.num, id: r.id, sort: bytes.Clone(r.rank[:])})
			continue
		}
		if hits, ok := s.tieKeys(group); ok {
			out = append(out, hits...)
			continue
		}
		readIDs(s, group, rankedNum, rankedID) // those whose rank came from a kept table
		for _, r := range group {
			if sk, ok := s.check(r.id, true); ok {
				out = append(out, hit{num: r.num, id: r.id, sort: sk})
			}
		}
	}
	return out
}

// tieKeys finds the full sort keys of group, candidates of one rank, in the display-order
// index: its entries of that rank are next to each other. It gives up (ok false) after
// tieStepsPerRecord steps per candidate.
func (s *searcher) tieKeys(group []ranked) ([]hit, bool) {
	if !s.order.Exists() {
		return nil, false
	}
	want := make(map[uint32][16]byte, len(group))
	for _, r := range group {
		want[r.num] = r.id
	}
	rank := group[0].rank
	start := bytes.TrimRight(rank[:], "\x00")
	out := make([]hit, 0, len(group))
	budget := tieStepsPerRecord * len(group)
	c := s.order.Cursor()
	for k, _ := c.Seek(start); k != nil && len(k) > 4 && len(out) < len(group); k, _ = c.Next() {
		sk := k[:len(k)-4]
		if RankOf(sk) != rank {
			break
		}
		if budget--; budget < 0 {
			return nil, false
		}
		if id, ok := want[chunkFirst(k)]; ok {
			out = append(out, hit{num: chunkFirst(k), id: id, sort: bytes.Clone(sk)})
		}
	}
	return out, len(out) == len(group)
}

// rankeds recycles byRank's candidate lists: tens of thousands of candidates for a common
// prefix make ~1 MB each, and allocating them per search made the collector a search's tail.
var rankeds sync.Pool

func getRanked(n int) []ranked {
	if p, ok := rankeds.Get().(*[]ranked); ok && cap(*p) >= n {
		return (*p)[:0]
	}
	return make([]ranked, 0, n)
}

func putRanked(rs []ranked) { rankeds.Put(&rs) }

// nthSmallest returns the n-th smallest rank of vs (1 <= n <= len(vs)), keeping the n smallest
// seen in a max-heap: cheaper than sorting when n is small.
func nthSmallest(vs []ranked, n int) [RankLen]byte {
	h := make([][RankLen]byte, 0, n)
	less := func(a, b [RankLen]byte) bool { return cmpRank(a, b) < 0 }
	for _, r := range vs {
		v := r.rank
		switch {
		case len(h) < n:
			h = append(h, v)
			for i := len(h) - 1; i > 0; {
				parent := (i - 1) / 2
				if !less(h[parent], h[i]) {
					break
				}
				h[parent], h[i] = h[i], h[parent]
				i = parent
			}
		case less(v, h[0]):
			h[0] = v
			for i := 0; ; {
				big, l, r := i, 2*i+1, 2*i+2
				if l < n && less(h[big], h[l]) {
					big = l
				}
				if r < n && less(h[big], h[r]) {
					big = r
				}
				if big == i {
					break
				}
				h[i], h[big] = h[big], h[i]
				i = big
			}
		}
	}
	return h[0]
}

// cmpRank orders ranks as bytes.Compare does, in two integer comparisons.
func cmpRank(a, b [RankLen]byte) int {
	if c := cmp.Compare(binary.BigEndian.Uint64(a[:8]), binary.BigEndian.Uint64(b[:8])); c != 0 {
		return c
	}
	return cmp.Compare(binary.BigEndian.Uint32(a[8:]), binary.BigEndian.Uint32(b[8:]))
}
