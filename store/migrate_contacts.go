package store

import (
	"bytes"
	"fmt"

	"github.com/oklog/ulid/v2"
	"switchboard/store/kv"
)

// migrateBatch is how many schema-1 contacts one migration transaction converts.
var migrateBatch = 5000

// migrateContactBatches rewrites the schema-1 contacts as compact records with their index
// entries in the per-workspace buckets, migrateBatch per transaction, deleting each old record
// in the transaction that writes its new one: a contact is in one layout or the other, never
// both, so a start after a crash goes on where this stopped. Contacts are visited in key order
// (workspace, then id), so each workspace's nums ascend with its ids.
func migrateContactBatches(s *Store) error {
	for {
		done := false
		err := s.updateNow(func(tx *wtx) error {
			old := tx.Bucket(v1Contacts)
			if old == nil {
				done = true
				return nil
			}
			var keys [][]byte
			c := old.Cursor()
			for k, v := c.First(); k != nil && len(keys) < migrateBatch; k, v = c.Next() {
				if len(k) != 32 || v == nil {
					return fmt.Errorf("contact key %x is not workspace|id", k)
				}
				var ct Contact
				if err := jsonUnmarshal(v, &ct); err != nil {
					return fmt.Errorf("contact %x: %w", k, err)
				}
				// The key is what the record is found by; the JSON's ids say the same unless
				// the file was edited by hand.
				ct.WorkspaceID, ct.ID = ulid.ULID(k[:16]).String(), ulid.ULID(k[16:]).String()
				if ct.Flags == nil {
					ct.Flags = []string{}
				}
				if err := s.putContact(tx, &ct, nil); err != nil {
					return fmt.Errorf("contact %s: %w", ct.ID, err)
				}
				keys = append(keys, bytes.Clone(k))
			}
			for _, k := range keys {
				if err := old.Delete(k); err != nil {
					return err
				}
			}
			done = len(keys) < migrateBatch
			return nil
		})
		if err != nil || done {
			return err
		}
	}
}

// migrateCompactContacts completes the step, with the version bump: it drops the schema-1
// buckets, whose contacts migrateContactBatches has moved.
func migrateCompactContacts(_ *Store, tx *kv.Tx) error {
	if old := tx.Bucket(v1Contacts); old != nil {
		if k, _ := old.Cursor().First(); k != nil {
			return fmt.Errorf("schema-1 contact %x was not migrated", k)
		}
		if err := tx.DeleteBucket(v1Contacts); err != nil {
			return err
		}
	}
	for _, name := range v1ContactIndex {
		if tx.Bucket(name) != nil {
			if err := tx.DeleteBucket(name); err != nil {
				return err
			}
		}
	}
	return nil
}
