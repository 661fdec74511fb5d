package index

import "switchboard/store/kv"

import ()

// ContactMatcher tells whether a contact, by num, matches a query with the contact search's
// rules (the inbox search's test of a conversation's contact). cands holds the contacts the
// postings allow (nil: every contact is a candidate); verify makes each candidate be read and
// checked (query words the postings do not decide).
type ContactMatcher struct {
	q      Query
	cands  Set
	verify bool
	none   bool
	text   TextFunc
	slots  *SlotReader
	seen   map[uint32]bool
}

// NewContactMatcher prepares the test of q on workspace ws's contacts in tx; text reads the
// candidates the postings do not decide, and is nil when the workspace has no records (nothing
// matches then). Release it when done.
func (e *Engine) NewContactMatcher(tx *kv.Tx, ws []byte, q Query, text TextFunc) (*ContactMatcher, error) {
	cm := &ContactMatcher{q: q, seen: map[uint32]bool{}}
	terms, nums := ReadSplit(tx, e.l.Terms, ws), WsBucket(tx, e.l.Nums, ws)
	if q.Empty() || !terms.Exists() || nums == nil || text == nil {
		cm.none = true
		return cm, nil
	}
	cm.text, cm.slots = text, NewSlotReader(nums)
	// The candidate sets, as the contact search builds them: for each text word the contacts
	// with a term it prefixes, for each digit word the contacts with its grams.
	type set struct {
		prefix string
		exact  bool
	}
	var sets [][]set
	for _, w := range q.Text {
		sets = append(sets, []set{{"t" + w, false}})
	}
	for _, d := range q.Digits {
		switch {
		case len(d) == digitGram-1:
			var ts []set
			for _, t := range shortDigitTerms(d) {
				ts = append(ts, set{t, true})
			}
			sets = append(sets, ts)
			continue
		case len(d) != digitGram:
			cm.verify = true
		}
		for _, g := range digitGrams(d) {
			sets = append(sets, []set{{"d" + g, true}})
		}
	}
	if len(sets) == 0 {
		cm.verify = true // only short digit words: every contact is read and checked
		return cm, nil
	}
	maxNum := uint32(nums.Sequence())
	for _, w := range sets {
		s := GetSet(maxNum)
		for _, st := range w {
			if _, err := terms.AddPostings(s, st.prefix, st.exact); err != nil {
				PutSet(s)
				return nil, err
			}
		}
		if cm.cands == nil {
			cm.cands = s
		} else {
			cm.cands.And(s)
			PutSet(s)
		}
	}
	return cm, nil
}

// Release gives back the matcher's sets.
func (cm *ContactMatcher) Release() {
	if cm.cands != nil {
		PutSet(cm.cands)
		cm.cands = nil
	}
}

// Matches reports whether the contact of num matches.
func (cm *ContactMatcher) Matches(num uint32) bool {
	if cm.none || num == 0 || (cm.cands != nil && !cm.cands.Has(num)) {
		return false
	}
	if !cm.verify {
		return true
	}
	if ok, seen := cm.seen[num]; seen {
		return ok
	}
	ok := false
	if id, _, found := cm.slots.Slot(num); found {
		if t, found := cm.text(id); found {
			ok = DocOf(t).Matches(cm.q)
		}
	}
	cm.seen[num] = ok
	return ok
}
