package store

import (
	"bytes"
	"fmt"
	"maps"
	"path/filepath"
	"slices"
	"testing"

	"switchboard/store/internal/index"
	"switchboard/store/kv"
)

// TestMigratePhoneMasks writes a schema-6 file (postings without digit-mask terms), opens it,
// and expects one-digit searches to find the same contacts as before the upgrade without a pass
// over the phone index.
func TestMigratePhoneMasks(t *testing.T) {
	path := filepath.Join(t.TempDir(), "v6.db")
	s, err := Open(path, Options{})
	if err != nil {
		t.Fatal(err)
	}
	w, err := s.CreateWorkspace("Acme")
	if err != nil {
		t.Fatal(err)
	}
	str := func(v string) *string { return &v }
	for i := range 40 {
		if _, err := s.CreateContact(w.ID, ContactInput{Phone: fmt.Sprintf("+1415555%04d", i*37), FirstName: str(fmt.Sprint("n", i))}); err != nil {
			t.Fatal(err)
		}
	}
	queries := []string{"7", "0 3", "1 4 5 9", "0 1 2 3 4 5 6 7 8 9", "8 8 8"}
	want := map[string][]string{}
	for _, q := range queries {
		cs, err := s.SearchContacts(w.ID, q)
		if err != nil {
			t.Fatal(err)
		}
		for _, c := range cs {
			want[q] = append(want[q], c.ID)
		}
	}
	if len(want["7"]) == 0 || len(want["0 3"]) == 0 {
		t.Fatalf("fixture finds nothing: %v", want)
	}
	s.Close()

	// Rewrite the file as schema 6 wrote it: no mask terms.
	rewriteFile(t, path, func(tx *kv.Tx) error {
		b := index.WsBucket(tx, bContactTerms, idKey(w.ID))
		c := b.Cursor()
		for k, _ := c.Seek([]byte("l")); k != nil && k[0] == 'l'; k, _ = c.Seek([]byte("l")) {
			if err := b.Delete(bytes.Clone(k)); err != nil {
				return err
			}
		}
		return putSchema(tx, 6)
	})

	s, err = Open(path, Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	if v, err := s.SchemaVersion(); err != nil || v != SchemaVersion {
		t.Fatalf("schema %d (%v), want %d", v, err, SchemaVersion)
	}
	for _, q := range queries {
		cs, work, err := s.searchContacts(w.ID, q)
		if err != nil {
			t.Fatal(err)
		}
		var got []string
		for _, c := range cs {
			got = append(got, c.ID)
		}
		if !slices.Equal(got, want[q]) || work.Phones != 0 {
			t.Errorf("after the upgrade %q found %v with %+v, want %v and no phone pass", q, got, work, want[q])
		}
	}
}

// TestMigrateMaskLengths writes a schema-14 file (mask terms without the phone's length), opens
// it, and expects every digit search to find what it found before the upgrade, and a digit
// word longer than every phone to read no record.
func TestMigrateMaskLengths(t *testing.T) {
	path := filepath.Join(t.TempDir(), "v14.db")
	s, err := Open(path, Options{})
	if err != nil {
		t.Fatal(err)
	}
	w, err := s.CreateWorkspace("Acme")
	if err != nil {
		t.Fatal(err)
	}
	str := func(v string) *string { return &v }
	var phones []string
	for i := range 60 {
		phone := fmt.Sprintf("+1499999%04d", i*37) // 11 digits
		switch i % 3 {
		case 1:
			phone = fmt.Sprintf("+44799999%04d", i) // 12 digits
		case 2:
			phone = fmt.Sprintf("+861399999%04d", i) // 13 digits
		}
		phones = append(phones, phone)
		if _, err := s.CreateContact(w.ID, ContactInput{Phone: phone, FirstName: str(fmt.Sprint("n", i))}); err != nil {
			t.Fatal(err)
		}
	}
	queries := []string{"7", "0 3", "9999", "99999", "799999", "1399999", "8613999990", "9999999999999", "99999999999999", "9999999999999999", "4 9999"}
	search := func(s *Store) map[string][]string {
		got := map[string][]string{}
		for _, q := range queries {
			cs, err := s.SearchContacts(w.ID, q)
			if err != nil {
				t.Fatal(err)
			}
			for _, c := range cs {
				got[q] = append(got[q], c.ID)
			}
		}
		return got
	}
	want := search(s)
	if len(want["99999"]) != 60 || len(want["8613999990"]) != 20 || len(want["9999999999999"]) != 0 {
		t.Fatalf("fixture: %d, %d and %d found, want 60, 20 and 0", len(want["99999"]), len(want["8613999990"]), len(want["9999999999999"]))
	}
	s.Close()

	// Rewrite the file as schema 14 wrote it: 'm' and the distinct digits.
	rewriteFile(t, path, func(tx *kv.Tx) error {
		ws := idKey(w.ID)
		for _, top := range [][]byte{bContactTerms, bContactTermsRecent} {
			b := index.WsBucket(tx, top, ws)
			if b == nil {
				continue
			}
			c := b.Cursor()
			for k, _ := c.Seek([]byte("l")); k != nil && k[0] == 'l'; k, _ = c.Seek([]byte("l")) {
				if err := b.Delete(bytes.Clone(k)); err != nil {
					return err
				}
			}
		}
		old := map[string][]uint32{}
		for _, phone := range phones {
			v := index.ReadSplit(tx, indexLayout.Phone, ws).Get([]byte(phone))
			if len(v) != 4 {
				return fmt.Errorf("no num for %s", phone)
			}
			num := u32(v)
			digits := []byte(index.Digits(phone))
			slices.Sort(digits)
			old["m"+string(slices.Compact(digits))] = append(old["m"+string(slices.Compact(digits))], num)
		}
		terms, err := index.WsBucketW(tx, bContactTerms, ws, 0)
		if err != nil {
			return err
		}
		if err := appendTermPostings(terms, old); err != nil {
			return err
		}
		return putSchema(tx, 14)
	})

	s, err = Open(path, Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	if v, err := s.SchemaVersion(); err != nil || v != SchemaVersion {
		t.Fatalf("schema %d (%v), want %d", v, err, SchemaVersion)
	}
	if got := search(s); !maps.EqualFunc(got, want, slices.Equal) {
		t.Errorf("after the upgrade found %v, want %v", got, want)
	}
	for _, q := range []string{"99999999999999", "9999999999999999"} {
		if _, work, err := s.searchContacts(w.ID, q); err != nil || work.Records != 0 {
			t.Errorf("%q after the upgrade read %d records (%v), want none: no phone is that long", q, work.Records, err)
		}
	}
	err = s.view(func(tx *kv.Tx) error {
		for _, top := range [][]byte{bContactTerms, bContactTermsRecent} {
			if b := index.WsBucket(tx, top, idKey(w.ID)); b != nil {
				if k, _ := b.Cursor().Seek([]byte("m")); k != nil && k[0] == 'm' {
					return fmt.Errorf("an old mask term is left: %q", k)
				}
			}
		}
		return nil
	})
	if err != nil {
		t.Error(err)
	}
}

// TestMigrateNumBlocks writes a schema-15 file (contact num blocks of 256 slots) with contacts
// over several blocks and a deleted one, opens it, and expects the contacts list, its search
// and find-contact to show what they showed before the upgrade, from blocks of 291 slots.
func TestMigrateNumBlocks(t *testing.T) {
	path := filepath.Join(t.TempDir(), "v15.db")
	s, err := Open(path, Options{})
	if err != nil {
		t.Fatal(err)
	}
	w, err := s.CreateWorkspace("Acme")
	if err != nil {
		t.Fatal(err)
	}
	str := func(v string) *string { return &v }
	for i := range 700 {
		first, last := fmt.Sprintf("n%03d", (i*7919)%700), []string{"Garcia", "Smith", "Nguyen"}[i%3]
		if _, err := s.CreateContact(w.ID, ContactInput{Phone: fmt.Sprintf("+1415555%04d", i), FirstName: str(first), LastName: str(last)}); err != nil {
			t.Fatal(err)
		}
	}
	for _, phone := range []string{"+14155550300", "+14155550599"} { // in the second and third old blocks
		if _, err := s.DeleteContact(w.ID, phone, false); err != nil {
			t.Fatal(err)
		}
	}
	type view struct {
		pages  [][]string
		totals []int
		found  [][]string
	}
	look := func(s *Store) view {
		var v view
		for _, f := range []ContactFilter{{}, {Newest: true}, {Search: "smi"}, {Search: "n6 ngu", Newest: true}} {
			var ids []string
			total, cursor := 0, ""
			for {
				p, err := s.ListContacts(w.ID, f, cursor, 250)
				if err != nil {
					t.Fatal(err)
				}
				for _, c := range p.Contacts {
					ids = append(ids, c.ID)
				}
				total = p.Total
				if cursor = p.Next; cursor == "" {
					break
				}
			}
			v.pages, v.totals = append(v.pages, ids), append(v.totals, total)
		}
		for _, q := range []string{"n69", "gar", "5550650", "n1 smith"} {
			cs, err := s.SearchContacts(w.ID, q)
			if err != nil {
				t.Fatal(err)
			}
			var ids []string
			for _, c := range cs {
				ids = append(ids, c.ID)
			}
			v.found = append(v.found, ids)
		}
		return v
	}
	want := look(s)
	if want.totals[0] != 698 || len(want.pages[0]) != 698 || want.totals[2] != 233 || len(want.found[2]) != 1 {
		t.Fatalf("fixture: totals %v, %d listed, %d found by phone", want.totals, len(want.pages[0]), len(want.found[2]))
	}
	s.Close()

	rewriteFile(t, path, func(tx *kv.Tx) error { return putSchema(tx, 15) })

	s, err = Open(path, Options{})
	if err != nil {
		t.Fatal(err)
	}
	if v, err := s.SchemaVersion(); err != nil || v != SchemaVersion {
		s.Close()
		t.Fatalf("schema %d (%v), want %d", v, err, SchemaVersion)
	}
	got := look(s)
	for i := range want.pages {
		if !slices.Equal(got.pages[i], want.pages[i]) || got.totals[i] != want.totals[i] {
			t.Errorf("list %d after the upgrade: %d of %d, want %d of %d as before", i, len(got.pages[i]), got.totals[i], len(want.pages[i]), want.totals[i])
		}
	}
	for i := range want.found {
		if !slices.Equal(got.found[i], want.found[i]) {
			t.Errorf("search %d after the upgrade found %v, want %v", i, got.found[i], want.found[i])
		}
	}
	// A contact created after the upgrade takes the next num, in the new blocks.
	c, err := s.CreateContact(w.ID, ContactInput{Phone: "+14155559999", FirstName: str("Zed")})
	if err != nil {
		t.Fatal(err)
	}
	if cs, err := s.SearchContacts(w.ID, "zed"); err != nil || len(cs) != 1 || cs[0].ID != c.ID {
		t.Errorf("the new contact: found %v (%v)", cs, err)
	}
	want = look(s)
	s.Close()

	// An upgrade from schema 1 writes the nums in the new blocks before the step runs: the
	// step leaves blocks already of 291 slots as they are.
	rewriteFile(t, path, func(tx *kv.Tx) error { return tx.Bucket(bMeta).Put(metaSchemaVersion, encodeUint(15)) })
	s, err = Open(path, Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	got = look(s)
	for i := range want.pages {
		if !slices.Equal(got.pages[i], want.pages[i]) || got.totals[i] != want.totals[i] {
			t.Errorf("list %d after the step ran on new blocks: %d of %d, want %d of %d", i, len(got.pages[i]), got.totals[i], len(want.pages[i]), want.totals[i])
		}
	}
}

// TestLongDigitWordReadsNoRecord: in a file written now, a digit word longer than every phone
// finds nothing without reading a record, and one as long as some phones still finds those.
func TestLongDigitWordReadsNoRecord(t *testing.T) {
	s, ws := impStore(t)
	for i := range 300 {
		phone := fmt.Sprintf("+1999999%04d", i) // 11 digits, every one holding 9999
		if i%50 == 0 {
			phone = fmt.Sprintf("+861999999%04d", i) // 13 digits
		}
		if _, err := s.CreateContact(ws, ContactInput{Phone: phone}); err != nil {
			t.Fatal(err)
		}
	}
	cs, work, err := s.searchContacts(ws, "99999999999999") // 14 digits
	if err != nil || len(cs) != 0 || work.Records != 0 {
		t.Errorf("a 14-digit word found %d and read %d records (%v), want none of either", len(cs), work.Records, err)
	}
	if cs, _, err := s.searchContacts(ws, "8619999"); err != nil || len(cs) != 6 {
		t.Errorf("a 7-digit word in the 13-digit phones found %d (%v), want 6", len(cs), err)
	}
}
