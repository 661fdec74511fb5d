package store

import (
	"path/filepath"
	"testing"
)

// FuzzApplyEntries: no log entry, however garbled, makes a node panic; a bad one is refused
// and the file keeps taking good ones.
func FuzzApplyEntries(f *testing.F) {
	s, err := Open(filepath.Join(f.TempDir(), "f.db"), Options{})
	if err != nil {
		f.Fatal(err)
	}
	defer s.Close()
	s.initReplication()
	good := s.encodeEntry(&effects{outbox: true, depth: -2, live: []string{"ws"}}, nil)
	f.Add(good)
	f.Add([]byte{1, 1, 0, 0, 0, 0, 0, 0, 0, 0, 0xff, 0xff})
	f.Add([]byte{})
	f.Fuzz(func(t *testing.T, data []byte) {
		_ = s.ApplyEntries([]Entry{{Data: data}})
		if err := s.ApplyEntries([]Entry{{Data: good}})[0]; err != nil {
			t.Fatalf("a good entry after %x: %v", data, err)
		}
	})
}
