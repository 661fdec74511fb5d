package index

import (
	"bytes"
	"math"
	"math/bits"
	"slices"
)

// Kept order: with a workspace's kept ranks and common prefixes (kept_ranks.go,
// kept_prefixes.go), its contacts in display order (full sort key, then id: a search's order),
// and each kept prefix's set again, by place in that order instead of by num. A query whose
// every word is a kept prefix ("mar wil", "chr") then needs no candidate ranked: the first
// places set in every word's set are its first matches, in order. At a million contacts "mar wil"
// ranked 1,585 candidates for its 100 (0.5 ms of a search in process); ANDing the two sets'
// words until 100 places are found reads 1,000 words of each.
//
// The places are exact where the table's ranks are: a num whose range no write has marked since
// the table's snapshot has the same contact, sort key and terms. A place whose num's range is
// stale is passed over; the nums the table does not decide (stale ranges, contacts made after
// it) are found from the postings' chunks that can hold them, as a kept prefix's are, and are
// ranked with the first places found (every other place comes after those).

// noPlace marks a num with no contact in the table's order.
const noPlace = math.MaxUint32

// displayOrder lists the contacts of an order index in display order: by full sort key, then
// by id (ids holds them by num; a key whose num has no id in it, none in a consistent snapshot,
// is left out). The index orders equal keys by num.
func displayOrder(order SplitIndex, ids [][16]byte) []uint32 {
	out := make([]uint32, 0, len(ids))
	byID := func(a, b uint32) int { return bytes.Compare(ids[a][:], ids[b][:]) }
	var prev []byte
	run := 0 // where the run of keys equal to prev starts in out
	c := order.Cursor()
	for k, _ := c.First(); k != nil; k, _ = c.Next() {
		if len(k) <= 4 {
			continue
		}
		sk, num := k[:len(k)-4], chunkFirst(k)
		if int(num) >= len(ids) || ids[num] == ([16]byte{}) {
			continue
		}
		if !bytes.Equal(sk, prev) {
			slices.SortFunc(out[run:], byID)
			run, prev = len(out), append(prev[:0], sk...)
		}
		out = append(out, num)
	}
	slices.SortFunc(out[run:], byID)
	return out
}

// placesOf is the place of each of nums nums in order (noPlace: none).
func placesOf(order []uint32, nums int) []uint32 {
	place := make([]uint32, nums)
	for i := range place {
		place[i] = noPlace
	}
	for p, num := range order {
		place[num] = uint32(p)
	}
	return place
}

// placeSets are the sets of nums given re-made as sets of places in order (place: placesOf's).
func placeSets(sets map[string]Set, order, place []uint32) map[string]Set {
	nums := len(place)
	placed := make(map[string]Set, len(sets))
	for prefix, s := range sets {
		ps := NewSet(uint32(len(order)))
		for i, w := range s {
			for ; w != 0; w &= w - 1 {
				if num := i*64 + bits.TrailingZeros64(w); num < nums && place[num] != noPlace {
					ps.Add(place[num])
				}
			}
		}
		placed[prefix] = ps
	}
	return placed
}

// inKeptOrder answers the search from the kept order when every query word is a text word whose
// prefix set is kept (ok false otherwise): the first limit places in every word's set, less
// those whose range is stale, then, when the table leaves nums undecided, those ranked with the
// undecided candidates. It is called with nothing to skip and every word decided by postings.
func (s *searcher) inKeptOrder(maxNum uint32, limit int) (ids [][16]byte, ok bool, err error) {
	v := s.kept
	if v == nil || v.order == nil || len(s.q.Text) == 0 || len(s.q.Digits) > 0 {
		return nil, false, nil
	}
	sets := make([]Set, 0, len(s.q.Text))
	for _, w := range s.q.Text {
		ps, ok := v.placed["t"+w]
		if !ok {
			return nil, false, nil
		}
		sets = append(sets, ps)
	}
	if v.uncovered > int(maxNum)/8 && s.e != nil {
		// Mostly stale: have the table rebuilt for the searches after this one.
		s.e.ranks.get(s.tx, s.ws, maxNum, keepRanksFrom, s.b.KeptPrefixMin)
	}
	first := make([]hit, 0, limit)
scan:
	for i, w := range sets[0] {
		for _, o := range sets[1:] {
			w &= o[i]
		}
		for ; w != 0; w &= w - 1 {
			num := v.order[i*64+bits.TrailingZeros64(w)]
			if !v.decides(num) {
				continue
			}
			if first = append(first, hit{num: num}); len(first) == limit {
				break scan
			}
		}
	}
	if v.uncovered > 0 {
		und, err := s.undecidedCands(maxNum)
		if err != nil {
			return nil, true, err
		}
		defer PutSet(und)
		if n := und.Count(); n > 0 {
			for _, h := range first {
				und.Add(h.num)
			}
			return s.byRank(und, n+len(first), nil, limit), true, nil
		}
	}
	readIDs(s, first, hitNum, hitID)
	out := make([][16]byte, 0, len(first))
	for _, h := range first {
		if h.id != ([16]byte{}) {
			out = append(out, h.id)
		}
	}
	return out, true, nil
}

// undecidedCands is the set of the nums the kept view does not decide that have a term starting
// with each query word (all kept prefixes, at least one), from the chunks that can hold them.
func (s *searcher) undecidedCands(maxNum uint32) (Set, error) {
	v := s.kept
	var cands Set
	for _, w := range s.q.Text {
		ws := GetSet(maxNum)
		n, err := s.terms.addUndecided(ws, v, "t"+w, maxNum)
		s.work.Postings += n
		if err != nil {
			PutSet(ws)
			if cands != nil {
				PutSet(cands)
			}
			return nil, err
		}
		if cands == nil {
			cands = ws
		} else {
			cands.And(ws)
			PutSet(ws)
		}
	}
	// A decoded chunk also holds nums the view decides: those are in the places already.
	for i := range cands {
		if base := i * 64; base+64 <= len(v.ranks) && !v.stale[i/wordsPerRange] {
			cands[i] = 0
		} else if base < len(v.ranks) && !v.stale[i/wordsPerRange] {
			cands[i] &= ^uint64(0) << (len(v.ranks) - base) // keep the nums past the table
		}
	}
	return cands, nil
}

// byPlace returns the first limit candidates in display order from their places in the kept
// order, when the view decides every candidate (ok false otherwise): their places are set in a
// set of places, whose first limit members are the answer, in order. It serves candidates that
// match without being read (s.verify false) and with nothing to skip; ranking them would read
// each one's rank and, for equal ranks, its full key from the display-order index.
func (s *searcher) byPlace(cands Set, limit int) ([][16]byte, bool) {
	v := s.kept
	if v == nil || v.place == nil {
		return nil, false
	}
	places := GetSet(uint32(len(v.order)))
	defer PutSet(places)
	for i, w := range cands {
		for ; w != 0; w &= w - 1 {
			num := uint32(i*64 + bits.TrailingZeros64(w))
			if !v.decides(num) {
				return nil, false
			}
			if p := v.place[num]; p != noPlace {
				places.Add(p)
			}
		}
	}
	first := make([]hit, 0, limit)
scan:
	for i, w := range places {
		for ; w != 0; w &= w - 1 {
			if first = append(first, hit{num: v.order[i*64+bits.TrailingZeros64(w)]}); len(first) == limit {
				break scan
			}
		}
	}
	readIDs(s, first, hitNum, hitID)
	out := make([][16]byte, 0, len(first))
	for _, h := range first {
		out = append(out, h.id)
	}
	return out, true
}
