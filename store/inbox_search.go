package store

import (
	"bytes"
	"encoding/hex"
	"errors"
	"slices"
	"strings"

	"switchboard/store/internal/index"
	"switchboard/store/kv"
)

// Inbox search (/inbox?q=) covers every conversation of the workspace. A conversation matches
// when its contact matches the query the way the contact search does (folded name prefixes,
// digits of the number in any formatting), or when one of its messages holds, for every query
// word, a word it prefixes (folded). The contact postings yield the set of matching contacts
// and each activity index entry carries its 1:1 contact's num; the message words are tested
// by the plan inboxMatcher chooses. The walk over the activity index, newest first, then
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
	err := s.view(func(tx *kv.Tx) error {
		if _, ok := ParseID(workspaceID); !ok {
			return nil
		}
		if err := s.see(tx, workspaceID, &f); err != nil {
			return err
		}
		prefix := idKey(workspaceID)
		m, err := s.newInboxMatcher(tx, prefix, f.Search)
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

// activityValue is the value of c's activity index entry: the num of its 1:1 contact (four
// bytes), or nothing for a group or a number with no contact.
func activityValue(tx *kv.Tx, c *Conversation) []byte {
	if c.IsGroup() || len(c.Addresses) != 1 {
		return nil
	}
	if v := index.ReadSplit(tx, indexLayout.Phone, idKey(c.WorkspaceID)).Get([]byte(c.Addresses[0])); len(v) == 4 {
		return slices.Clone(v)
	}
	return nil
}

// migrateInboxSearch gives every activity index entry its contact's num (the message words are
// indexed before it, in batches: indexMessageWordBatches).
func migrateInboxSearch(_ *Store, tx *kv.Tx) error {
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
