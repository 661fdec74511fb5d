package store

import (
	"fmt"

	bolt "go.etcd.io/bbolt"
)

// migration brings a file from schema version v to v+1, where v is its index in migrations plus
// one. Migrations run forward only, in order, each in the same transaction as the version bump,
// so a crash leaves the file at the old version or the new one, never between.
type migration struct {
	name string
	run  func(s *Store, tx *bolt.Tx) error
}

// migrations is the ordered list of schema changes; SchemaVersion is one more than its length.
// Append a step to change the schema; never edit or reorder a step that has shipped.
var migrations = []migration{
	{"compact contact records, per-workspace contact indexes", migrateCompactContacts}, // 1→2
}

// SchemaVersion is the version this binary writes; migrations bring older files forward.
var SchemaVersion = 1 + len(migrations)

// runMigrations applies every step from version from up to SchemaVersion.
func (s *Store) runMigrations(tx *bolt.Tx, from uint64) error {
	for v := from; v < uint64(SchemaVersion); v++ {
		m := migrations[v-1]
		if err := m.run(s, tx); err != nil {
			return fmt.Errorf("store: migration %d→%d (%s): %w", v, v+1, m.name, err)
		}
	}
	return nil
}
