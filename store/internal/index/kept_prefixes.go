package index

import (
	"bytes"
	"cmp"
	"slices"
	"strings"

	"switchboard/store/kv"
)

// Kept prefixes: with a workspace's kept ranks (kept_ranks.go), the sets of its common text
// prefixes. A query word of three letters is a prefix of many terms ("mar": maria, mark, martin,
// martinez…), and a common one is a large part of all postings: "mar" and "wil" are 108,000
// entries at a million contacts, decoded on every search for them (0.35 ms of the 0.8 a
// "mar wil" costs). The prefixes of keptPrefixLen bytes with more entries than a 128th of the
// contacts (and at least Bounds.KeptPrefixMin), the keptPrefixesMax commonest, are decoded once,
// when the table is built, into bitsets (a bit a contact: 125 KB at a million; 64 prefixes of
// the bench's million, a dozen of them e-mail domains: 8 MB), and a search ORs the set instead
// of decoding the terms.
//
// A set is exact where the table's ranks are: for the nums below the table's length whose range
// no write has marked since the table's snapshot (every write of a contact's terms writes its
// num slot, which marks the range). For the others a search still reads the postings, but only
// the chunks that can hold such nums: a chunk holds the nums from its key's first to the next
// chunk's first of the same term, so one pass over the prefix's chunk keys (a few hundred for
// "mar"), decoding none but those, adds them. A chunk decoded whole also adds nums of ranges
// the set decides; they are in the set as well (unchanged since its snapshot), so adding them
// again changes nothing.

// keptPrefixLen is the bytes of a kept prefix, after the term's 't'.
const keptPrefixLen = 3

// keptPrefixesMax is the most prefixes a table keeps, the commonest: a byte a contact for
// every eight.
const keptPrefixesMax = 64

// commonPrefixes decodes the text prefixes of keptPrefixLen bytes of x whose postings hold at
// least max(maxNum/128, floor) entries (the keptPrefixesMax commonest) into sets of nums up to
// maxNum. A chunk's entries are
// counted from its length (a delta is one or two bytes; two thirds of a common prefix's are
// one), which errs toward keeping.
func commonPrefixes(x SplitIndex, maxNum uint32, floor int) (map[string]Set, error) {
	limit := max(int(maxNum)/128, floor)
	count := map[string]int{}
	for _, b := range [2]*kv.Bucket{x.main, x.recent} {
		if b == nil {
			continue
		}
		c := b.Cursor()
		for k, v := c.Seek([]byte("t")); k != nil && k[0] == 't'; k, v = c.Next() {
			if len(k) < 1+keptPrefixLen+5 {
				continue // a shorter term is no prefix of keptPrefixLen bytes
			}
			count[string(k[:1+keptPrefixLen])] += 1 + len(v)*2/3
		}
	}
	var common []string
	for p, n := range count {
		if n >= limit {
			common = append(common, p)
		}
	}
	slices.SortFunc(common, func(a, b string) int { return cmp.Or(count[b]-count[a], strings.Compare(a, b)) })
	sets := map[string]Set{}
	for _, p := range common[:min(len(common), keptPrefixesMax)] {
		s := NewSet(maxNum)
		if _, err := x.AddPostings(s, p, false); err != nil {
			return nil, err
		}
		sets[p] = s
	}
	return sets, nil
}

// keptPrefix adds to s the nums of every term starting with prefix from its kept set in v, and
// from the postings those nums of s that the set does not decide (maxNum is the last num
// given); ok is false when v keeps no set of prefix. It returns how many postings entries it
// decoded.
func (x SplitIndex) keptPrefix(s Set, v *rankView, prefix string, maxNum uint32) (entries int, ok bool, err error) {
	if v == nil {
		return 0, false, nil
	}
	kept, ok := v.prefixes[prefix]
	if !ok {
		return 0, false, nil
	}
	words := min(len(s), len(kept))
	for i := 0; i < words; i++ {
		if !v.stale[i/wordsPerRange] {
			s[i] |= kept[i]
		}
	}
	entries, err = x.addUndecided(s, v, prefix, maxNum)
	return entries, true, err
}

// addUndecided adds to s the nums of every term starting with prefix from the postings' chunks
// that can hold nums v does not decide: its stale ranges, and those past the table (the last
// chunk of every term may hold some, when there are any). It returns how many postings entries
// it decoded.
func (x SplitIndex) addUndecided(s Set, v *rankView, prefix string, maxNum uint32) (entries int, err error) {
	covered := uint64(len(v.ranks))
	if len(v.staleAt) == 0 && uint64(maxNum) < covered {
		return 0, nil // none: no chunk to read
	}
	undecided := func(first, end uint64) bool { // [first, end)
		if end > covered && uint64(maxNum) >= covered {
			return true
		}
		r := uint32(first >> rankRangeShift)
		i, _ := slices.BinarySearch(v.staleAt, r)
		return i < len(v.staleAt) && uint64(v.staleAt[i]) <= (end-1)>>rankRangeShift
	}
	p := []byte(prefix)
	for _, b := range [2]*kv.Bucket{x.main, x.recent} {
		if b == nil {
			continue
		}
		c := b.Cursor()
		k, val := c.Seek(p)
		for k != nil && bytes.HasPrefix(k, p) {
			if len(k) < 5 || k[len(k)-5] != 0 {
				return entries, ErrBadChunk
			}
			nk, nv := c.Next()
			// The chunk's nums run to the next chunk of its term, or without end.
			end := uint64(1) << 32
			if nk != nil && len(nk) == len(k) && bytes.Equal(nk[:len(nk)-4], k[:len(k)-4]) {
				end = uint64(chunkFirst(nk))
			}
			if undecided(uint64(chunkFirst(k)), end) {
				n, err := addChunk(s, chunkFirst(k), val)
				if entries += n; err != nil {
					return entries, err
				}
			}
			k, val = nk, nv
		}
	}
	return entries, nil
}
