package store

import (
	"bytes"
	"encoding/hex"
	"strconv"
	"time"

	"github.com/oklog/ulid/v2"
	bolt "go.etcd.io/bbolt"
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

// contactSel is a filter resolved against one read transaction: the set filters as bitsets of
// nums (each with whether it is negated), the creation filter as the first num it keeps.
type contactSel struct {
	sets   []numSet
	neg    []bool
	kept   []bool // the set is kept for later reads (shared: never recycled)
	minNum uint32
	ws     []byte
	recs   *bolt.Bucket
	nums   *bolt.Bucket
	order  splitIndex
	// matches, for a search, is sets[0]: exactly the contacts sel keeps (the search's matches,
	// all live, with the other sets and minNum applied), so it counts and pages them itself.
	matches bool
}

func (sel *contactSel) keeps(num uint32) bool {
	if num < sel.minNum {
		return false
	}
	for i, s := range sel.sets {
		if s.has(num) == sel.neg[i] {
			return false
		}
	}
	return true
}

// rebind points sel at the buckets of another read transaction: its bitsets of nums stay
// valid (a num never changes contact; a deleted one has an empty slot), so a long export or bulk
// action resolves its filter once, not once per chunk. ok is false when the contacts are gone.
func (sel *contactSel) rebind(tx *bolt.Tx) bool {
	sel.recs, sel.nums, sel.order = wsBucket(tx, bContacts, sel.ws), wsBucket(tx, bContactNums, sel.ws), readSplit(tx, bContactOrder, sel.ws)
	return sel.recs != nil && sel.nums != nil && sel.order.exists()
}

func (sel *contactSel) release() {
	for i, s := range sel.sets {
		if !sel.kept[i] {
			putNumSet(s)
		}
	}
}

// selectContacts resolves f. Each set filter is a set kept from an earlier read, patched by
// the writes since, else built at one index lookup per member (group members, opted-out
// numbers, conversation addresses), never a decode of every contact; a search is the set of its
// matches (searchSet). ok is false when the workspace has no contacts; an unknown group is
// ErrNotFound.
func selectContacts(tx *bolt.Tx, workspaceID string, f ContactFilter) (*contactSel, bool, error) {
	ws := idKey(workspaceID)
	sel := &contactSel{ws: ws, recs: wsBucket(tx, bContacts, ws), nums: wsBucket(tx, bContactNums, ws),
		order: readSplit(tx, bContactOrder, ws)}
	if f.GroupID != "" {
		if _, err := getGroup(tx, workspaceID, f.GroupID); err != nil {
			return nil, false, err
		}
	}
	if sel.recs == nil || sel.nums == nil || !sel.order.exists() {
		return sel, false, nil
	}
	maxNum := uint32(min(sel.nums.Sequence(), 1<<32-1))
	phones := readSplit(tx, bContactPhone, ws)
	byPhone := func(s numSet, phone []byte) {
		if v := phones.Get(phone); len(v) == 4 {
			s.add(u32(v))
		}
	}
	cache := cacheOf(tx.DB())
	// add puts the set of k in sel: the kept one when it is exact for tx, else one built by
	// fill, then kept for later reads.
	add := func(k setKey, neg bool, fill func(s numSet) error) error {
		s, kept := cache.get(tx, k)
		if !kept {
			s = getNumSet(maxNum)
			if err := fill(s); err != nil {
				putNumSet(s)
				return err
			}
			kept = cache.put(tx, k, s)
		}
		sel.sets, sel.neg, sel.kept = append(sel.sets, s), append(sel.neg, neg), append(sel.kept, kept)
		return nil
	}
	if f.GroupID != "" {
		err := add(setKey{string(ws), setGroup, f.GroupID}, false, func(s numSet) error {
			p := append(bytes.Clone(ws), idKey(f.GroupID)...)
			return forEachPrefix(tx.Bucket(bGroupMembers), p, func(k, _ []byte) error {
				if v := sel.recs.Get(k[len(k)-16:]); v != nil {
					if n, err := recordNum(v); err == nil {
						s.add(n)
					}
				}
				return nil
			})
		})
		if err != nil {
			sel.release()
			return nil, false, err
		}
	}
	if f.OptedOut != nil {
		err := add(setKey{string(ws), setOptedOut, ""}, !*f.OptedOut, func(s numSet) error {
			p := append(bytes.Clone(ws), 0)
			return forEachPrefix(tx.Bucket(bOptOutPhone), p, func(k, _ []byte) error {
				if len(k) > len(p)+17 {
					byPhone(s, k[len(p):len(k)-17])
				}
				return nil
			})
		})
		if err != nil {
			sel.release()
			return nil, false, err
		}
	}
	if f.HasConversation != nil {
		err := add(setKey{string(ws), setConversation, ""}, !*f.HasConversation, func(s numSet) error {
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
			sel.release()
			return nil, false, err
		}
	}
	if !f.CreatedAfter.IsZero() {
		sel.minNum = firstNumSince(sel.nums, ulid.Timestamp(f.CreatedAfter))
	}
	if f.Search != "" {
		// The search's matches, found afresh for this read (a write of any contact may change
		// them, so they are not kept). They hold live contacts only, so the other filters
		// applied to them bit by bit leave exactly the contacts kept: first among the sets, the
		// one a count or a page reads.
		s, err := searchSet(tx, workspaceID, ParseQuery(f.Search))
		if err != nil {
			sel.release()
			return nil, false, err
		}
		if s != nil {
			sel.narrow(s)
			sel.sets, sel.neg, sel.kept = append([]numSet{s}, sel.sets...), append([]bool{false}, sel.neg...), append([]bool{false}, sel.kept...)
			sel.matches = true
		}
	}
	return sel, true, nil
}

// firstNumSince is the first num whose contact was created at or after ms (Unix milliseconds),
// or past the last num. Nums are given in creation order and ids carry their creation time, so
// the nums at or after it are exactly the contacts created since.
func firstNumSince(nums *bolt.Bucket, ms uint64) uint32 {
	c := nums.Cursor()
	var last uint32
	for k, v := c.First(); k != nil; k, v = c.Next() {
		if len(k) != 4 {
			continue
		}
		base := u32(k) * numBlock
		for i := 0; i+slotLen <= len(v); i += slotLen {
			id := ulid.ULID(v[i : i+16])
			if id == (ulid.ULID{}) {
				continue
			}
			if id.Time() >= ms {
				return base + uint32(i/slotLen)
			}
		}
		last = base + uint32(len(v)/slotLen)
	}
	return last + 1
}

// count counts the contacts sel keeps: from the sequence alone when it keeps every contact,
// else one bitset test per num slot (no record is read).
func (sel *contactSel) count(tx *bolt.Tx, workspaceID string) int {
	if len(sel.sets) == 0 && sel.minNum == 0 {
		return countAll(tx, workspaceID)
	}
	n := 0
	c := sel.nums.Cursor()
	for k, v := c.Seek(numKey(sel.minNum / numBlock)); k != nil; k, v = c.Next() {
		if len(k) != 4 {
			continue
		}
		base := u32(k) * numBlock
		for i := 0; i+slotLen <= len(v); i += slotLen {
			if ulid.ULID(v[i:i+16]) != (ulid.ULID{}) && sel.keeps(base+uint32(i/slotLen)) {
				n++
			}
		}
	}
	return n
}

// walk calls fn with the id of each contact sel keeps, in the filter's order, starting after
// cursor, until fn returns false. It returns the cursor of the last contact given to fn.
func (sel *contactSel) walk(newest bool, cursor string, fn func(id [16]byte) bool) (string, error) {
	if newest {
		return sel.walkNewest(cursor, fn)
	}
	var from []byte
	if cursor != "" {
		b, err := hex.DecodeString(cursor)
		if err != nil {
			return "", ValidationError{{"cursor", "is not a cursor of this list"}}
		}
		from = b
	}
	slots := newSlotReader(sel.nums)
	c := sel.order.Cursor()
	k, _ := c.First()
	if from != nil {
		if k, _ = c.Seek(from); k != nil && bytes.Equal(k, from) {
			k, _ = c.Next()
		}
	}
	last := ""
	for ; k != nil; k, _ = c.Next() {
		if len(k) < 4 {
			continue
		}
		num := u32(k[len(k)-4:])
		if !sel.keeps(num) {
			continue
		}
		id, _, ok := slots.slot(num)
		if !ok {
			continue
		}
		last = hex.EncodeToString(k)
		if !fn(id) {
			break
		}
	}
	return last, nil
}

func (sel *contactSel) walkNewest(cursor string, fn func(id [16]byte) bool) (string, error) {
	start := uint64(sel.nums.Sequence())
	if cursor != "" {
		n, err := strconv.ParseUint(cursor, 10, 32)
		if err != nil || n == 0 {
			return "", ValidationError{{"cursor", "is not a cursor of this list"}}
		}
		start = n - 1
	}
	last := ""
	c := sel.nums.Cursor()
	for blk := int64(start / numBlock); blk >= 0; blk-- {
		k, v := c.Seek(numKey(uint32(blk)))
		if k == nil || u32(k) != uint32(blk) {
			continue
		}
		base := uint64(blk) * numBlock
		for i := numBlock - 1; i >= 0; i-- {
			num := base + uint64(i)
			if num > start || (i+1)*slotLen > len(v) || num < uint64(sel.minNum) {
				continue
			}
			var id [16]byte
			copy(id[:], v[i*slotLen:i*slotLen+16])
			if id == ([16]byte{}) || !sel.keeps(uint32(num)) {
				continue
			}
			last = strconv.FormatUint(num, 10)
			if !fn(id) {
				return last, nil
			}
		}
		if base < uint64(sel.minNum) {
			break
		}
	}
	return last, nil
}

// ListContacts returns a page of at most limit contacts matching f, after cursor (the Next of
// the page before, "" for the first), with the number of every match.
func (s *Store) ListContacts(workspaceID string, f ContactFilter, cursor string, limit int) (ContactPage, error) {
	page := ContactPage{Contacts: []Contact{}}
	err := s.db.View(func(tx *bolt.Tx) error {
		sel, ok, err := selectContacts(tx, workspaceID, f)
		if err != nil || !ok {
			return err
		}
		defer sel.release()
		all := countAll(tx, workspaceID)
		if sel.matches {
			page.Total = sel.sets[0].count()
		} else if n, ok := sel.countFew(all); ok {
			page.Total = n
		} else {
			page.Total = sel.count(tx, workspaceID)
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
		switch {
		case sel.matches && f.Newest:
			_, err = sel.walkMatchesNewest(cursor, collect)
		case !f.Newest && (sel.sparse(page.Total, all, limit) || sel.matches && sel.pageSearchByRank(page.Total, limit)):
			// Few matches among many contacts, or matches far into the order: walking the name
			// order would pass most of it.
			err = sel.walkSparse(cursor, limit, collect)
		default:
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
				prev = hex.EncodeToString(orderKey(docOf(&c), num))
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
			sel.release()
		}
	}()
	cursor := ""
	for {
		var ids []string
		err := s.db.View(func(tx *bolt.Tx) error {
			if sel == nil {
				var ok bool
				var err error
				if sel, ok, err = selectContacts(tx, workspaceID, f); err != nil || !ok {
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
