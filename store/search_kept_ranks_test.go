package store_test

import (
	"errors"
	"fmt"
	"math/rand/v2"
	"slices"
	"testing"

	"switchboard/store"
)

// TestSearchWithKeptRanksSeesEveryWrite: once a search has ranked enough candidates to have
// its workspace's ranks and common prefixes kept in memory, renames that move contacts in the
// order or out of a prefix, deletions and new contacts are all seen by the searches after them,
// exactly as the reference finds and orders them.
func TestSearchWithKeptRanksSeesEveryWrite(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	// Every prefix in a 128th of the contacts is kept ("chr", "mar", "wil", "jon"…).
	defer store.SetKeptPrefixMin(f.s, 1)()
	rng := rand.New(rand.NewPCG(9, 4))
	firsts := []string{"Christopher", "Christina", "Chris", "Charles", "Mary", "Maria"}
	lasts := []string{"Jones", "Johnson", "Jordan", "Williams", "Wilson", "Garcia"}
	var ins []store.ContactInput
	for i := range 5000 {
		ins = append(ins, store.ContactInput{Phone: fmt.Sprintf("+1415%07d", 2000000+i),
			FirstName: ptr(firsts[rng.IntN(len(firsts))]), LastName: ptr(lasts[rng.IntN(len(lasts))])})
	}
	if _, err := store.BulkContacts(f.s, f.ws, ins); err != nil {
		t.Fatal(err)
	}
	queries := []string{"chr jo", "mar wil", "chr", "ma", "jo 415"}
	for _, q := range queries {
		search(t, f.s, f.ws, q)
	}
	if !store.KeptRanks(f.s, f.ws) {
		t.Fatal("no kept ranks after searches ranking thousands of candidates")
	}

	// The first matches of queries the kept order answers renamed out of them, renames to the
	// front and to the back of the order (in a few of the table's ranges), deletions, and new
	// contacts past the table; searched first with the table as it was (no rebuild starts).
	built := store.KeptRanksSnapshot(f.s, f.ws)
	release := store.HoldKeptRanks(f.s)
	for _, q := range []string{"mar wil", "chr"} {
		for _, c := range search(t, f.s, f.ws, q)[:3] {
			if _, _, err := f.s.UpsertContact(f.ws, store.ContactInput{Phone: c.Phone(), FirstName: ptr("Aaron"), LastName: ptr("Jolly")}); err != nil {
				t.Fatal(err)
			}
		}
	}
	for i := 0; i < 40; i++ {
		first := "Aaron"
		if i%2 == 1 {
			first = "Zoe"
		}
		in := ins[rng.IntN(len(ins))]
		in.FirstName, in.LastName = ptr(first), ptr([]string{"Chrjones", "Marwil", "Jolly", "Wilmar"}[i%4])
		if _, _, err := f.s.UpsertContact(f.ws, in); err != nil {
			t.Fatal(err)
		}
	}
	for i := 0; i < 20; i++ {
		if _, err := f.s.DeleteContact(f.ws, ins[rng.IntN(len(ins))].Phone, false); err != nil && !errors.Is(err, store.ErrNotFound) {
			t.Fatal(err)
		}
	}
	for i := range 30 {
		if _, err := f.s.CreateContact(f.ws, store.ContactInput{Phone: fmt.Sprintf("+1415%07d", 3000000+i),
			FirstName: ptr("Abe"), LastName: ptr("Chrwilliams")}); err != nil {
			t.Fatal(err)
		}
	}
	all := allContacts(t, f.s, f.ws)
	ref := refPrepare(all)
	queries = append(queries, "aaron", "zoe mar", "abe chr", "wil mar", "chr wil", "mar", "zoe jol")
	for _, q := range queries {
		wantSameAsReference(t, f.s, f.ws, ref, q)
	}
	// Again once a search the kept order answers has had the table rebuilt.
	release()
	search(t, f.s, f.ws, "mar wil")
	if store.KeptRanksSnapshot(f.s, f.ws) <= built {
		t.Error("a search of a mostly stale table did not have it rebuilt")
	}
	for _, q := range queries {
		wantSameAsReference(t, f.s, f.ws, ref, q)
	}
	if !slices.ContainsFunc(all, func(c store.Contact) bool { return c.FirstName == "Zoe" }) {
		t.Fatal("no rename happened")
	}
}

// allContacts is every contact of the workspace, from the export.
func allContacts(t *testing.T, s *store.Store, ws string) []store.Contact {
	t.Helper()
	var all []store.Contact
	if err := s.ExportContacts(ws, store.ContactFilter{}, func(r store.ExportRow) error {
		all = append(all, r.Contact)
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	return all
}
