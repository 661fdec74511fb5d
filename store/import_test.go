package store

import (
	"bytes"
	"encoding/csv"
	"errors"
	"fmt"
	"io"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"switchboard/store/kv"
)

// impStore opens a fresh store with one workspace that has the custom properties
// plan (text), score (number), vip (boolean) and since (date).
func impStore(t testing.TB) (*Store, string) {
	t.Helper()
	s, ws, _ := impStoreAt(t)
	return s, ws
}

// impStoreAt is impStore also returning the file's path, for tests that read it raw once they
// have closed the store (closing it again when the test ends does nothing).
func impStoreAt(t testing.TB) (*Store, string, string) {
	t.Helper()
	path := filepath.Join(t.TempDir(), "import.db")
	s, err := Open(path, Options{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close() })
	return s, impWorkspace(t, s), path
}

// personsCSV is an import of n contacts, numbered from +14155000000 on, each with a name and
// an email of its own.
func personsCSV(n int) string {
	var b strings.Builder
	b.WriteString("phone,firstName,lastName,email\n")
	for i := range n {
		fmt.Fprintf(&b, "+1415%07d,Name%d,Surname%d,person%d@example.com\n", 5000000+i, i, i, i)
	}
	return b.String()
}

func impWorkspace(t testing.TB, s *Store) string {
	t.Helper()
	w, err := s.CreateWorkspace("Import")
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range [][2]string{{"plan", PropertyText}, {"score", PropertyNumber}, {"vip", PropertyBoolean}, {"since", PropertyDate}} {
		if _, err := s.AddProperty(w.ID, p[0], p[1]); err != nil {
			t.Fatal(err)
		}
	}
	return w.ID
}

