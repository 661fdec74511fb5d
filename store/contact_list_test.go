package store_test

import (
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	"switchboard/internal/testutil"
	"switchboard/store"
)

func boolp(b bool) *bool { return &b }

// TestListContactsFiltersCountsAndPages: the list counts every match, pages through them with a
// cursor without repeats, and each filter keeps what it says.
func TestListContactsFiltersCountsAndPages(t *testing.T) {
	clock := testutil.NewClock(time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC))
	f := newFixtureOn(t, openStore(t, store.Options{Now: clock.Now}))
	for i := range 25 {
		csv := "firstName,phone\n"
		for j := range 10 {
			csv += fmt.Sprintf("N%03d,+1415556%04d\n", i*10+j, i*10+j)
		}
		importCSV(t, f, csv)
		clock.Advance(10 * time.Minute)
	}
	ids := allIDs(t, f)
	g, _ := f.s.CreateGroup(f.ws, "VIP")
	if n, err := f.s.BulkAddToGroup(f.ws, g.ID, ids[:30]); err != nil || n != 30 {
		t.Fatalf("BulkAddToGroup: %d %v", n, err)
	}
	if n, err := f.s.BulkOptOut(f.ws, f.user.ID, store.OptOutAdmin, ids[20:40]); err != nil || n != 20 {
		t.Fatalf("BulkOptOut: %d %v", n, err)
	}
	if _, err := f.s.SendMessage(f.ws, store.SendInput{From: f.number, To: []string{"+14155560005"}, Text: "hi"}); err != nil {
		t.Fatal(err)
	}
	if n, err := f.s.BulkDeleteContacts(f.ws, ids[240:]); err != nil || n != 10 {
		t.Fatalf("BulkDeleteContacts: %d %v", n, err)
	}

	count := func(flt store.ContactFilter) int {
		t.Helper()
		p, err := f.s.ListContacts(f.ws, flt, "", 100)
		if err != nil {
			t.Fatalf("ListContacts(%+v): %v", flt, err)
		}
		return p.Total
	}
	for _, tc := range []struct {
		name string
		flt  store.ContactFilter
		want int
	}{
		{"all", store.ContactFilter{}, 240},
		{"group", store.ContactFilter{GroupID: g.ID}, 30},
		{"opted out", store.ContactFilter{OptedOut: boolp(true)}, 20},
		{"not opted out", store.ContactFilter{OptedOut: boolp(false)}, 220},
		{"group and not opted out", store.ContactFilter{GroupID: g.ID, OptedOut: boolp(false)}, 20},
		{"has a conversation", store.ContactFilter{HasConversation: boolp(true)}, 1},
		{"created after", store.ContactFilter{CreatedAfter: time.Date(2026, 1, 1, 3, 0, 0, 0, time.UTC)}, 60},
	} {
		if got := count(tc.flt); got != tc.want {
			t.Errorf("%s: %d contacts, want %d", tc.name, got, tc.want)
		}
	}
	if n, _ := f.s.CountAllContacts(f.ws); n != 240 {
		t.Errorf("CountAllContacts = %d, want 240", n)
	}

	for _, newest := range []bool{false, true} {
		seen, cursor, pages := map[string]bool{}, "", 0
		var firstName string
		for {
			p, err := f.s.ListContacts(f.ws, store.ContactFilter{Newest: newest}, cursor, 100)
			if err != nil {
				t.Fatal(err)
			}
			if pages == 0 {
				firstName = p.Contacts[0].FirstName
			}
			pages++
			for _, c := range p.Contacts {
				if seen[c.ID] {
					t.Fatalf("newest=%v: %s listed twice", newest, c.FirstName)
				}
				seen[c.ID] = true
			}
			if p.Next == "" {
				break
			}
			cursor = p.Next
		}
		if len(seen) != 240 || pages != 3 {
			t.Errorf("newest=%v: %d contacts in %d pages, want 240 in 3", newest, len(seen), pages)
		}
		want := "N000"
		if newest {
			want = "N239"
		}
		if firstName != want {
			t.Errorf("newest=%v: first contact %s, want %s", newest, firstName, want)
		}
	}
}

// TestExportContactsRows: the export gives every matching contact once, with its group names
// and its opt-out.
func TestExportContactsRows(t *testing.T) {
	f := newFixture(t)
	var b strings.Builder
	b.WriteString("phone\n")
	for i := range 2500 {
		fmt.Fprintf(&b, "+1415557%04d\n", i)
	}
	importCSV(t, f, b.String())
	ids := allIDs(t, f)
	g, _ := f.s.CreateGroup(f.ws, "Gold")
	f.s.BulkAddToGroup(f.ws, g.ID, ids[:2])
	f.s.BulkOptOut(f.ws, "", store.OptOutAdmin, ids[1:2])
	rows := map[string]store.ExportRow{}
	err := f.s.ExportContacts(f.ws, store.ContactFilter{}, func(r store.ExportRow) error {
		if _, dup := rows[r.Contact.ID]; dup {
			t.Fatalf("%s exported twice", r.Contact.ID)
		}
		rows[r.Contact.ID] = r
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if len(rows) != 2500 {
		t.Fatalf("exported %d, want 2500", len(rows))
	}
	if r := rows[ids[1]]; len(r.Groups) != 1 || r.Groups[0] != "Gold" || r.OptOut == nil || r.OptOut.Reason != store.OptOutAdmin {
		t.Errorf("row of a grouped, opted-out contact: %+v", r)
	}
	if r := rows[ids[5]]; len(r.Groups) != 0 || r.OptOut != nil {
		t.Errorf("row of a plain contact: %+v", r)
	}
}

func importCSV(t *testing.T, f *fixture, csv string) {
	t.Helper()
	if rep, err := f.s.ImportContacts(f.ws, strings.NewReader(csv), nil); err != nil || rep.Rejected > 0 {
		t.Fatalf("ImportContacts: %+v %v", rep, err)
	}
}

// allIDs lists the workspace's contact ids in creation order.
func allIDs(t *testing.T, f *fixture) []string {
	t.Helper()
	var ids []string
	err := f.s.ContactIDs(f.ws, store.ContactFilter{Newest: true}, 1000, func(chunk []string) error {
		ids = append(ids, chunk...)
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	slices.Reverse(ids)
	return ids
}
