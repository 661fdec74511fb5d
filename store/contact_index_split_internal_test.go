package store

import (
	"bytes"
	"errors"
	"fmt"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"switchboard/internal/benchgen"
	"switchboard/internal/textfold"

	"switchboard/store/internal/index"
	"switchboard/store/kv"
)

// TestImportSplitIndexesSettle imports with a recent part far smaller than the file, so that
// every batch after the first few moves entries into the main parts (wrapping around their
// keys), and checks what a user meets: every contact found by its phone and its email, the
// list in name order complete and ordered, and edits, deletions and a second import of the
// same file after the moves all keeping both parts exact.
func TestImportSplitIndexesSettle(t *testing.T) {
	s, ws := impStore(t)
	s.idx.Bounds.RecentMax, s.idx.Bounds.RecentMaxPostings = 700, 9000
	var csv strings.Builder
	csv.WriteString("firstName,lastName,phone,email,company\n")
	g := benchgen.New(11)
	type row struct{ first, last, phone, email string }
	var rows []row
	for range 6000 {
		c := g.Next()
		rows = append(rows, row{c.First, c.Last, c.Phone, c.Email})
		fmt.Fprintf(&csv, "%s,%s,%s,%s,%s\n", c.First, c.Last, c.Phone, c.Email, c.Company)
	}
	rep, err := s.ImportContacts(ws, strings.NewReader(csv.String()), nil)
	if err != nil || rep.Imported != len(rows) {
		t.Fatalf("import: %+v, %v", rep, err)
	}
	checkContactIndex(t, s, ws)
	checkSplitParts(t, s, ws)

	// Every contact by phone and by email, wherever its entries are.
	for i, r := range rows {
		if i%7 != 0 {
			continue
		}
		var id string
		s.view(func(tx *kv.Tx) error { id = contactIDByPhone(tx, ws, r.phone); return nil })
		if id == "" {
			t.Fatalf("row %d: no contact for %s", i+2, r.phone)
		}
		res, err := s.SearchContacts(ws, r.email)
		if err != nil || len(res) == 0 || !strings.EqualFold(res[0].Email, r.email) {
			t.Fatalf("search %q: %d results, %v", r.email, len(res), err)
		}
	}
	checkNameOrder(t, s, ws, len(rows))

	// Edits after the moves: a rename, an erasure, a phone taken (in the recent part or the
	// main one), a plain delete; then the whole file again (every row an update).
	first := "Zed"
	if _, _, err := s.UpsertContact(ws, ContactInput{Phone: rows[5].phone, FirstName: &first}); err != nil {
		t.Fatal(err)
	}
	if _, err := s.DeleteContact(ws, rows[5999].phone, true); err != nil {
		t.Fatal(err)
	}
	if _, err := s.DeleteContact(ws, rows[1].phone, false); err != nil {
		t.Fatal(err)
	}
	for _, r := range []row{rows[5998], rows[3]} {
		if _, err := s.CreateContact(ws, ContactInput{Phone: r.phone}); !errors.Is(err, ErrConflict) {
			t.Fatalf("a second contact for %s: %v, want a conflict", r.phone, err)
		}
	}
	checkContactIndex(t, s, ws)
	rep, err = s.ImportContacts(ws, strings.NewReader(csv.String()), nil)
	if err != nil || rep.Updated != len(rows)-2 || rep.Imported != 2 {
		t.Fatalf("second import: %+v, %v", rep, err)
	}
	checkContactIndex(t, s, ws)
	checkSplitParts(t, s, ws)
	checkNameOrder(t, s, ws, len(rows))
}

