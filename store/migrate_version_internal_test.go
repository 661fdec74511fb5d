package store

import "testing"

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
