package index

import (
	"cmp"
	"encoding/binary"
	"math/bits"
	"sync"
)

// byRank returns the first limit candidates in display order that are not skipped and match q.
// Ranks order the candidates without reading them: only those ranked among the first target
// (ties included) are read and sorted by their full sort key, then, if some of them failed
// verification, the next ones, twice as many each time. Every candidate not read ranks after
// every one read, so the first limit read are the first limit of all.
func (s *searcher) byRank(cands Set, n int, skip func([16]byte) bool, limit int) [][16]byte {
	all := getRanked(n)
	defer putRanked(all)
	rs := all
	sl := NewSlotReader(s.num)
	for i, w := range cands {
		for w != 0 {
			b := uint32(i*64) + uint32(bits.TrailingZeros64(w))
			w &= w - 1
			if id, rank, ok := sl.Slot(b); ok && !skip(id) {
				rs = append(rs, ranked{rank, id})
			}
		}
	}
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
		var batch []hit
		for _, r := range take {
			if sk, ok := s.check(r.id, true); ok {
				batch = append(batch, hit{id: r.id, sort: sk})
			}
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

// ranked is a candidate with its rank.
type ranked struct {
	rank [RankLen]byte
	id   [16]byte
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
