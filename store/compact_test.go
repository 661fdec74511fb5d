package store_test

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"testing"
	"time"

	"switchboard/store"
)

// TestCompact: a file with contacts shrinks, keeps every contact findable (the search index's
// bucket sequences included: a contact made after compaction does not reuse a number), and
// compaction is refused while the file is open.
func TestCompact(t *testing.T) {
	path := filepath.Join(t.TempDir(), "c.db")
	s, err := store.Open(path, store.Options{})
	if err != nil {
		t.Fatal(err)
	}
	f := newFixtureOn(t, s)
	var ins []store.ContactInput
	for i := range 3000 {
		ins = append(ins, store.ContactInput{Phone: fmt.Sprintf("+1415%07d", i), FirstName: ptr(fmt.Sprintf("Name%d", i%97)),
			Email: ptr(fmt.Sprintf("n%d@example.com", i))})
	}
	if _, err := store.BulkContacts(s, f.ws, ins); err != nil {
		t.Fatal(err)
	}
	before := search(t, s, f.ws, "name5")
	if _, err := store.Compact(path, 50*time.Millisecond); !errors.Is(err, store.ErrLocked) {
		t.Fatalf("Compact while the store is open: %v, want ErrLocked", err)
	}
	s.Close()
	rep, err := store.Compact(path, 0)
	if err != nil {
		t.Fatal(err)
	}
	if rep.After >= rep.Before {
		t.Errorf("compacted %d → %d bytes, want smaller", rep.Before, rep.After)
	}
	if _, err := os.Stat(path + ".compacting"); !os.IsNotExist(err) {
		t.Errorf("the temporary copy is left behind: %v", err)
	}
	s, err = store.Open(path, store.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	after := search(t, s, f.ws, "name5")
	if len(after) != len(before) || len(after) == 0 {
		t.Fatalf("search after compaction found %d, before %d", len(after), len(before))
	}
	for i := range after {
		if after[i].ID != before[i].ID {
			t.Fatalf("result %d after compaction is %s, was %s", i, after[i].ID, before[i].ID)
		}
	}
	c, err := s.CreateContact(f.ws, store.ContactInput{Phone: "+12125550000", FirstName: ptr("Aaa")})
	if err != nil {
		t.Fatal(err)
	}
	if got := search(t, s, f.ws, ""); got[0].ID != c.ID {
		t.Errorf("a contact made after compaction lists as %s, want %s first", got[0].ID, c.ID)
	}
	if got := search(t, s, f.ws, "name5"); len(got) != len(before) {
		t.Errorf("after a new contact, name5 finds %d, want %d", len(got), len(before))
	}
}
