package store

import (
	"bytes"
	"maps"
	"slices"

	"switchboard/store/internal/index"
	"switchboard/store/kv"
)

// indexPhoneMasks is the migration that adds every contact's mask term (the set of its phone's
// distinct digits) to its workspace's postings, for files written before one-digit words were
// decided by them. The phone index gives each phone's num without reading a record.
func indexPhoneMasks(_ *Store, tx *kv.Tx) error {
	phones := tx.Bucket(bContactPhone)
	return phones.ForEachBucket(func(ws []byte) error {
		byTerm := map[string][]uint32{}
		err := phones.Bucket(ws).ForEach(func(k, v []byte) error {
			if len(v) != 4 {
				return nil
			}
			if t := index.MaskTermOf(string(k)); t != "" {
				byTerm[t] = append(byTerm[t], u32(v))
			}
			return nil
		})
		if err != nil || len(byTerm) == 0 {
			return err
		}
		terms, err := index.WsBucketW(tx, bContactTerms, ws, index.FillPostings)
		if err != nil {
			return err
		}
		if k, _ := terms.Cursor().Seek([]byte("l")); k != nil && k[0] == 'l' {
			return nil // indexed by a step before this one (the schema-1 upgrade writes masks)
		}
		return appendTermPostings(terms, byTerm)
	})
}

// appendTermPostings appends each term's nums to its postings in terms, the terms in key order
// (neighbouring terms share pages).
func appendTermPostings(terms *kv.Bucket, byTerm map[string][]uint32) error {
	keys := make([]string, 0, len(byTerm))
	for t := range byTerm {
		keys = append(keys, t)
	}
	slices.Sort(keys)
	for _, t := range keys {
		nums := byTerm[t]
		slices.Sort(nums)
		if err := index.AppendPostings(terms, t, slices.Compact(nums)); err != nil {
			return err
		}
	}
	return nil
}

// migrateMaskLengths replaces every workspace's mask terms of schema 14 ('m' and the phone's
// distinct digits) by the terms that also say the phone's number of digits ('l', two digits of
// length, the distinct digits), so that a search for a digit word longer than most phones
// finds no candidate instead of verifying every phone holding one of its grams. The phone
// index (both parts) gives each phone's num without reading a record; the new terms go to the
// main part of the postings.
func migrateMaskLengths(_ *Store, tx *kv.Tx) error {
	had := map[string]bool{} // the workspaces whose postings held old mask terms
	for _, top := range [][]byte{bContactTerms, bContactTermsRecent} {
		err := tx.Bucket(top).ForEachBucket(func(ws []byte) error {
			b := tx.Bucket(top).Bucket(ws)
			var old [][]byte
			c := b.Cursor()
			for k, _ := c.Seek([]byte("m")); k != nil && k[0] == 'm'; k, _ = c.Next() {
				old = append(old, bytes.Clone(k))
			}
			for _, k := range old {
				if err := b.Delete(k); err != nil {
					return err
				}
			}
			if len(old) > 0 {
				had[string(ws)] = true
			}
			return nil
		})
		if err != nil {
			return err
		}
	}
	for _, ws := range slices.Sorted(maps.Keys(had)) {
		byTerm := map[string][]uint32{}
		c := index.ReadSplit(tx, indexLayout.Phone, []byte(ws)).Cursor()
		for k, v := c.First(); k != nil; k, v = c.Next() {
			if len(v) != 4 {
				continue
			}
			if t := index.MaskTermOf(string(k)); t != "" {
				byTerm[t] = append(byTerm[t], u32(v))
			}
		}
		terms, err := index.WsBucketW(tx, bContactTerms, []byte(ws), index.FillPostings)
		if err != nil {
			return err
		}
		if err := appendTermPostings(terms, byTerm); err != nil {
			return err
		}
	}
	return nil
}
