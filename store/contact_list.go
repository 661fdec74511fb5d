package store

import (
	"bytes"
	"encoding/hex"
	"errors"
	"strconv"
	"time"

	"github.com/oklog/ulid/v2"

	"switchboard/store/internal/index"
	"switchboard/store/kv"
)

// ContactFilter narrows the contacts list, its export and its bulk actions. Zero values filter
// nothing.
type ContactFilter struct {
	// Search keeps the contacts the search finds (find-contact-action's words: every text word
	// a prefix of a word of the names, company or email, every digit word in the phone), all of
	// them, in the list's own order; "" or a query of no words keeps every contact.
	Search          string
	GroupID         string    // members of this group
	OptedOut        *bool     // true: only opted-out numbers; false: only the others
	HasConversation *bool     // true: only contacts with a conversation; false: only the others
	CreatedAfter    time.Time // created at or after this instant
	Newest          bool      // newest first; else by name (the search's display order)
}

func (f *ContactFilter) sets() bool {
	return f.Search != "" || f.GroupID != "" || f.OptedOut != nil || f.HasConversation != nil
}

// ContactPage is one page of the contacts list.
type ContactPage struct {
	Contacts []Contact
	Total    int    // every contact matching the filter
	Next     string // the cursor of the next page, "" on the last
}

// contactSel is a filter resolved against one read transaction (the engine's selection) with
// the workspace's records it reads.
type contactSel struct {
	*index.Selection
	ws   []byte
	recs *kv.Bucket
}

// rebind points sel at the buckets of another read transaction: its bitsets of nums stay
// valid (a num never changes contact; a deleted one has an empty slot), so a long export or bulk
// action resolves its filter once, not once per chunk. ok is false when the contacts are gone.
func (sel *contactSel) rebind(tx *kv.Tx) bool {
	sel.recs = index.WsBucket(tx, bContacts, sel.ws)
	return sel.recs != nil && sel.Rebind(tx, contactText(sel.recs))
}

// walk is the selection's Walk, with a cursor no walk gave refused as bad input.
func (sel *contactSel) walk(newest bool, cursor string, fn func(id [16]byte) bool) (string, error) {
	last, err := sel.Walk(newest, cursor, fn)
	return last, cursorError(err)
}

// cursorError is err, a list cursor the engine did not give refused as bad input.
func cursorError(err error) error {
	if errors.Is(err, index.ErrBadCursor) {
		return ValidationError{{"cursor", "is not a cursor of this list"}}
	}
	return err
}

// selectContacts resolves f. Each set filter is a set the engine kept from an earlier read,
// patched by the writes since, else built at one index lookup per member (group members,
// opted-out numbers, conversation addresses), never a decode of every contact; a search is the
// set of its matches, built from the postings. ok is false when the workspace has no contacts;
// an unknown group is ErrNotFound.
func (s *Store) selectContacts(tx *kv.Tx, workspaceID string, f ContactFilter) (*contactSel, bool, error) {
	ws := idKey(workspaceID)
	if f.GroupID != "" {
		if _, err := getGroup(tx, workspaceID, f.GroupID); err != nil {
			return nil, false, err
		}
	}
	recs := index.WsBucket(tx, bContacts, ws)
	if recs == nil {
		return nil, false, nil
	}
	is, ok := s.idx.Select(tx, ws, contactText(recs))
	if !ok {
		return nil, false, nil
	}
	sel := &contactSel{Selection: is, ws: ws, recs: recs}
	phones := index.ReadSplit(tx, indexLayout.Phone, ws)
	byPhone := func(s index.Set, phone []byte) {
		if v := phones.Get(phone); len(v) == 4 {
			s.Add(u32(v))
		}
	}
	if f.GroupID != "" {
		err := sel.AddSet(tx, index.SetKey{WS: string(ws), Kind: index.SetGroup, Group: f.GroupID}, false, func(s index.Set) error {
			p := append(bytes.Clone(ws), idKey(f.GroupID)...)
			return forEachPrefix(tx.Bucket(bGroupMembers), p, func(k, _ []byte) error {
				if v := sel.recs.Get(k[len(k)-16:]); v != nil {
					if n, err := recordNum(v); err == nil {
						s.Add(n)
					}
				}
				return nil
			})
		})
		if err != nil {
			sel.Release()
			return nil, false, err
		}
	}
	if f.OptedOut != nil {
		err := sel.AddSet(tx, index.SetKey{WS: string(ws), Kind: index.SetOptedOut}, !*f.OptedOut, func(s index.Set) error {
			p := append(bytes.Clone(ws), 0)
			return forEachPrefix(tx.Bucket(bOptOutPhone), p, func(k, _ []byte) error {
				if len(k) > len(p)+17 {
					byPhone(s, k[len(p):len(k)-17])
				}
				return nil
			})
		})
		if err != nil {
			sel.Release()
			return nil, false, err
		}
	}
	if f.HasConversation != nil {
		err := sel.AddSet(tx, index.SetKey{WS: string(ws), Kind: index.SetConversation}, !*f.HasConversation, func(s index.Set) error {
			// A 1:1 conversation's "a" term is its one address; a group conversation's member is
			// read from its "m" term, which an erasure removes while the group is kept.
			for _, term := range []byte{'a', 'm'} {
				p := append(append(bytes.Clone(ws), 0), term)
				err := forEachPrefix(tx.Bucket(bConvKey), p, func(k, _ []byte) error {
					if a := k[len(p):max(len(p), len(k)-17)]; len(a) > 0 && bytes.IndexByte(a, '-') < 0 {
						byPhone(s, a)
					}
					return nil
				})
				if err != nil {
					return err
				}
			}
			return nil
		})
		if err != nil {
			sel.Release()
			return nil, false, err
		}
	}
	if !f.CreatedAfter.IsZero() {
		sel.CreatedSince(ulid.Timestamp(f.CreatedAfter))
	}
	if f.Search != "" {
		// The search's matches, found afresh for this read: a write of any contact may change
		// them, so they are not kept like the other sets.
		if err := sel.AddSearch(tx, index.ParseQuery(f.Search)); err != nil {
			sel.Release()
			return nil, false, err
		}
	}
	return sel, true, nil
}

