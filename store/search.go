package store

import (
	"github.com/oklog/ulid/v2"
	"slices"

	"switchboard/store/internal/index"
	"switchboard/store/kv"
)

// SearchLimit is the most contacts a search returns.
const SearchLimit = index.SearchLimit

// SearchContacts finds contacts by searchText: every text word must prefix a word of the
// contact's folded first name, last name, company or email, every digit word must occur in its
// phone's digits. Order: exact phone or email equality first, then folded first name, last
// name, id; unnamed contacts last; at most SearchLimit.
func (s *Store) SearchContacts(workspaceID, searchText string) ([]Contact, error) {
	out, _, err := s.searchContacts(workspaceID, searchText)
	return out, err
}

func (s *Store) searchContacts(workspaceID, searchText string) ([]Contact, index.Work, error) {
	var work index.Work
	out := []Contact{}
	wsID, ok := ParseID(workspaceID)
	if !ok {
		return out, work, nil
	}
	q := index.ParseQuery(searchText)
	err := s.view(func(tx *kv.Tx) error {
		ws := wsID[:]
		recs := index.WsBucket(tx, bContacts, ws)
		if recs == nil {
			return nil
		}
		tenant := tenantOf(tx)
		// The records the search read to order its candidates are nearly always the ones it
		// returns: they are kept (the transaction's own bytes) and decoded from there, not
		// looked up again.
		read := make(map[[16]byte][]byte, index.SearchLimit)
		text := func(id [16]byte) (index.Text, bool) {
			v := recs.Get(id[:])
			if v == nil {
				return index.Text{}, false
			}
			if len(read) < 4*index.SearchLimit {
				read[id] = v
			}
			return recordTextOf(v)
		}
		ids, w, err := s.idx.Search(tx, ws, q, text)
		work = w
		if err != nil {
			return err
		}
		out = slices.Grow(out, len(ids))
		for _, id := range ids {
			v, ok := read[id]
			if !ok {
				v = recs.Get(id[:])
			}
			if v == nil {
				continue
			}
			if c, _, err := decodeContact(v, ulid.ULID(id).String(), workspaceID, tenant); err == nil {
				out = append(out, c)
			}
		}
		return nil
	})
	return out, work, err
}
