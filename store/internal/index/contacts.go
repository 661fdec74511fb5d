package index

import (
	"bytes"
	"encoding/binary"
	"errors"
	"hash/fnv"
	"slices"
	"strings"

	"switchboard/store/kv"
)

// A contact's index entries: phone, email, search postings, display order and its num slot.

// Entry is what a contact's index entries are made of beside its Doc: its id and the phone and
// email as stored (the email index lowers the email itself).
type Entry struct {
	ID           [16]byte
	Phone, Email string
}

// Prep is what a contact's index entries need that depends only on its fields: its terms and
// its sort key, computed once.
type Prep struct {
	Terms   []string
	SortKey []byte
}

// PrepOf computes d's terms and sort key.
func PrepOf(d Doc) *Prep {
	return &Prep{Terms: d.Terms(), SortKey: d.SortKey()}
}

// OrderKey is the display-order key of the contact of d with num.
func OrderKey(d Doc, num uint32) []byte {
	return binary.BigEndian.AppendUint32(d.SortKey(), num)
}

// EmailKey is the email index key of a contact: a hash of its lowered email, then its num.
// The hash, not the email, keeps the key at 8 bytes; a lookup reads the few contacts under a
// hash and compares their emails.
func EmailKey(email string, num uint32) []byte {
	return binary.BigEndian.AppendUint32(emailHash(email), num)
}

func emailHash(email string) []byte {
	h := fnv.New32a()
	h.Write([]byte(strings.ToLower(email)))
	return h.Sum(nil)
}

// NewNum gives a new contact of workspace ws its num: the next of the Nums bucket's sequence.
func (e *Engine) NewNum(tx *kv.Tx, ws []byte) (uint32, error) {
	nums, err := WsBucketW(tx, e.l.Nums, ws, FillAppend)
	if err != nil {
		return 0, err
	}
	seq, err := nums.NextSequence()
	if err != nil {
		return 0, err
	}
	if seq > 1<<32-1 {
		return 0, errors.New("store: a workspace holds at most 2^32-1 contacts")
	}
	return uint32(seq), nil
}

// PutContact writes the index entries of contact c of workspace ws, with num, in tx; buf, when
// not nil (an import batch), collects the entries to be written in key order at its flush.
// Phones handed to a num are reported to the kept sets through sets.
func (e *Engine) PutContact(tx *kv.Tx, sets *SetWriter, ws []byte, c Entry, num uint32, d *Prep, buf *ImportBuf) error {
	id := c.ID
	sk := d.SortKey
	orderK := binary.BigEndian.AppendUint32(slices.Clip(sk), num)
	if buf != nil {
		// An import batch: the entries are written in key order at the end of the batch.
		var emailK []byte
		if c.Email != "" {
			emailK = EmailKey(c.Email, num)
		}
		buf.addEntries(ws, c.Phone, emailK, orderK, num)
		buf.add(ws, d.Terms, num)
		nums, err := WsBucketW(tx, e.l.Nums, ws, FillAppend)
		if err != nil {
			return err
		}
		e.ranks.mark(tx, ws, num)
		return buf.putSlot(nums, num, id, RankOf(sk))
	}
	if p := c.Phone; p != "" {
		b, err := WsBucketW(tx, e.l.Phone.Main, ws, 0)
		if err != nil {
			return err
		}
		// The phone is unique in a workspace; the first contact indexed under it keeps it.
		// Writes other than an import's go to the main part (SplitIndex).
		if ReadSplit(tx, e.l.Phone, ws).Get([]byte(p)) == nil {
			sets.phoneOwnerChanged(tx, ws, p, num) // the list's kept sets map phones to nums
			if err := b.Put([]byte(p), NumKey(num)); err != nil {
				return err
			}
		}
	}
	if c.Email != "" {
		b, err := WsBucketW(tx, e.l.Email.Main, ws, 0)
		if err != nil {
			return err
		}
		if err := b.Put(EmailKey(c.Email, num), nil); err != nil {
			return err
		}
	}
	terms, err := WsBucketW(tx, e.l.Terms.Main, ws, FillPostings)
	if err != nil {
		return err
	}
	for _, t := range d.Terms {
		if err := addPosting(terms, t, num); err != nil {
			return err
		}
	}
	order, err := WsBucketW(tx, e.l.Order.Main, ws, 0)
	if err != nil {
		return err
	}
	if err := order.Put(orderK, nil); err != nil {
		return err
	}
	nums, err := WsBucketW(tx, e.l.Nums, ws, FillAppend)
	if err != nil {
		return err
	}
	e.ranks.mark(tx, ws, num)
	return putSlot(nums, num, id, RankOf(sk))
}

// DeleteContact removes the index entries of contact c (with num and doc d) of workspace ws;
// its num slot is rewritten by PutContact, or freed by FreeNum.
func (e *Engine) DeleteContact(tx *kv.Tx, sets *SetWriter, ws []byte, c Entry, num uint32, d Doc) error {
	if p := c.Phone; p != "" {
		if b := ReadSplit(tx, e.l.Phone, ws); bytes.Equal(b.Get([]byte(p)), NumKey(num)) {
			sets.phoneOwnerChanged(tx, ws, p, num) // the list's kept sets map phones to nums
			if err := b.Delete([]byte(p)); err != nil {
				return err
			}
		}
	}
	if c.Email != "" {
		if err := ReadSplit(tx, e.l.Email, ws).Delete(EmailKey(c.Email, num)); err != nil {
			return err
		}
	}
	terms := ReadSplit(tx, e.l.Terms, ws)
	for _, t := range d.Terms() {
		if err := terms.removePosting(t, num); err != nil {
			return err
		}
	}
	return ReadSplit(tx, e.l.Order, ws).Delete(OrderKey(d, num))
}

// FreeNum empties num's slot: a num with no contact (a deleted one's; nums are never reused).
func (e *Engine) FreeNum(tx *kv.Tx, ws []byte, num uint32) error {
	if nums := WsBucket(tx, e.l.Nums, ws); nums != nil {
		e.ranks.mark(tx, ws, num)
		return putSlot(nums, num, [16]byte{}, [RankLen]byte{})
	}
	return nil
}

// PhoneID is the id of the contact of workspace ws whose phone is phone, from the phone index
// and the num slots (no record is read).
func (l *Layout) PhoneID(tx *kv.Tx, ws []byte, phone string) ([16]byte, bool) {
	b, nums := ReadSplit(tx, l.Phone, ws), WsBucket(tx, l.Nums, ws)
	if !b.Exists() || nums == nil {
		return [16]byte{}, false
	}
	if v := b.Get([]byte(phone)); len(v) == 4 {
		if id, _, ok := NewSlotReader(nums).Slot(u32(v)); ok {
			return id, true
		}
	}
	return [16]byte{}, false
}
