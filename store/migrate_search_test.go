package store

import (
	"bytes"
	"fmt"
	"path/filepath"
	"slices"
	"testing"

	bolt "go.etcd.io/bbolt"

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
	db, err := bolt.Open(path, 0o600, nil)
	if err != nil {
		t.Fatal(err)
	}
	err = rawUpdate(db, func(tx *kv.Tx) error {
		b := index.WsBucket(tx, bContactTerms, idKey(w.ID))
		c := b.Cursor()
		for k, _ := c.Seek([]byte("m")); k != nil && k[0] == 'm'; k, _ = c.Seek([]byte("m")) {
			if err := b.Delete(bytes.Clone(k)); err != nil {
				return err
			}
		}
		return tx.Bucket(bMeta).Put(metaSchemaVersion, encodeUint(6))
	})
	db.Close()
	if err != nil {
		t.Fatal(err)
	}

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