// checkSplitParts checks that the recent part of each split index holds at most RecentMax
// entries and that the main part took the rest.
func checkSplitParts(t *testing.T, s *Store, workspaceID string) {
	t.Helper()
	ws := idKey(workspaceID)
	s.view(func(tx *kv.Tx) error {
		for _, top := range []index.Split{indexLayout.Phone, indexLayout.Email, indexLayout.Order, indexLayout.Terms} {
			inRecent, inMain := int(index.WsBucket(tx, top.Recent, ws).Sequence()), countPrefix(index.WsBucket(tx, top.Main, ws), nil)
			limit := s.idx.Bounds.RecentMax
			if bytes.Equal(top.Main, bContactTerms) {
				limit = s.idx.Bounds.RecentMaxPostings
			}
			if inRecent > limit || inMain == 0 {
				t.Errorf("%s: %d entries in the recent part (at most %d), %d in the main one", top, inRecent, limit, inMain)
			}
		}
		return nil
	})
}

// checkNameOrder pages through the whole list in name order and compares it with the records
// sorted by name.
func checkNameOrder(t *testing.T, s *Store, workspaceID string, want int) {
	t.Helper()
	var got [][]byte
	cursor := ""
	for {
		page, err := s.ListContacts(workspaceID, ContactFilter{}, cursor, 100)
		if err != nil {
			t.Fatal(err)
		}
		if page.Total != want {
			t.Fatalf("the list counts %d contacts, want %d", page.Total, want)
		}
		for _, c := range page.Contacts {
			got = append(got, []byte(textfold.Fold(c.FirstName)+"\x00"+textfold.Fold(c.LastName)))
		}
		if cursor = page.Next; cursor == "" {
			break
		}
	}
	if len(got) != want {
		t.Fatalf("the list gave %d contacts, want %d", len(got), want)
	}
	if !slices.IsSortedFunc(got, bytes.Compare) {
		t.Errorf("the list is not in name order")
	}
}

// TestMigrateToRecentParts opens a file as schema 8 wrote it (contacts, no recent parts) and
// checks the step to 9: the recent parts are there, the contacts found as before, and an import
// that moves entries between the parts keeps the indexes exact.
func TestMigrateToRecentParts(t *testing.T) {
	path := filepath.Join(t.TempDir(), "v8.db")
	s, err := Open(path, Options{})
	if err != nil {
		t.Fatal(err)
	}
	w, err := s.CreateWorkspace("Old")
	if err != nil {
		t.Fatal(err)
	}
	g := benchgen.New(5)
	var phones []string
	for range 50 {
		c := g.Next()
		if _, err := s.CreateContact(w.ID, ContactInput{Phone: c.Phone, FirstName: &c.First, LastName: &c.Last, Email: &c.Email}); err != nil {
			t.Fatal(err)
		}
		phones = append(phones, c.Phone)
	}
	err = rawUpdate(s.DB(), func(tx *kv.Tx) error {
		for _, b := range [][]byte{bContactPhoneRecent, bContactEmailRecent, bContactOrderRecent, bContactTermsRecent, bContactSweep} {
			if err := tx.DeleteBucket(b); err != nil {
				return err
			}
		}
		return putSchema(tx, 8)
	})
	s.Close()
	if err != nil {
		t.Fatal(err)
	}

	if s, err = Open(path, Options{}); err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	s.idx.Bounds.RecentMax, s.idx.Bounds.RecentMaxPostings = 300, 4000
	if v, err := s.SchemaVersion(); v != SchemaVersion || err != nil {
		t.Fatalf("schema %d (%v), want %d", v, err, SchemaVersion)
	}
	if res, err := s.SearchContacts(w.ID, phones[7]); err != nil || len(res) != 1 {
		t.Fatalf("search %s after the migration: %d results, %v", phones[7], len(res), err)
	}
	var csv strings.Builder
	csv.WriteString("firstName,lastName,phone,email\n")
	for range 3000 {
		c := g.Next()
		fmt.Fprintf(&csv, "%s,%s,%s,%s\n", c.First, c.Last, c.Phone, c.Email)
	}
	if rep, err := s.ImportContacts(w.ID, strings.NewReader(csv.String()), nil); err != nil || rep.Imported != 3000 {
		t.Fatalf("import: %+v, %v", rep, err)
	}
	checkContactIndex(t, s, w.ID)
	checkSplitParts(t, s, w.ID)
	checkNameOrder(t, s, w.ID, 3050)
}
