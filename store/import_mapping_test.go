package store_test

import (
	"slices"
	"strings"
	"testing"
	"unicode/utf8"

	"switchboard/store"
)

func TestSniffCSV(t *testing.T) {
	for _, tc := range []struct {
		name, head string
		want       rune
		err        string
	}{
		{"comma", "firstName,phone\nAna,+1415\n", ',', ""},
		{"semicolon", "firstName;phone;note\nAna;+1;a,b\n", ';', ""},
		{"BOM and semicolon", "\xef\xbb\xbfName;Phone\n", ';', ""},
		{"quoted delimiters do not count", "\"a;b;c\",phone\n", ',', ""},
		{"one column", "phone\n+14155550100\n", ',', ""},
		{"empty", "", 0, "empty"},
		{"only a BOM", "\xef\xbb\xbf\n", 0, "empty"},
		{"binary", "PK\x03\x04\x00\x00", 0, "not CSV"},
		{"Latin-1", "nom,t\xe9l\xe9phone\n", 0, "not UTF-8"},
		{"a rune cut at the end", "name\nJos\xc3", ',', ""},
	} {
		got, err := store.SniffCSV([]byte(tc.head))
		if tc.err != "" {
			if err == nil || !strings.Contains(err.Error(), tc.err) {
				t.Errorf("%s: error %v, want one saying %q", tc.name, err, tc.err)
			}
			continue
		}
		if err != nil || got != tc.want {
			t.Errorf("%s: %q %v, want %q", tc.name, got, err, tc.want)
		}
	}
}

func TestGuessMapping(t *testing.T) {
	headers := []string{"First Name", "SURNAME", "Mobile", "E-mail", "Organisation", "Plan", "Tags", "Opt-in date", "Phone", "Notes", "Time zone"}
	got := store.GuessMapping(headers, []string{"plan"})
	want := []string{"firstName", "lastName", "phone", "email", "company", "property:plan", "groups", "consentAt", "ignore", "ignore", "timeZone"}
	if !slices.Equal(got, want) {
		t.Errorf("GuessMapping:\n got %q\nwant %q", got, want)
	}
}

func TestNormalizePhone(t *testing.T) {
	for in, want := range map[string]string{
		"(415) 555-0123":   "+14155550123",
		"415.555.0123":     "+14155550123",
		"1 415 555 0123":   "+14155550123",
		"+14155550123":     "+14155550123",
		"+44 20 7123 4567": "+442071234567",
		"555":              "555",
		"not a number":     "not a number",
	} {
		if got := store.NormalizePhone(in, "US"); got != want {
			t.Errorf("NormalizePhone(%q) = %q, want %q", in, got, want)
		}
	}
}

func TestNewMappingRefusals(t *testing.T) {
	for _, tc := range []struct {
		targets []string
		want    string
	}{
		{[]string{"firstName", "ignore"}, "map one column to phone"},
		{[]string{"phone", "phone"}, "already mapped"},
		{[]string{"phone", "property:nope"}, "no custom property"},
		{[]string{"phone", "colour"}, "unknown target"},
	} {
		_, err := store.NewMapping(tc.targets, []string{"plan"}, "US")
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("NewMapping(%q): %v, want %q", tc.targets, err, tc.want)
		}
	}
	m, err := store.NewMapping([]string{"ignore", "property:plan", "phone", "consentAt"}, []string{"plan"}, "US")
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(m.Header(), []string{"plan", "phone", "consentAt"}) {
		t.Errorf("header %q", m.Header())
	}
	if got := m.Row([]string{"x", "gold\nplus", "(415) 555-0123", "2026-01-01"}, 4); !slices.Equal(got, []string{"gold plus", "+14155550123", "2026-01-01"}) {
		t.Errorf("row %q", got)
	}
	if got := m.Row([]string{"short"}, 4); len(got) != 4 {
		t.Errorf("a short record: %q, want 3 fields (one too many)", got)
	}
}

// PreviewImport applies the import's own rules: a bad row says why, a good one shows what is
// stored.
func TestPreviewImport(t *testing.T) {
	f := newFixture(t)
	if _, err := f.s.AddProperty(f.ws, "plan", store.PropertyNumber); err != nil {
		t.Fatal(err)
	}
	rows, err := f.s.PreviewImport(f.ws, []string{"firstName", "phone", "plan", "groups"}, [][]string{
		{"Ana", "+14155550123", "3", "VIP; Staff"},
		{"Bo", "415", "x", ""},
	})
	if err != nil {
		t.Fatal(err)
	}
	if rows[0].Problem != "" || rows[0].FirstName != "Ana" || !slices.Equal(rows[0].Groups, []string{"VIP", "Staff"}) {
		t.Errorf("good row: %+v", rows[0])
	}
	parts := store.SplitImportReason(rows[1].Problem)
	if len(parts) != 2 || parts[0][0] != "phone" || parts[1][0] != "properties.plan" {
		t.Errorf("bad row's problems: %q", parts)
	}
}

func FuzzImportMapping(f *testing.F) {
	f.Add([]byte("First Name;Phone;Plan\nAna;(415) 555-0123;gold\n"), "phone")
	f.Add([]byte("\xef\xbb\xbf\"a,b\",tel\n\"x\ny\",+1\n"), "ignore")
	f.Add([]byte("\x00\xff"), "")
	f.Fuzz(func(t *testing.T, head []byte, extra string) {
		delim, err := store.SniffCSV(head)
		if err != nil {
			return
		}
		if delim != ',' && delim != ';' {
			t.Fatalf("delimiter %q", delim)
		}
		headers := strings.Split(strings.SplitN(string(head), "\n", 2)[0], string(delim))
		targets := store.GuessMapping(append(headers, extra), []string{"plan"})
		if len(targets) != len(headers)+1 {
			t.Fatalf("%d targets for %d headers", len(targets), len(headers)+1)
		}
		m, err := store.NewMapping(targets, []string{"plan"}, "US")
		if err != nil {
			return
		}
		row := m.Row(append(headers, extra), len(targets))
		if len(row) != len(m.Header()) {
			t.Fatalf("row of %d fields under a header of %d", len(row), len(m.Header()))
		}
		for _, c := range row {
			if strings.ContainsAny(c, "\r\n") {
				t.Fatalf("cell %q keeps a line break", c)
			}
			if !utf8.ValidString(c) && utf8.ValidString(strings.Join(headers, "")+extra) {
				t.Fatalf("cell %q is not UTF-8", c)
			}
		}
	})
}
