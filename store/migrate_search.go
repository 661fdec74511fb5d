package store

import (
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
		if k, _ := terms.Cursor().Seek([]byte("m")); k != nil && k[0] == 'm' {
			return nil // indexed by a step before this one (the schema-1 upgrade writes masks)
		}
		keys := make([]string, 0, len(byTerm))
		for t := range byTerm {
			keys = append(keys, t)
		}
		slices.Sort(keys) // in key order: neighbouring terms share pages
		for _, t := range keys {
			nums := byTerm[t]
			slices.Sort(nums)
			if err := index.AppendPostings(terms, t, slices.Compact(nums)); err != nil {
				return err
			}
		}
		return nil
	})
}
