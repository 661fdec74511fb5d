package store

import (
	"testing"

	bolt "go.etcd.io/bbolt"

	"switchboard/store/internal/index"
	"switchboard/store/kv"
)

// schemaBefore is the version a file had before the migration named name ran, so that a test
// writing such a file follows the step wherever it lands in the list.
func schemaBefore(t *testing.T, name string) uint64 {
	t.Helper()
	for i, m := range migrations {
		if m.name == name {
			return uint64(i + 1)
		}
	}
	t.Fatalf("no migration named %q", name)
	return 0
}

// putSchema marks the file as schema v wrote it, rewriting what the steps after v change in a
// way no newer file tells apart: the contact num blocks of 256 slots (before 16).
func putSchema[V int | uint64](tx *kv.Tx, v V) error {
	if v < 16 {
		if err := eachNested(tx.Bucket(bContactNums), index.UnblockNums); err != nil {
			return err
		}
	}
	return tx.Bucket(bMeta).Put(metaSchemaVersion, encodeUint(uint64(v)))
}

// rewriteFile changes the closed database file at path with fn in one raw bbolt transaction
// (no store, no migration), as a test writes a file an older version left.
func rewriteFile(t *testing.T, path string, fn func(tx *kv.Tx) error) {
	t.Helper()
	db, err := bolt.Open(path, 0o600, nil)
	if err != nil {
		t.Fatal(err)
	}
	err = rawUpdate(db, fn)
	if cerr := db.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		t.Fatal(err)
	}
}
