package store

import (
	"bytes"
	"encoding/binary"
	"hash/fnv"
	"slices"
	"strings"
)

// A contact's index entries: phone, email, search postings, display order and its num slot
// (the buckets are described in search_index.go).

// contactPrep is what a contact's index entries need that depends only on its fields: its
// terms and its sort key, computed once.
type contactPrep struct {
	terms   []string
	sortKey []byte
}

func prepOf(d searchDoc) *contactPrep {
	return &contactPrep{terms: d.terms(), sortKey: d.sortKey()}
}

func orderKey(d searchDoc, num uint32) []byte {
	return binary.BigEndian.AppendUint32(d.sortKey(), num)
}

// emailKey is the email index key of a contact: a hash of its lowered email, then its num.
// The hash, not the email, keeps the key at 8 bytes; a lookup reads the few contacts under a
// hash and compares their emails.
func emailKey(email string, num uint32) []byte {
	return binary.BigEndian.AppendUint32(emailHash(email), num)
}

func emailHash(email string) []byte {
	h := fnv.New32a()
	h.Write([]byte(strings.ToLower(email)))
	return h.Sum(nil)
}

func putContactIndex(tx *wtx, ws []byte, c *Contact, num uint32, d *contactPrep, buf *postingBuf) error {
	id := [16]byte(idKey(c.ID))
	sk := d.sortKey
	orderK := binary.BigEndian.AppendUint32(slices.Clip(sk), num)
	if buf != nil {
		// An import batch: the entries are written in key order at the end of the batch.
		var emailK []byte
		if c.Email != "" {
			emailK = emailKey(c.Email, num)
		}
		buf.addEntries(ws, c.Phone(), emailK, orderK, num)
		buf.add(ws, d.terms, num)
		nums, err := wsBucketW(tx.Tx, bContactNums, ws, fillAppend)
		if err != nil {
			return err
		}
		return buf.putSlot(nums, num, id, rankOf(sk))
	}
	if p := c.Phone(); p != "" {
		b, err := wsBucketW(tx.Tx, bContactPhone, ws, 0)
		if err != nil {
			return err
		}
		// The phone is unique in a workspace; the first contact indexed under it keeps it.
		// Writes other than an import's go to the main part (contact_index_split.go).
		if readSplit(tx.Tx, bContactPhone, ws).Get([]byte(p)) == nil {
			phoneOwnerChanged(tx, ws, p, num) // the list's kept sets map phones to nums (contact_list_patch.go)
			if err := b.Put([]byte(p), numKey(num)); err != nil {
				return err
			}
		}
	}
	if c.Email != "" {
		b, err := wsBucketW(tx.Tx, bContactEmail, ws, 0)
		if err != nil {
			return err
		}
		if err := b.Put(emailKey(c.Email, num), nil); err != nil {
			return err
		}
	}
	terms, err := wsBucketW(tx.Tx, bContactTerms, ws, fillPostings)
	if err != nil {
		return err
	}
	for _, t := range d.terms {
		if err := addPosting(terms, t, num); err != nil {
			return err
		}
	}
	order, err := wsBucketW(tx.Tx, bContactOrder, ws, 0)
	if err != nil {
		return err
	}
	if err := order.Put(orderK, nil); err != nil {
		return err
	}
	nums, err := wsBucketW(tx.Tx, bContactNums, ws, fillAppend)
	if err != nil {
		return err
	}
	return putSlot(nums, num, id, rankOf(sk))
}

// deleteContactIndex removes c's index entries; its num slot is rewritten by putContactIndex.
func deleteContactIndex(tx *wtx, ws []byte, c *Contact, num uint32, d searchDoc) error {
	if p := c.Phone(); p != "" {
		if b := readSplit(tx.Tx, bContactPhone, ws); bytes.Equal(b.Get([]byte(p)), numKey(num)) {
			phoneOwnerChanged(tx, ws, p, num) // the list's kept sets map phones to nums (contact_list_patch.go)
			if err := b.Delete([]byte(p)); err != nil {
				return err
			}
		}
	}
	if c.Email != "" {
		if err := readSplit(tx.Tx, bContactEmail, ws).Delete(emailKey(c.Email, num)); err != nil {
			return err
		}
	}
	terms := readSplit(tx.Tx, bContactTerms, ws)
	for _, t := range d.terms() {
		if err := terms.removePosting(t, num); err != nil {
			return err
		}
	}
	return readSplit(tx.Tx, bContactOrder, ws).Delete(orderKey(d, num))
}
