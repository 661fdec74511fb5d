package store

import (
	"compress/gzip"
	"encoding/json"
	"io"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"testing"
	"time"

	"switchboard/store/kv"
)

// TestMigrateCompactContacts writes a schema-1 file (contacts as JSON under workspace|id, the
// old workspace-prefixed index buckets beside them), opens it, and expects every contact back
// unchanged, found by phone and by search, and the schema-1 buckets gone.
func TestMigrateCompactContacts(t *testing.T) {
	prev := migrateBatch
	migrateBatch = 2 // three contacts: two transactions
	t.Cleanup(func() { migrateBatch = prev })
	path := filepath.Join(t.TempDir(), "v1.db")
	s, err := Open(path, Options{})
	if err != nil {
		t.Fatal(err)
	}
	w, err := s.CreateWorkspace("Acme")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := s.AddProperty(w.ID, "plan", PropertyText); err != nil {
		t.Fatal(err)
	}
	str := func(v string) *string { return &v }
	var want []Contact
	for _, in := range []ContactInput{
		{Phone: "+14155550101", FirstName: str("José"), LastName: str("Núñez"), Email: str("jose@example.com"),
			Company: str("Globex"), Properties: map[string]any{"plan": "gold"}},
		{Phone: "+14155550102", FirstName: str("Ana")},
		{Phone: "+14155550103"},
	} {
		c, err := s.CreateContact(w.ID, in)
		if err != nil {
			t.Fatal(err)
		}
		want = append(want, c)
	}
	// A contact changed after it was made, with a blocked channel and a last inbound time.
	later := want[1].CreatedAt.Add(90 * time.Minute)
	want[1].UpdatedAt, want[1].LastInboundMessageTime = later, &later
	want[1].InboundChannels[0].BlockedAt = &later
	want[1].Flags = []string{"vip"}
	s.Close()

	// Rewrite the file as schema 1 wrote it.
	rewriteFile(t, path, func(tx *kv.Tx) error {
		for _, name := range [][]byte{bContacts, bContactPhone, bContactEmail, bContactTerms, bContactOrder, bContactNums} {
			if err := tx.DeleteBucket(name); err != nil {
				return err
			}
		}
		old, err := tx.CreateBucket(v1Contacts)
		if err != nil {
			return err
		}
		for _, c := range want {
			data, err := json.Marshal(c)
			if err != nil {
				return err
			}
			if err := old.Put(wsKey(w.ID, c.ID), data); err != nil {
				return err
			}
		}
		for _, name := range v1ContactIndex {
			b, err := tx.CreateBucket(name)
			if err != nil {
				return err
			}
			if err := b.Put(append(idKey(w.ID), 0, 'x'), []byte("old")); err != nil {
				return err
			}
		}
		return tx.Bucket(bMeta).Put([]byte("schema_version"), encodeUint(1))
	})

	s, err = Open(path, Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	if v, _ := s.SchemaVersion(); v != SchemaVersion || v < 2 {
		t.Fatalf("schema version %d after migration, want %d", v, SchemaVersion)
	}
	for _, c := range want {
		got, err := s.Contact(w.ID, c.ID)
		if err != nil {
			t.Fatal(err)
		}
		if !reflect.DeepEqual(got, c) {
			t.Errorf("contact after migration:\n got %+v\nwant %+v", got, c)
		}
		byPhone, err := s.ContactByPhone(w.ID, c.Phone())
		if err != nil || byPhone.ID != c.ID {
			t.Errorf("ContactByPhone(%s) = %s, %v; want %s", c.Phone(), byPhone.ID, err, c.ID)
		}
	}
	for q, wantIDs := range map[string][]string{
		"":                 {want[1].ID, want[0].ID, want[2].ID},
		"jose":             {want[0].ID},
		"jose@example.com": {want[0].ID},
		"0102":             {want[1].ID},
		"glob":             {want[0].ID},
	} {
		res, err := s.SearchContacts(w.ID, q)
		if err != nil {
			t.Fatal(err)
		}
		var ids []string
		for _, c := range res {
			ids = append(ids, c.ID)
		}
		if !slices.Equal(ids, wantIDs) {
			t.Errorf("search %q after migration = %v, want %v", q, ids, wantIDs)
		}
	}
	err = s.view(func(tx *kv.Tx) error {
		for _, name := range append([][]byte{v1Contacts}, v1ContactIndex...) {
			if tx.Bucket(name) != nil {
				t.Errorf("schema-1 bucket %s is still there", name)
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	// New contacts continue after the migrated ones, and the phone stays unique.
	if _, err := s.CreateContact(w.ID, ContactInput{Phone: "+14155550102"}); err == nil {
		t.Error("a migrated phone could be taken twice")
	}
	c, err := s.CreateContact(w.ID, ContactInput{Phone: "+14155550104", FirstName: str("Aaron")})
	if err != nil {
		t.Fatal(err)
	}
	if res, _ := s.SearchContacts(w.ID, ""); len(res) != 4 || res[0].ID != c.ID {
		t.Errorf("after migration a new contact lists as %v", res)
	}
}

// FuzzContactRecord: a record decodes to the contact it was encoded from, and no bytes make the
// decoder panic.
func FuzzContactRecord(f *testing.F) {
	f.Add("José", "Núñez", "ana+vip@example.com", "+14155550123", "01JD0000000000000000000000", int64(1_700_000_000_123_456_789), int64(0), true)
	f.Add("", "", "", "", "not-a-ulid", int64(-5), int64(1), false)
	f.Add("\x00", "\xff", "a", "+1", "", int64(0), int64(-1), true)
	// Channel ids just after the contact's (written as their distance), one carrying into the
	// next byte, one far after, one before it (both written whole).
	f.Add("Ana", "", "", "+14155550123", "01JD00000000000000000000AC", int64(1), int64(0), false)
	f.Add("Ana", "", "", "+14155550123", "01JD000000000000000000ZZZZ", int64(1), int64(0), false)
	f.Add("Ana", "", "", "+14155550123", "01JD00000000000ZZZZZZZZZZZ", int64(1), int64(0), false)
	f.Add("Ana", "", "", "+14155550123", "01JD00000000000000000000AA", int64(1), int64(0), false)
	f.Fuzz(func(t *testing.T, first, last, email, phone, chID string, created, updatedDelta int64, blocked bool) {
		at := time.Unix(0, created).UTC()
		c := Contact{ID: "01JD00000000000000000000AB", WorkspaceID: "01JD00000000000000000000WS", TenantID: "t",
			FirstName: first, LastName: last, Email: email, Flags: []string{}, Properties: map[string]any{},
			Source: SourceImport, Addresses: []Address{}, CreatedAt: at, UpdatedAt: at.Add(time.Duration(updatedDelta)),
			InboundChannels: []InboundChannel{{ID: chID, Address: phone, CommunicationType: CommSMS,
				ContactID: "01JD00000000000000000000AB", IsDefault: true, CreatedAt: at, UpdatedAt: at}}}
		if blocked {
			c.InboundChannels[0].BlockedAt = &at
		}
		rec, err := encodeContact(&c, 42, "t")
		if err != nil {
			t.Fatal(err)
		}
		got, num, err := decodeContact(rec, c.ID, c.WorkspaceID, "t")
		if err != nil || num != 42 || !reflect.DeepEqual(got, c) {
			t.Fatalf("decode(encode(%+v)) = %+v, %d, %v", c, got, num, err)
		}
		f, l, co, e, ph, err := recordText(rec)
		if err != nil || f != c.FirstName || l != c.LastName || co != c.Company || e != c.Email || ph != c.Phone() {
			t.Fatalf("recordText = %q %q %q %q %q, %v; want the contact's", f, l, co, e, ph, err)
		}
		// Arbitrary bytes: an error or a contact, never a panic.
		_, _, _ = decodeContact([]byte(first+last+email), c.ID, c.WorkspaceID, "t")
		_, _, _, _, _, _ = recordText([]byte(first + last + email))
		_, _, _ = decodeContact(append([]byte{contactRecordVersion, 1}, []byte(phone+chID)...), c.ID, c.WorkspaceID, "t")
	})
}

// TestMigrateSchema1File opens testdata/schema1.db.gz, written by the schema-1 binary (commit
// 698f156: `admin create-user`, `create-workspace`, `add-property plan`, `import-contacts` of
// four rows), and expects its contacts whole and found the schema-2 way.
func TestMigrateSchema1File(t *testing.T) {
	path := filepath.Join(t.TempDir(), "switchboard.db")
	gz, err := os.Open("testdata/schema1.db.gz")
	if err != nil {
		t.Fatal(err)
	}
	defer gz.Close()
	zr, err := gzip.NewReader(gz)
	if err != nil {
		t.Fatal(err)
	}
	data, err := io.ReadAll(zr)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, data, 0o600); err != nil {
		t.Fatal(err)
	}
	s, err := Open(path, Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	if v, _ := s.SchemaVersion(); v != SchemaVersion {
		t.Fatalf("schema %d after opening a schema-1 file, want %d", v, SchemaVersion)
	}
	wss, err := s.Workspaces()
	if err != nil || len(wss) != 1 {
		t.Fatalf("workspaces %v, %v", wss, err)
	}
	ws := wss[0].ID
	jose, err := s.ContactByPhone(ws, "+14155550101")
	if err != nil {
		t.Fatal(err)
	}
	if jose.FirstName != "José" || jose.LastName != "Núñez" || jose.Email != "jose@example.com" || jose.Company != "Globex" ||
		jose.Source != SourceImport || jose.Properties["plan"] != "gold" || jose.Phone() != "+14155550101" ||
		len(jose.InboundChannels) != 1 || jose.InboundChannels[0].ContactID != jose.ID || jose.CreatedAt.IsZero() {
		t.Errorf("migrated contact = %+v", jose)
	}
	names := func(q string) []string {
		res, err := s.SearchContacts(ws, q)
		if err != nil {
			t.Fatal(err)
		}
		var out []string
		for _, c := range res {
			out = append(out, c.FirstName+"|"+c.Phone())
		}
		return out
	}
	for q, want := range map[string][]string{
		"":                                  {"Ana|+14155550102", "José|+14155550101", "María|+442071234567", "|+14155550103"},
		"garcia":                            {"María|+442071234567"},
		"maria.garcia+vip@mail.example.com": {"María|+442071234567"},
		"0103":                              {"|+14155550103"},
		"+1 (415) 555-0102":                 {"Ana|+14155550102"},
		"cafe":                              {"María|+442071234567"},
	} {
		if got := names(q); !slices.Equal(got, want) {
			t.Errorf("search %q = %q, want %q", q, got, want)
		}
	}
}

// A new contact's default channel id is made right after the contact's, and its CreatedAt in
// the same millisecond as its id: its record keeps the distances, a few bytes, not the 16 of an
// id and the 9 of a time, and reads back the same.
func TestChannelIDAfterTheContactsIsShort(t *testing.T) {
	s, err := Open(filepath.Join(t.TempDir(), "switchboard.db"), Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	at := time.Unix(1_700_000_000, 0).UTC()
	id, chID := s.NewID(), s.NewID()
	c := Contact{ID: id, WorkspaceID: "01JD00000000000000000000WS", TenantID: "t", FirstName: "Ana", Flags: []string{},
		Properties: map[string]any{}, Source: SourceImport, Addresses: []Address{}, CreatedAt: at, UpdatedAt: at,
		InboundChannels: []InboundChannel{{ID: chID, Address: "+14155550123", CommunicationType: CommSMS,
			ContactID: id, IsDefault: true, CreatedAt: at, UpdatedAt: at}}}
	short, err := encodeContact(&c, 7, "t")
	if err != nil {
		t.Fatal(err)
	}
	far := c
	far.InboundChannels = []InboundChannel{c.InboundChannels[0]}
	far.InboundChannels[0].ID = "01JD00000000000000000000AA" // before the contact's: written whole
	long, err := encodeContact(&far, 7, "t")
	if err != nil {
		t.Fatal(err)
	}
	if len(long)-len(short) < 8 {
		t.Errorf("record %d bytes with the channel id just after the contact's, %d with another: want 8 or more saved", len(short), len(long))
	}
	got, _, err := decodeContact(short, id, c.WorkspaceID, "t")
	if err != nil || got.InboundChannels[0].ID != chID {
		t.Fatalf("channel id read back as %+v, %v; want %s", got.InboundChannels, err, chID)
	}
	// CreatedAt is kept as its distance from the id's millisecond, whatever that distance is.
	if !got.CreatedAt.Equal(at) {
		t.Errorf("created at %s, want %s", got.CreatedAt, at)
	}
}
