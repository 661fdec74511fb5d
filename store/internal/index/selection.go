package index

import (
	"bytes"
	"encoding/hex"
	"errors"
	"strconv"

	"github.com/oklog/ulid/v2"
	"switchboard/store/kv"
)

// ErrBadCursor is a list cursor that no page of this list gave.
var ErrBadCursor = errors.New("index: not a cursor of this list")

// Selection is a contacts-list filter resolved against one read transaction: the set filters as
// bitsets of nums (each with whether it is negated), the search as the set of its matches, the
// creation filter as the first num it keeps.
type Selection struct {
	e      *Engine
	sets   []Set
	neg    []bool
	kept   []bool // the set is kept for later reads (shared: never recycled)
	minNum uint32
	ws     []byte
	text   TextFunc
	nums   *kv.Bucket
	order  SplitIndex
	// matches, after AddSearch, says sets[0] is the search's matches narrowed by every other
	// set and the creation bound: exactly the contacts sel keeps, so counts and pages read it.
	matches bool
}

// keeps reports whether the contact of num passes the filter.
func (sel *Selection) keeps(num uint32) bool {
	if num < sel.minNum {
		return false
	}
	for i, s := range sel.sets {
		if s.Has(num) == sel.neg[i] {
			return false
		}
	}
	return true
}

// Rebind points sel at the buckets of another read transaction, whose records text reads: its
// bitsets of nums stay valid (a num never changes contact; a deleted one has an empty slot), so
// a long export or bulk action resolves its filter once, not once per chunk. ok is false when
// the contacts are gone.
func (sel *Selection) Rebind(tx *kv.Tx, text TextFunc) bool {
	sel.text, sel.nums, sel.order = text, WsBucket(tx, sel.e.l.Nums, sel.ws), ReadSplit(tx, sel.e.l.Order, sel.ws)
	return sel.nums != nil && sel.order.Exists()
}

// Release gives back the sets that are not kept.
func (sel *Selection) Release() {
	for i, s := range sel.sets {
		if !sel.kept[i] {
			PutSet(s)
		}
	}
}

// Select starts resolving a filter of workspace ws's contacts against the read transaction tx;
// text reads a contact's names (a sparse page orders by them). ok is false when the workspace
// has no contacts. The caller adds the filter's sets (AddSet), its creation bound
// (CreatedSince) and its search (AddSearch), and releases the selection when done.
func (e *Engine) Select(tx *kv.Tx, ws []byte, text TextFunc) (*Selection, bool) {
	sel := &Selection{e: e, ws: ws, text: text}
	ok := sel.Rebind(tx, text)
	return sel, ok
}

// MaxNum is the highest num given in the workspace: a set of its contacts holds nums up to it.
func (sel *Selection) MaxNum() uint32 { return uint32(min(sel.nums.Sequence(), 1<<32-1)) }

// AddSet puts the set of k in sel, negated when neg: the kept one when it is exact for tx, else
// one built by fill (from the store's indexes, at one lookup per member), then kept for later
// reads.
func (sel *Selection) AddSet(tx *kv.Tx, k SetKey, neg bool, fill func(s Set) error) error {
	cache := sel.e.sets
	s, kept := cache.get(tx, k)
	if !kept {
		s = GetSet(sel.MaxNum())
		if err := fill(s); err != nil {
			PutSet(s)
			return err
		}
		kept = cache.put(tx, k, s)
	}
	sel.sets, sel.neg, sel.kept = append(sel.sets, s), append(sel.neg, neg), append(sel.kept, kept)
	if sel.matches {
		sel.narrowMatches()
	}
	return nil
}

// CreatedSince keeps only the contacts created at or after ms (Unix milliseconds).
func (sel *Selection) CreatedSince(ms uint64) {
	sel.minNum = firstNumSince(sel.nums, ms)
	if sel.matches {
		sel.narrowMatches()
	}
}

// firstNumSince is the first num whose contact was created at or after ms (Unix milliseconds),
// or past the last num. Nums are given in creation order and ids carry their creation time, so
// the nums at or after it are exactly the contacts created since.
func firstNumSince(nums *kv.Bucket, ms uint64) uint32 {
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

// Count counts the contacts sel keeps: all, the workspace's contacts, when it keeps every
// contact, the matches' count after AddSearch, else one bitset test per num slot (no record is
// read).
func (sel *Selection) Count(all int) int {
	if len(sel.sets) == 0 && sel.minNum == 0 {
		return all
	}
	if sel.matches {
		return sel.sets[0].Count()
	}
	n := 0
	c := sel.nums.Cursor()
	for k, v := c.Seek(NumKey(sel.minNum / numBlock)); k != nil; k, v = c.Next() {
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

// Walk calls fn with the id of each contact sel keeps, newest first or in display order,
// starting after cursor, until fn returns false. It returns the cursor of the last contact given
// to fn; a cursor no walk gave is ErrBadCursor.
func (sel *Selection) Walk(newest bool, cursor string, fn func(id [16]byte) bool) (string, error) {
	if newest && sel.matches {
		return sel.walkMatchesNewest(cursor, fn)
	}
	if newest {
		return sel.walkNewest(cursor, fn)
	}
	var from []byte
	if cursor != "" {
		b, err := hex.DecodeString(cursor)
		if err != nil {
			return "", ErrBadCursor
		}
		from = b
	}
	slots := NewSlotReader(sel.nums)
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
		id, _, ok := slots.Slot(num)
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

// walkNewest is Walk newest first: down the nums from cursor's.
func (sel *Selection) walkNewest(cursor string, fn func(id [16]byte) bool) (string, error) {
	start := uint64(sel.nums.Sequence())
	if cursor != "" {
		n, err := strconv.ParseUint(cursor, 10, 32)
		if err != nil || n == 0 {
			return "", ErrBadCursor
		}
		start = n - 1
	}
	last := ""
	c := sel.nums.Cursor()
	for blk := int64(start / numBlock); blk >= 0; blk-- {
		k, v := c.Seek(NumKey(uint32(blk)))
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
