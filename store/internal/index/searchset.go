package index

import (
	"math/bits"
	"strconv"

	"switchboard/store/kv"
)

// A search in the contacts list is a filter like the others: the search's matches become one
// more set of nums in the selection, so that a searched list is counted, paged by cursor in
// display or newest order, exported and acted on in bulk by the same walks as any list, every
// match included (Search keeps its own ranked first SearchLimit).

// AddSearch keeps in sel only the contacts q matches, with the contact search's rules (every
// text word a prefix of a word of the names, company or email; every digit word in the phone's
// digits); an empty query keeps every contact. The matches are found afresh for tx (any write
// to a contact may change them, so they are not kept). From then on the selection's count is
// the matches' count and its pages are read from them; sets added later narrow them too.
func (sel *Selection) AddSearch(tx *kv.Tx, q Query) error {
	if q.Empty() {
		return nil
	}
	s, err := sel.e.searchSet(tx, sel.ws, sel.MaxNum(), q, sel.text)
	if err != nil {
		return err
	}
	sel.sets = append([]Set{s}, sel.sets...)
	sel.neg = append([]bool{false}, sel.neg...)
	sel.kept = append([]bool{false}, sel.kept...)
	sel.matches = true
	sel.narrowMatches()
	return nil
}

// searchSet is every live contact of workspace ws that q matches, as a set of nums up to
// maxNum; text reads the candidates the postings do not decide. The query words' postings are
// intersected, the most selective first: they decide text words and digit words of up to a
// gram exactly. Once the candidates are few (Bounds.VerifyDirect) and the next word's postings
// would cost more than reading them, the candidates' records are checked against every word
// instead; digit words longer than a gram, whose grams may occur apart in a phone, are checked
// the same way, or in one pass over the phone index when reading the candidates would cost
// more (Bounds.RecordCost). No other record is read: the set costs what its postings do,
// whatever page of the list is shown.
func (e *Engine) searchSet(tx *kv.Tx, ws []byte, maxNum uint32, q Query, text TextFunc) (Set, error) {
	sr := &searcher{e: e, b: &e.Bounds, tx: tx, ws: ws, text: text, q: q,
		terms: ReadSplit(tx, e.l.Terms, ws), num: WsBucket(tx, e.l.Nums, ws)}
	if sr.num == nil || !sr.terms.Exists() || text == nil {
		return GetSet(maxNum), nil
	}
	words, undecided := sr.postingWords()
	var cands Set
	early := false // words are left that only the records decide
	for _, w := range words {
		if n := cands.Count(); cands != nil && n <= sr.b.VerifyDirect && w.postings(maxNum) >= n*sr.b.RecordPostings {
			// Few candidates left, and the next word's postings cost more than reading them:
			// every word is checked on their records instead, as the search does.
			early = true
			break
		}
		set := GetSet(maxNum)
		if err := sr.addWord(set, w); err != nil {
			PutSet(set)
			if cands != nil {
				PutSet(cands)
			}
			return nil, err
		}
		if cands == nil {
			cands = set
			continue
		}
		cands.And(set)
		PutSet(set)
	}
	if cands == nil {
		return GetSet(maxNum), nil // no word the postings decide: they find nothing
	}
	if !undecided && !early {
		return cands, nil
	}
	if n := cands.Count(); !early && n*sr.b.RecordCost > int(maxNum) {
		sr.phoneFilter(cands) // only digit words are left: one pass over the phones decides them
		return cands, nil
	}
	sr.verify = true
	slots := NewSlotReader(sr.num)
	for i, w := range cands {
		for ; w != 0; w &= w - 1 {
			bit := uint64(1) << bits.TrailingZeros64(w)
			id, _, live := slots.Slot(uint32(i*64 + bits.TrailingZeros64(w)))
			if !live {
				cands[i] &^= bit
				continue
			}
			if _, match := sr.check(id, false); !match {
				cands[i] &^= bit
			}
		}
	}
	return cands, nil
}

// narrowMatches applies the selection's other sets and its creation bound to its matches in
// place, so that they are exactly the contacts the selection keeps.
func (sel *Selection) narrowMatches() {
	s := sel.sets[0]
	for i := range s {
		w := s[i]
		for j, o := range sel.sets[1:] {
			var ow uint64
			if i < len(o) {
				ow = o[i]
			}
			if sel.neg[j+1] {
				w &^= ow
			} else {
				w &= ow
			}
		}
		if base := uint32(i) * 64; base+64 <= sel.minNum {
			w = 0
		} else if base < sel.minNum {
			w &= ^uint64(0) << (sel.minNum - base)
		}
		s[i] = w
	}
}

// walkMatchesNewest is walkNewest for a search's matches: their nums from the highest down,
// below the cursor's, read from the set rather than from every slot.
func (sel *Selection) walkMatchesNewest(cursor string, fn func(id [16]byte) bool) (string, error) {
	s := sel.sets[0]
	start := uint64(len(s))*64 - 1
	if cursor != "" {
		n, err := strconv.ParseUint(cursor, 10, 32)
		if err != nil || n == 0 {
			return "", ErrBadCursor
		}
		start = min(start, n-1)
	}
	slots := NewSlotReader(sel.nums)
	last := ""
	for i := int(start / 64); i >= 0; i-- {
		w := s[i]
		if top := start - uint64(i)*64; top < 63 {
			w &= (uint64(2) << top) - 1 // only the nums up to start
		}
		for w != 0 {
			b := 63 - bits.LeadingZeros64(w)
			w &^= 1 << b
			num := uint32(i*64 + b)
			id, _, ok := slots.Slot(num)
			if !ok {
				continue
			}
			last = strconv.FormatUint(uint64(num), 10)
			if !fn(id) {
				return last, nil
			}
		}
	}
	return last, nil
}

// matchesByRank reports whether a page of a search's total matches in display order is found
// sooner from their ranks than by walking the display order: few matches always are; for many,
// a sample of their ranks estimates how far the walk would go (the matches of a first-name
// prefix sit together, far into the order), against reading every match's rank.
func (sel *Selection) matchesByRank(total, limit int) bool {
	b := &sel.e.Bounds
	if total <= b.RankDirect {
		return true
	}
	steps, ok := (&searcher{b: b, num: sel.nums}).walkEstimate(sel.sets[0], total, sel.MaxNum(), limit)
	return ok && steps*b.WalkStepCost >= total*b.RankCost
}