// ListContacts returns a page of at most limit contacts matching f, after cursor (the Next of
// the page before, "" for the first), with the number of every match.
func (s *Store) ListContacts(workspaceID string, f ContactFilter, cursor string, limit int) (ContactPage, error) {
	page := ContactPage{Contacts: []Contact{}}
	err := s.view(func(tx *kv.Tx) error {
		sel, ok, err := s.selectContacts(tx, workspaceID, f)
		if err != nil || !ok {
			return err
		}
		defer sel.Release()
		all := countAll(tx, workspaceID)
		if n, ok := sel.CountFew(all); ok {
			page.Total = n
		} else {
			page.Total = sel.Count(all)
		}
		if page.Total == 0 {
			return nil
		}
		tenant := tenantOf(tx)
		var ids [][16]byte
		prev, more := "", false
		collect := func(id [16]byte) bool {
			if len(ids) == limit {
				more = true
				return false
			}
			ids = append(ids, id)
			return true
		}
		if !f.Newest && sel.Sparse(page.Total, all, limit) {
			// Few matches among many contacts: walking the name order would pass most of it.
			err = cursorError(sel.WalkSparse(cursor, limit, collect))
		} else {
			_, err = sel.walk(f.Newest, cursor, collect)
		}
		if err != nil {
			return err
		}
		for _, id := range ids {
			v := sel.recs.Get(id[:])
			if v == nil {
				continue
			}
			c, num, err := decodeContact(v, ulid.ULID(id).String(), workspaceID, tenant)
			if err != nil {
				return err
			}
			page.Contacts = append(page.Contacts, c)
			if f.Newest {
				prev = strconv.FormatUint(uint64(num), 10)
			} else {
				prev = hex.EncodeToString(index.OrderKey(docOf(&c), num))
			}
		}
		if more {
			page.Next = prev
		}
		return nil
	})
	return page, err
}

// ContactIDs calls fn with the ids of every contact matching f, in chunks of at most chunk, each
// read in its own short read transaction (fn may write between them): the bulk actions on all
// matches.
func (s *Store) ContactIDs(workspaceID string, f ContactFilter, chunk int, fn func(ids []string) error) error {
	var sel *contactSel
	defer func() {
		if sel != nil {
			sel.Release()
		}
	}()
	cursor := ""
	for {
		var ids []string
		err := s.view(func(tx *kv.Tx) error {
			if sel == nil {
				var ok bool
				var err error
				if sel, ok, err = s.selectContacts(tx, workspaceID, f); err != nil || !ok {
					sel = nil
					return err
				}
			} else if !sel.rebind(tx) {
				return nil
			}
			var err error
			cursor, err = sel.walk(f.Newest, cursor, func(id [16]byte) bool {
				ids = append(ids, slotID(id))
				return len(ids) < chunk
			})
			return err
		})
		if err != nil {
			return err
		}
		if len(ids) == 0 {
			return nil
		}
		if err := fn(ids); err != nil {
			return err
		}
		if len(ids) < chunk {
			return nil
		}
	}
}
