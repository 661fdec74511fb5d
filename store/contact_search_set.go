package store

import (
	"math/bits"
	"strconv"

	bolt "go.etcd.io/bbolt"
)

// The contacts list takes a search like any other filter: the search's matches become one more
// set of nums beside the group, opt-out and conversation sets, so that a searched list is
// counted, paged by cursor in name or newest order, exported and acted on in bulk by the same
// code as any list, every match included (find-contact-action keeps its own ranked first 100).

// searchSet is every contact of the workspace that q matches, as a set of nums (nil for an empty
// query, or a workspace without contacts); it holds live contacts only. The query words'
// postings are intersected, the most selective first: the postings decide text words and digit
// words of up to a gram exactly. Once the candidates are few (the search's verifyDirect) and the
// next word's postings would cost more than reading them, the candidates' records are checked
// against every word instead; digit words longer than a gram, whose grams may occur apart in a
// phone, are checked the same way, or in one pass over the phone index when the candidates are
// many. No record is read otherwise: the set costs what its postings do, whatever page is shown.
func searchSet(tx *bolt.Tx, workspaceID string, q Query) (numSet, error) {
	if q.Empty() {
		return nil, nil
	}
	wsID, ok := ParseID(workspaceID)
	if !ok {
		return nil, nil
	}
	ws := wsID[:]
	sr := &searcher{tx: tx, ws: ws, workspaceID: workspaceID, tenant: tenantOf(tx), q: q,
		recs: wsBucket(tx, bContacts, ws), terms: readSplit(tx, bContactTerms, ws), num: wsBucket(tx, bContactNums, ws)}
	if sr.recs == nil || sr.num == nil || !sr.terms.exists() {
		return nil, nil
	}
	words, undecided := sr.postingWords()
	maxNum := uint32(min(sr.num.Sequence(), 1<<32-1))
	var cands numSet
	early := false // words are left that only the records decide
	for _, w := range words {
		if n := cands.count(); cands != nil && n <= verifyDirect && w.postings(maxNum) >= n*recordPostings {
			// Few candidates left, and the next word's postings cost more than reading them:
			// every word is checked on their records instead, as the search does.
			early = true
			break
		}
		set := getNumSet(maxNum)
		if err := sr.addWord(set, w); err != nil {
			putNumSet(set)
			if cands != nil {
				putNumSet(cands)
			}
			return nil, err
		}
		if cands == nil {
			cands = set
			continue
		}
		cands.and(set)
		putNumSet(set)
	}
	if cands == nil {
		return getNumSet(maxNum), nil // no word the postings decide: nothing is found by them
	}
	if !undecided && !early {
		return cands, nil
	}
	if n := cands.count(); !early && n*recordCost > int(maxNum) {
		sr.phoneFilter(cands) // only digit words are left: one pass over the phones decides them
		return cands, nil
	}
	sr.verify = true
	slots := newSlotReader(sr.num)
	for i, w := range cands {
		for ; w != 0; w &= w - 1 {
			bit := uint64(1) << bits.TrailingZeros64(w)
			num := uint32(i*64 + bits.TrailingZeros64(w))
			id, _, live := slots.slot(num)
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

// narrow applies sel's sets and minNum to s in place.
func (sel *contactSel) narrow(s numSet) {
	for i := range s {
		w := s[i]
		for j, o := range sel.sets {
			var ow uint64
			if i < len(o) {
				ow = o[i]
			}
			if sel.neg[j] {
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
func (sel *contactSel) walkMatchesNewest(cursor string, fn func(id [16]byte) bool) (string, error) {
	s := sel.sets[0]
	start := uint64(len(s))*64 - 1
	if cursor != "" {
		n, err := strconv.ParseUint(cursor, 10, 32)
		if err != nil || n == 0 {
			return "", ValidationError{{"cursor", "is not a cursor of this list"}}
		}
		start = min(start, n-1)
	}
	slots := newSlotReader(sel.nums)
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
			id, _, ok := slots.slot(num)
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

// pageSearchByRank reports whether a page of a search's matches in name order is found sooner
// from their ranks than by walking the name order: few matches always are; for many, a sample of
// their ranks estimates how far the walk would go (matches of a first-name prefix sit together,
// far into the order), against reading every match's rank.
func (sel *contactSel) pageSearchByRank(total, limit int) bool {
	if total <= rankDirect {
		return true
	}
	maxNum := uint32(min(sel.nums.Sequence(), 1<<32-1))
	steps, ok := (&searcher{num: sel.nums}).walkEstimate(sel.sets[0], total, maxNum, limit)
	return ok && steps*walkStepCost >= total*rankCost
}
