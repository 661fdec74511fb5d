package store

import (
	"bytes"
	"encoding/hex"
	"errors"
	"slices"
	"strings"
	"switchboard/internal/textfold"

	bolt "go.etcd.io/bbolt"
)

// Inbox search (/inbox?q=) covers every conversation of the workspace. A conversation matches
// when its contact matches the query the way the contact search does (folded name prefixes,
// digits of the number in any formatting), or when one of its messages holds, for every query
// word, a word it prefixes (folded). The contact postings yield the set of matching contacts
// and each activity index entry carries its 1:1 contact's num; the message words are tested
// by the plan inbox_plan.go chooses. The walk over the activity index, newest first, then
// reads only the conversations that match.

// inboxPage walks the activity index newest first from f.Before, keeping the conversations
// that match the search (every one without a search) and f's filters. It reads at most
// inboxScan conversation records: a page that runs out of that budget returns what it found
// and a cursor to go on, so a page is never a false "nothing matches".
func (s *Store) inboxPage(workspaceID string, f InboxFilter) ([]InboxItem, string, error) {
	out, next, _, err := s.inboxPageWork(workspaceID, f)
	return out, next, err
}

// inboxPageWork is inboxPage also returning the work its search did.
func (s *Store) inboxPageWork(workspaceID string, f InboxFilter) ([]InboxItem, string, inboxWork, error) {
	var work inboxWork
	if f.Limit <= 0 {
		f.Limit = 50
	}
	f.Limit = min(f.Limit, 200)
	out := []InboxItem{}
	next := ""
	err := s.db.View(func(tx *bolt.Tx) error {
		if _, ok := ParseID(workspaceID); !ok {
			return nil
		}
		if err := s.see(tx, workspaceID, &f); err != nil {
			return err
		}
		prefix := idKey(workspaceID)
		m, err := newInboxMatcher(tx, workspaceID, prefix, f.Search)
		if err != nil {
			return err
		}
		defer func() { work = m.work; m.release() }()
		convs := tx.Bucket(bConversations)
		cur := tx.Bucket(bConvActivity).Cursor()
		start := append(slices.Clone(prefix), bytes.Repeat([]byte{0xff}, 25)...)
		if b, ok := decodeCursor(f.Before); ok {
			start = append(slices.Clone(prefix), b...) // the row itself is skipped by Prev below
		}
		k, v := cur.Seek(start)
		if k == nil {
			k, v = cur.Last()
		} else {
			k, v = cur.Prev()
		}
		read := 0
		for ; k != nil && bytes.HasPrefix(k, prefix); k, v = cur.Prev() {
			if len(k) != 40 {
				continue
			}
			if ok, err := m.match(k[24:40], v); err != nil {
				return err
			} else if !ok {
				continue
			}
			if read == inboxScan {
				// Out of budget: the next page goes on from here.
				next = hex.EncodeToString(k[16:])
				return nil
			}
			read++
			var c Conversation
			ok, err := getJSON(convs, wsKey(workspaceID, idFromKey(k[24:])), &c)
			if err != nil {
				return err
			}
			if !ok || !f.keeps(&c) {
				continue
			}
			if len(out) == f.Limit {
				// One more matches: the next page starts after the last row.
				next = out[len(out)-1].Cursor
				return nil
			}
			item := InboxItem{Conversation: c, Cursor: hex.EncodeToString(k[16:])}
			if !c.IsGroup() && len(c.Addresses) == 1 {
				if id := contactIDByPhone(tx, workspaceID, c.Addresses[0]); id != "" {
					if ct, err := getContact(tx, workspaceID, id); err == nil {
						item.ContactName = strings.TrimSpace(ct.FirstName + " " + ct.LastName)
					} else if !errors.Is(err, ErrNotFound) {
						return err
					}
				}
			}
			item.Last = lastMessageText(tx, workspaceID, c.ID)
			out = append(out, item)
		}
		return nil
	})
	return out, next, work, err
}

// contactMatcher tells whether a contact, by num, matches a query with the contact search's
// rules. cands holds the contacts the postings allow (nil: every contact is a candidate);
// verify makes each candidate be read and checked (query words the postings do not decide).
type contactMatcher struct {
	q      Query
	cands  numSet
	verify bool
	none   bool
	recs   *bolt.Bucket
	slots  *slotReader
	seen   map[uint32]bool
}

func newContactMatcher(tx *bolt.Tx, workspaceID string, ws []byte, q Query) (*contactMatcher, error) {
	cm := &contactMatcher{q: q, seen: map[uint32]bool{}}
	terms, nums, recs := readSplit(tx, bContactTerms, ws), wsBucket(tx, bContactNums, ws), wsBucket(tx, bContacts, ws)
	if q.Empty() || !terms.exists() || nums == nil || recs == nil {
		cm.none = true
		return cm, nil
	}
	cm.recs, cm.slots = recs, newSlotReader(nums)
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
		s := getNumSet(maxNum)
		for _, st := range w {
			if _, err := terms.addPostingsN(s, st.prefix, st.exact); err != nil {
				putNumSet(s)
				return nil, err
			}
		}
		if cm.cands == nil {
			cm.cands = s
		} else {
			cm.cands.and(s)
			putNumSet(s)
		}
	}
	return cm, nil
}

func (cm *contactMatcher) release() {
	if cm.cands != nil {
		putNumSet(cm.cands)
		cm.cands = nil
	}
}

func (cm *contactMatcher) matches(num uint32) bool {
	if cm.none || num == 0 || (cm.cands != nil && !cm.cands.has(num)) {
		return false
	}
	if !cm.verify {
		return true
	}
	if ok, seen := cm.seen[num]; seen {
		return ok
	}
	ok := false
	if id, _, found := cm.slots.slot(num); found {
		if v := cm.recs.Get(id[:]); v != nil {
			if first, last, company, email, phone, err := recordText(v); err == nil {
				d := searchDoc{first: textfold.Fold(first), last: textfold.Fold(last), company: textfold.Fold(company), email: textfold.Fold(email), digits: Digits(phone)}
				ok = d.matches(cm.q)
			}
		}
	}
	cm.seen[num] = ok
	return ok
}

// activityValue is the value of c's activity index entry: the num of its 1:1 contact (four
// bytes), or nothing for a group or a number with no contact.
func activityValue(tx *bolt.Tx, c *Conversation) []byte {
	if c.IsGroup() || len(c.Addresses) != 1 {
		return nil
	}
	if v := readSplit(tx, bContactPhone, idKey(c.WorkspaceID)).Get([]byte(c.Addresses[0])); len(v) == 4 {
		return slices.Clone(v)
	}
	return nil
}

// migrateInboxSearch gives every activity index entry its contact's num (the message words are
// indexed before it, in batches: indexMessageWordBatches).
func migrateInboxSearch(_ *Store, tx *bolt.Tx) error {
	var convs []Conversation
	if err := tx.Bucket(bConversations).ForEach(func(_, v []byte) error {
		var c Conversation
		if err := jsonUnmarshal(v, &c); err != nil {
			return err
		}
		convs = append(convs, c)
		return nil
	}); err != nil {
		return err
	}
	for i := range convs {
		if err := putActivity(tx, &convs[i]); err != nil {
			return err
		}
	}
	return nil
}
