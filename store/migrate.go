package store

import (
	"bytes"
	"fmt"

	"switchboard/store/internal/index"

	"switchboard/store/kv"
)

// migration brings a file from schema version v to v+1, where v is its index in migrations plus
// one. Migrations run forward only, in order, each step's run in the same transaction as its
// version bump, so a crash leaves the file at the old version or the new one (with, for a step
// with batches, part of its work done and the rest done at the next start).
type migration struct {
	name string
	// batches, when set, runs before run in write transactions of its own, so that a step over
	// millions of records commits in bounded pieces (one huge bbolt transaction grows nodes that
	// split only at commit, and turns quadratic). It must be resumable: a crash between two of
	// its transactions leaves work that the next start finishes. run then completes the step
	// in the transaction that records the new version.
	batches func(s *Store) error
	run     func(s *Store, tx *kv.Tx) error
}

// migrations is the ordered list of schema changes; SchemaVersion is one more than its length.
// Append a step to change the schema; never edit or reorder a step that has shipped.
var migrations = []migration{
	{name: "compact contact records, per-workspace contact indexes", batches: migrateContactBatches, run: migrateCompactContacts}, // 1→2
	{name: "installation-wide phone index; outbox keyed by number", run: migrateCarrier},                                          // 2→3
	{name: "webhook subscription owners and pending-delivery indexes", run: func(s *Store, tx *kv.Tx) error { // 3→4
		if err := indexPendingDeliveries(s, tx); err != nil {
			return err
		}
		return indexSubscriptionOwners(s, tx)
	}},
	{name: "conversation activity index for the inbox", run: indexConversationActivity},                                  // 4→5
	{name: "message words and contact nums for inbox search", batches: indexMessageWordBatches, run: migrateInboxSearch}, // 5→6
	{name: "phone digit masks for one-digit search words", run: indexPhoneMasks},                                         // 6→7
	{name: "group conversations indexed under each member", run: indexGroupMembers},                                      // 7→8
	// The recent parts are created with every bucket at open and start empty; the step marks
	// files whose contacts may be in them, which an older binary would not read.
	{name: "recent parts of the contact indexes", run: func(*Store, *kv.Tx) error { return nil }},       // 8→9
	{name: "two-factor secrets and e-mailed links sealed with the secret key", run: migrateSealSecrets}, // 9→10
	{name: "open assigned conversations by member, for auto-assignment", run: indexOpenAssigned},        // 10→11
	{name: "sends awaiting their delivery receipt", run: indexAwaitingReceipts},                         // 11→12
	// The rollups are built in the background from the records (BuildReports), not at start.
	{name: "report rollups", run: migrateReports}, // 12→13
	// Contact records written from here on carry their channel id and creation time in short
	// forms (new record tags), which an older binary would not read: the step
	// marks the file so that one refuses it instead of misreading it.
	{name: "contact records with short channel ids and creation times", run: func(*Store, *kv.Tx) error { return nil }}, // 13→14
	{name: "phone digit masks with the phone's length", run: migrateMaskLengths},                                        // 14→15
	{name: "contact num blocks of 291 slots, two full pages each", run: func(_ *Store, tx *kv.Tx) error { // 15→16
		return eachNested(tx.Bucket(bContactNums), index.ReblockNums)
	}},
}

// eachNested calls fn with each bucket nested in top, the keys read first so that fn may
// write to the bucket it is given.
func eachNested(top *kv.Bucket, fn func(*kv.Bucket) error) error {
	var names [][]byte
	if err := top.ForEachBucket(func(name []byte) error { names = append(names, bytes.Clone(name)); return nil }); err != nil {
		return err
	}
	for _, name := range names {
		if err := fn(top.Bucket(name)); err != nil {
			return err
		}
	}
	return nil
}

// SchemaVersion is the version this binary writes; migrations bring older files forward.
var SchemaVersion = 1 + len(migrations)

// runMigrations applies every step from version from up to SchemaVersion, each step's batches
// in transactions of their own, then its run with its version bump in one transaction.
func (s *Store) runMigrations(from uint64) error {
	for v := from; v < uint64(SchemaVersion); v++ {
		m := migrations[v-1]
		if m.batches != nil {
			if err := m.batches(s); err != nil {
				return fmt.Errorf("store: migration %d→%d (%s): %w", v, v+1, m.name, err)
			}
		}
		err := s.updateNow(func(tx *wtx) error {
			if err := m.run(s, tx.Tx); err != nil {
				return err
			}
			return tx.Bucket(bMeta).Put(metaSchemaVersion, encodeUint(v+1))
		})
		if err != nil {
			return fmt.Errorf("store: migration %d→%d (%s): %w", v, v+1, m.name, err)
		}
	}
	return nil
}

func (s *Store) migrate() error {
	var from uint64
	err := s.updateNow(func(tx *wtx) error {
		for _, name := range allBuckets {
			if _, err := tx.CreateBucketIfNotExists(name); err != nil {
				return fmt.Errorf("store: create bucket %s: %w", name, err)
			}
		}
		meta := tx.Bucket(bMeta)
		from = decodeUint(meta.Get(metaSchemaVersion))
		if from > uint64(SchemaVersion) {
			return fmt.Errorf("store: database schema %d is newer than this binary's %d", from, SchemaVersion)
		}
		if from == 0 {
			from = uint64(SchemaVersion) // a new file is born at the current version
		}
		if meta.Get(metaTenantID) == nil {
			t := Tenant{ID: s.NewID(), Name: "default", CreatedAt: s.Now()}
			if err := putJSON(tx.Bucket(bTenants), idKey(t.ID), t); err != nil {
				return err
			}
			if err := meta.Put(metaTenantID, []byte(t.ID)); err != nil {
				return err
			}
		}
		if err := s.checkSecretKey(meta); err != nil {
			return err
		}
		return meta.Put(metaSchemaVersion, encodeUint(from))
	})
	if err != nil {
		return err
	}
	return s.runMigrations(from)
}

// SchemaVersion reports the version stored in the meta bucket.
func (s *Store) SchemaVersion() (int, error) {
	var v uint64
	err := s.view(func(tx *kv.Tx) error {
		v = decodeUint(tx.Bucket(bMeta).Get(metaSchemaVersion))
		return nil
	})
	return int(v), err
}