// impCount counts the workspace's contacts and its entries in every contact index bucket.
func impCount(t testing.TB, s *Store, ws string) (contacts, indexEntries int) {
	t.Helper()
	wsID, _ := ParseID(ws)
	err := s.view(func(tx *kv.Tx) error {
		contacts = countPrefix(tx.Bucket(bContacts).Bucket(wsID[:]), nil)
		for _, b := range contactIndexBuckets {
			indexEntries += countPrefix(tx.Bucket(b).Bucket(wsID[:]), nil)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return contacts, indexEntries
}

func countPrefix(b *kv.Bucket, prefix []byte) int {
	n := 0
	if b == nil {
		return 0
	}
	c := b.Cursor()
	for k, _ := c.Seek(prefix); k != nil && bytes.HasPrefix(k, prefix); k, _ = c.Next() {
		n++
	}
	return n
}

func impRun(t testing.TB, s *Store, ws, csvText string) ImportReport {
	t.Helper()
	rep, err := s.ImportContacts(ws, strings.NewReader(csvText), nil)
	if err != nil {
		t.Fatalf("ImportContacts: %v", err)
	}
	return rep
}

func TestImportContactsHeader(t *testing.T) {
	for _, tc := range []struct {
		name, csv string
		err       string // "" when the header is good
	}{
		{"base columns any case and order", "EMAIL,Phone,company,LASTNAME,firstname\nana@example.com,+14155550101,Acme,Lima,Ana\n", ""},
		{"phone alone", "phone\n+14155550101\n", ""},
		{"properties by exact name", "phone,plan,score,vip,since\n+14155550101,pro,3,true,2027-02-28\n", ""},
		{"spaces around names", " phone , plan \n+14155550101,pro\n", ""},
		{"byte order mark", "\xef\xbb\xbfphone,firstName\n+14155550101,Ana\n", ""},
		{"unknown column", "phone,firstName,nickname\n+14155550101,Ana,Annie\n", `unknown column "nickname"`},
		{"property name is case-sensitive", "phone,Plan\n+14155550101,pro\n", `unknown column "Plan"`},
		{"phone column required", "firstName,lastName\nAna,Lima\n", "the phone column is required"},
		{"repeated column", "phone,email,Email\n+14155550101,a@example.com,b@example.com\n", `column "Email" appears twice`},
		{"repeated property", "phone,plan,plan\n+14155550101,a,b\n", `column "plan" appears twice`},
		{"empty column name", "phone,,email\n+14155550101,x,a@example.com\n", "column 2 has no name"},
		{"empty file", "", "the file is empty"},
		{"header not CSV", "phone,\"first\"Name\n", "is not valid CSV"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s, ws := impStore(t)
			rep, err := s.ImportContacts(ws, strings.NewReader(tc.csv), nil)
			contacts, _ := impCount(t, s, ws)
			if tc.err == "" {
				if err != nil || rep.Imported != 1 || contacts != 1 {
					t.Fatalf("want 1 contact imported, got %+v, %v (%d contacts)", rep, err, contacts)
				}
				return
			}
			var verr ValidationError
			if !errors.As(err, &verr) || verr[0].Field != "header" || !strings.Contains(verr[0].Message, tc.err) {
				t.Fatalf("want a header error containing %q, got %v", tc.err, err)
			}
			if contacts != 0 || rep.Rows != 0 {
				t.Fatalf("a refused file must write nothing: %d contacts, report %+v", contacts, rep)
			}
		})
	}
}

func TestImportContactsUnknownColumnWritesNothing(t *testing.T) {
	s, ws := impStore(t)
	var b strings.Builder
	b.WriteString("firstName,phone,favouriteColour\n")
	for i := range 50 {
		fmt.Fprintf(&b, "Ana,+1415555%04d,blue\n", i)
	}
	rep, err := s.ImportContacts(ws, strings.NewReader(b.String()), func(ImportProgress) { t.Error("progress called") })
	var verr ValidationError
	if !errors.As(err, &verr) || !strings.Contains(err.Error(), `unknown column "favouriteColour"`) {
		t.Fatalf("want unknown column error, got %v", err)
	}
	if contacts, idx := impCount(t, s, ws); contacts != 0 || idx != 0 || rep.Imported+rep.Updated+rep.Rejected != 0 {
		t.Fatalf("want nothing written, got %d contacts, %d index entries, %+v", contacts, idx, rep)
	}
}

func TestImportContactsUnknownWorkspace(t *testing.T) {
	s, _ := impStore(t)
	_, err := s.ImportContacts(s.NewID(), strings.NewReader("phone\n+14155550101\n"), nil)
	if !errors.Is(err, ErrNotFound) {
		t.Fatalf("want ErrNotFound, got %v", err)
	}
}

func TestImportContactsRerunUpdates(t *testing.T) {
	s, ws := impStore(t)
	first := "firstName,lastName,phone,email,company,plan\n" +
		"Ana,Lima,+14155550101,ana@example.com,Acme,free\n" +
		"Bo,Berg,+14155550102,,,\n" +
		"Cy,Chan,+14155550103,cy@example.com,,pro\n"
	rep := impRun(t, s, ws, first)
	if rep.Rows != 3 || rep.Imported != 3 || rep.Updated != 0 || rep.Rejected != 0 {
		t.Fatalf("first run: want 3 imported, got %+v", rep)
	}
	c, err := s.ContactByPhone(ws, "+14155550101")
	if err != nil || c.Source != SourceImport || c.FirstName != "Ana" || c.Company != "Acme" || c.Properties["plan"] != "free" {
		t.Fatalf("imported contact: %+v, %v", c, err)
	}

	// The same file again changes nothing but counts every row as updated; a changed file
	// updates the given fields only, and a new phone is imported.
	if rep := impRun(t, s, ws, first); rep.Imported != 0 || rep.Updated != 3 {
		t.Fatalf("second run: want 3 updated, got %+v", rep)
	}
	second := "phone,lastName,plan,email\n" +
		"+14155550101,Lima-Souza,,\n" +
		"+14155550104,Diaz,starter,dee@example.com\n"
	rep = impRun(t, s, ws, second)
	if rep.Imported != 1 || rep.Updated != 1 || rep.Rejected != 0 {
		t.Fatalf("third run: want 1 imported and 1 updated, got %+v", rep)
	}
	c, _ = s.ContactByPhone(ws, "+14155550101")
	if c.FirstName != "Ana" || c.LastName != "Lima-Souza" || c.Email != "ana@example.com" || c.Properties["plan"] != "free" {
		t.Fatalf("empty cells must leave fields unchanged: %+v", c)
	}
	if contacts, _ := impCount(t, s, ws); contacts != 4 {
		t.Fatalf("want 4 contacts, got %d", contacts)
	}
	// The index followed the update: the new last name is searchable, and only once.
	res, err := s.SearchContacts(ws, "souza")
	if err != nil || len(res) != 1 || res[0].ID != c.ID {
		t.Fatalf("search souza: %v, %v", res, err)
	}
	if res, _ := s.SearchContacts(ws, "dee@example.com"); len(res) != 1 || res[0].LastName != "Diaz" {
		t.Fatalf("search by email: %v", res)
	}
}

func TestImportContactsSamePhoneTwice(t *testing.T) {
	s, ws := impStore(t)
	rep := impRun(t, s, ws, "phone,firstName,lastName\n+14155550101,Ana,Lima\n+14155550101,Anna,\n")
	if rep.Imported != 1 || rep.Updated != 1 {
		t.Fatalf("want 1 imported and 1 updated, got %+v", rep)
	}
	c, _ := s.ContactByPhone(ws, "+14155550101")
	if c.FirstName != "Anna" || c.LastName != "Lima" {
		t.Fatalf("the later row must update the earlier: %+v", c)
	}
	if contacts, _ := impCount(t, s, ws); contacts != 1 {
		t.Fatalf("want 1 contact, got %d", contacts)
	}
}

func TestImportContactsRejectsRows(t *testing.T) {
	s, ws := impStore(t)
	long := strings.Repeat("é", 256)
	in := "firstName,lastName,phone,email,score,since\n" + // line 1
		"Ana,Lima,+14155550101,ana@example.com,1,2027-01-31\n" + // 2 good
		"Bo,,415 555,,,\n" + // 3 too short for a number
		"Cy,,,,,\n" + // 4 no phone
		"Di,,+14155550104,not-an-email,,\n" + // 5 bad email
		long + ",,+14155550105,,,\n" + // 6 long first name
		"Ed,,+14155550106,,,\n" + // 7 good
		"Fa,,+14155550107\n" + // 8 too few fields
		"Gu,,+14155550108,,many,\n" + // 9 bad number
		"Hu,,+14155550109,,,2027-02-30\n" + // 10 impossible date
		"\"Iv\nIvanova\",,+14155550110,,,\n" + // 11-12 quoted newline: good
		"Jo,ba\"d,+14155550111,,,\n" + // 13 CSV syntax
		"Ka,,04155550112,Ka <ka@example.com>,,\n" + // 14 two problems
		"\n" + // 15 blank lines are skipped
		"Lu,,+14155550113,,2.5e3,\n" // 16 good
	rep := impRun(t, s, ws, in)
	want := []ImportRowError{
		{3, "phone: " + importPhoneMessage("US")},
		{4, "phone: is required"},
		{5, "email: must be an email address such as ana@example.com"},
		{6, "firstName: must be at most 255 characters"},
		{8, "has 3 fields, the header has 6"},
		{9, "properties.score: must be a number such as 42 or -1.5"},
		{10, "properties.since: must be a calendar date YYYY-MM-DD"},
		{13, "is not valid CSV: " + csv.ErrBareQuote.Error()},
		{14, "phone: " + importPhoneMessage("US") + "; email: must be an email address such as ana@example.com"},
	}
	if !slices.Equal(rep.Errors, want) {
		t.Errorf("rejected rows:\n got %+v\nwant %+v", rep.Errors, want)
	}
	if rep.Rows != 13 || rep.Imported != 4 || rep.Updated != 0 || rep.Rejected != len(want) {
		t.Errorf("want 13 rows, 4 imported and %d rejected, got %+v", len(want), rep)
	}
	if c, err := s.ContactByPhone(ws, "+14155550110"); err != nil || c.FirstName != "Iv\nIvanova" {
		t.Errorf("multi-line field: %+v, %v", c, err)
	}
}

func TestImportContactsErrorListIsCapped(t *testing.T) {
	s, ws := impStore(t)
	var b strings.Builder
	b.WriteString("phone\n")
	for range MaxImportErrors + 200 {
		b.WriteString("555\n")
	}
	b.WriteString("+14155550101\n")
	rep := impRun(t, s, ws, b.String())
	if rep.Rejected != MaxImportErrors+200 || len(rep.Errors) != MaxImportErrors || rep.Imported != 1 {
		t.Fatalf("want %d rejected, %d listed, 1 imported; got %d, %d, %d",
			MaxImportErrors+200, MaxImportErrors, rep.Rejected, len(rep.Errors), rep.Imported)
	}
	if last := rep.Errors[len(rep.Errors)-1]; last.Line != MaxImportErrors+1 {
		t.Fatalf("want the first rows listed, last listed line %d", last.Line)
	}
}

func TestImportContactsPropertyTypes(t *testing.T) {
	for _, tc := range []struct {
		column, cell string
		want         any    // stored value (after a round trip through the database)
		reason       string // rejection, "" when accepted
	}{
		{"plan", "Pro plan; yearly", "Pro plan; yearly", ""},
		{"plan", "  padded  ", "padded", ""},
		{"plan", strings.Repeat("ü", 255), strings.Repeat("ü", 255), ""},
		{"plan", strings.Repeat("ü", 256), nil, "properties.plan: must be at most 255 characters"},
		{"score", "42", 42.0, ""},
		{"score", "-1.5", -1.5, ""},
		{"score", "2.5E3", 2500.0, ""},
		{"score", "0", 0.0, ""},
		{"score", "007", nil, "properties.score: must be a number such as 42 or -1.5"},
		{"score", "1,5", nil, "has 3 fields, the header has 2"},
		{"score", "NaN", nil, "properties.score: must be a number such as 42 or -1.5"},
		{"score", "0x10", nil, "properties.score: must be a number such as 42 or -1.5"},
		{"score", "1e400", nil, "properties.score: must be a number such as 42 or -1.5"},
		{"vip", "true", true, ""},
		{"vip", "FALSE", false, ""},
		{"vip", "Yes", true, ""},
		{"vip", "no", false, ""},
		{"vip", "1", true, ""},
		{"vip", "0", false, ""},
		{"vip", "maybe", nil, "properties.vip: must be true or false"},
		{"since", "2028-02-29", "2028-02-29", ""},
		{"since", "2027-02-29", nil, "properties.since: must be a calendar date YYYY-MM-DD"},
		{"since", "2027-2-3", nil, "properties.since: must be a calendar date YYYY-MM-DD"},
		{"since", "03/02/2027", nil, "properties.since: must be a calendar date YYYY-MM-DD"},
	} {
		t.Run(tc.column+"="+tc.cell[:min(len(tc.cell), 12)], func(t *testing.T) {
			s, ws := impStore(t)
			rep := impRun(t, s, ws, "phone,"+tc.column+"\n+14155550101,"+tc.cell+"\n")
			if tc.reason != "" {
				if rep.Rejected != 1 || len(rep.Errors) != 1 || rep.Errors[0] != (ImportRowError{2, tc.reason}) {
					t.Fatalf("want line 2 rejected with %q, got %+v", tc.reason, rep)
				}
				return
			}
			if rep.Imported != 1 {
				t.Fatalf("want the row imported, got %+v", rep)
			}
			c, err := s.ContactByPhone(ws, "+14155550101")
			if err != nil || c.Properties[tc.column] != tc.want {
				t.Fatalf("want %s = %#v, got %#v (%v)", tc.column, tc.want, c.Properties[tc.column], err)
			}
		})
	}
}

// TestImportContactsBatches imports more rows than one transaction takes: progress is reported
// per batch, every row gets its contact.created event, and the contacts are searchable.
func TestImportContactsBatches(t *testing.T) {
	s, ws := impStore(t)
	if _, err := s.Subscribe(ws, "", EventContactCreated, "https://hooks.example.com/x"); err != nil {
		t.Fatal(err)
	}
	const n = 1000
	var b strings.Builder
	b.WriteString("firstName,lastName,phone,email\n")
	for i := range n {
		fmt.Fprintf(&b, "Name%d,Family%d,+1415556%04d,n%d@example.com\n", i%7, i%11, i, i)
	}
	var calls []ImportProgress
	rep, err := s.ImportContacts(ws, strings.NewReader(b.String()), func(p ImportProgress) { calls = append(calls, p) })
	if err != nil || rep.Imported != n || rep.Rows != n {
		t.Fatalf("want %d imported, got %+v, %v", n, rep, err)
	}
	if len(calls) < 3 || calls[len(calls)-1].Rows != n || calls[len(calls)-1].Imported != n {
		t.Fatalf("want progress per batch ending at %d rows, got %+v", n, calls)
	}
	for i := 1; i < len(calls); i++ {
		if calls[i].Rows <= calls[i-1].Rows {
			t.Fatalf("progress must grow: %+v", calls)
		}
	}
	var deliveries int
	s.view(func(tx *kv.Tx) error {
		deliveries = tx.Bucket(bDeliveries).Stats().KeyN
		return nil
	})
	if deliveries != n {
		t.Fatalf("want %d contact.created deliveries, got %d", n, deliveries)
	}
	res, err := s.SearchContacts(ws, "name3 family5")
	if err != nil || len(res) == 0 {
		t.Fatalf("search: %v, %v", res, err)
	}
	for _, c := range res {
		if c.FirstName != "Name3" || c.LastName != "Family5" {
			t.Fatalf("search returned %s %s", c.FirstName, c.LastName)
		}
	}
}

// FuzzImportContacts feeds arbitrary bytes as a CSV file: the import must not panic, and either
// refuses the file (writing nothing) or accounts for every data row as imported, updated or
// rejected, with exactly the imported ones stored.
func FuzzImportContacts(f *testing.F) {
	for _, seed := range []string{
		"firstName,lastName,phone,email,company\nAna,Lima,+14155550101,ana@example.com,Acme\n",
		"phone,plan,score,vip,since\n+14155550101,pro,1.5,yes,2027-02-28\n+14155550101,,x,maybe,2027-02-30\n",
		"phone\n+14155550101\n+14155550101\n\n555\n",
		"PHONE,Email\n+1,\"a\"b\n\"unterminated\n",
		"\xef\xbb\xbfphone,firstName\n+14155550101,\xff\xfe\n",
		"phone,nickname\n+14155550101,x\n",
		"",
		"\"",
		"phone\r\n+14155550101\r\n+4420794600\r\n",
	} {
		f.Add([]byte(seed))
	}
	s, err := Open(filepath.Join(f.TempDir(), "fuzz.db"), Options{})
	if err != nil {
		f.Fatal(err)
	}
	defer s.Close()
	ws := impWorkspace(f, s) // shared: phones of earlier inputs make rows updates
	f.Fuzz(func(t *testing.T, data []byte) {
		before, beforeIdx := impCount(t, s, ws)
		rep, err := s.ImportContacts(ws, bytes.NewReader(data), nil)
		after, afterIdx := impCount(t, s, ws)
		contacts := after - before
		if err != nil {
			if contacts != 0 || afterIdx != beforeIdx || rep.Imported+rep.Updated+rep.Rejected != 0 {
				t.Fatalf("a refused file wrote %d contacts: %+v, %v", contacts, rep, err)
			}
			return
		}
		if rows := impCSVRows(data); rep.Rows != rows {
			t.Fatalf("read %d rows, encoding/csv finds %d", rep.Rows, rows)
		}
		if rep.Imported+rep.Updated+rep.Rejected != rep.Rows {
			t.Fatalf("rows unaccounted for: %+v", rep)
		}
		if contacts != rep.Imported {
			t.Fatalf("imported %d but %d new contacts stored", rep.Imported, contacts)
		}
		if len(rep.Errors) != min(rep.Rejected, MaxImportErrors) {
			t.Fatalf("%d rejected, %d listed", rep.Rejected, len(rep.Errors))
		}
	})
}

// impCSVRows counts the data rows encoding/csv reads from data, as the import reads them.
func impCSVRows(data []byte) int {
	r := csv.NewReader(bytes.NewReader(bytes.TrimPrefix(data, []byte("\xef\xbb\xbf"))))
	r.FieldsPerRecord = -1
	n := -1 // the header
	for {
		if _, err := r.Read(); errors.Is(err, io.EOF) {
			return max(n, 0)
		}
		n++
	}
}

// TestImportContactsGroupsAndTimeZone: the groups column (";"-separated names, groups created
// when missing, a member counted once however often a file names it) and the timeZone column.
func TestImportContactsGroupsAndTimeZone(t *testing.T) {
	s, ws := impStore(t)
	if _, err := s.CreateGroup(ws, "VIP"); err != nil {
		t.Fatal(err)
	}
	rep := impRun(t, s, ws, "phone,firstName,groups,timeZone\n"+
		"+14155550101,Ana,vip; Newsletter ;,America/Chicago\n"+
		"+14155550102,Bo,Newsletter;newsletter,\n"+
		"+14155550101,Ana,VIP,\n"+ // the same contact again, in the same batch
		"+14155550103,Cy,,Mars/Olympus\n")
	if rep.Imported != 2 || rep.Updated != 1 || rep.Rejected != 1 {
		t.Fatalf("report %+v, want 2 imported, 1 updated, 1 rejected (the bad zone)", rep)
	}
	if len(rep.Errors) != 1 || !strings.Contains(rep.Errors[0].Reason, "timeZone") || rep.Errors[0].Line != 5 {
		t.Errorf("errors %+v, want line 5 on timeZone", rep.Errors)
	}
	groups, _ := s.Groups(ws)
	sizes := map[string]int{}
	for _, g := range groups {
		sizes[g.Name] = g.Size
	}
	if len(groups) != 2 || sizes["VIP"] != 1 || sizes["Newsletter"] != 2 {
		t.Errorf("groups %v, want VIP 1 (existing group, member once) and Newsletter 2 (created)", sizes)
	}
	ana, _ := s.ContactByPhone(ws, "+14155550101")
	if ana.TimeZone != "America/Chicago" {
		t.Errorf("Ana's time zone %q, want America/Chicago (kept when a later row leaves it empty)", ana.TimeZone)
	}
	vip, _ := s.GroupByName(ws, "VIP")
	if ids, _ := s.GroupMemberIDs(ws, vip.ID); len(ids) != 1 || ids[0] != ana.ID {
		t.Errorf("VIP members %v, want Ana", ids)
	}
}
