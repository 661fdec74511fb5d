package store

import (
	"testing"

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
