package store_test

import (
	"bytes"
	"encoding/csv"
	"fmt"
	"math/rand/v2"
	"slices"
	"testing"

	"switchboard/store"
)

// listAll pages through the list of flt, 7 at a time, and returns every id in order; it fails
// the test on a repeated id or a count that is not the number of rows.
func listAll(t testing.TB, s *store.Store, ws string, flt store.ContactFilter) []string {
	t.Helper()
	var out []string
	seen := map[string]bool{}
	cursor, total := "", -1
	for {
		p, err := s.ListContacts(ws, flt, cursor, 7)
		if err != nil {
			t.Fatalf("ListContacts(%+v, %q): %v", flt, cursor, err)
		}
		if total >= 0 && p.Total != total {
			t.Fatalf("ListContacts(%+v): the count changed from %d to %d between pages", flt, total, p.Total)
		}
		total = p.Total
		for _, c := range p.Contacts {
			if seen[c.ID] {
				t.Fatalf("ListContacts(%+v): %s on two pages", flt, c.ID)
			}
			seen[c.ID] = true
			out = append(out, c.ID)
		}
		if p.Next == "" {
			break
		}
		cursor = p.Next
	}
	if len(out) != total {
		t.Fatalf("ListContacts(%+v): counted %d, paged through %d", flt, total, len(out))
	}
	return out
}

// A search in the contacts list is a list like any other (issue 38, items 1–3): every match,
// counted, paged with a cursor, in the list's own order (by name or newest) — the same order as
// the whole list with the other contacts left out — and the same matches in the export and in
// the ids a bulk action walks. The matches are the reference search's, over random contacts and
// queries, the filters combined.
func TestSearchListIsEveryMatchInListOrder(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	rng := rand.New(rand.NewPCG(38, 1))
	var ins []store.ContactInput
	for i := range 260 {
		phone := fmt.Sprintf("+1%s555%04d", []string{"415", "212", "650"}[rng.IntN(3)], i)
		if i%19 == 0 {
			phone = fmt.Sprintf("+44207%06d", rng.IntN(1_000_000))
		}
		ins = append(ins, randomContact(rng, phone))
	}
	all, err := store.BulkContacts(f.s, f.ws, ins)
	if err != nil {
		t.Fatal(err)
	}
	g, _ := f.s.CreateGroup(f.ws, "Tuesday patients")
	var members []string
	for i := 0; i < len(all); i += 3 {
		members = append(members, all[i].ID)
	}
	if _, err := f.s.BulkAddToGroup(f.ws, g.ID, members); err != nil {
		t.Fatal(err)
	}
	inGroup := map[string]bool{}
	for _, id := range members {
		inGroup[id] = true
	}
	byName := listAll(t, f.s, f.ws, store.ContactFilter{})
	newest := listAll(t, f.s, f.ws, store.ContactFilter{Newest: true})
	ref := refPrepare(all)
	for range 150 {
		q := randomQuery(rng, all)
		rq := refParse(q)
		want := map[string]bool{}
		for _, c := range ref {
			if len(rq.text) == 0 && len(rq.digits) == 0 || refMatches(c, rq) {
				want[c.c.ID] = true
			}
		}
		for _, withGroup := range []bool{false, true} {
			keep := func(id string) bool { return want[id] && (!withGroup || inGroup[id]) }
			for _, order := range []struct {
				newest bool
				full   []string
			}{{false, byName}, {true, newest}} {
				flt := store.ContactFilter{Search: q, Newest: order.newest}
				if withGroup {
					flt.GroupID = g.ID
				}
				got := listAll(t, f.s, f.ws, flt)
				wantIDs := slices.DeleteFunc(slices.Clone(order.full), func(id string) bool { return !keep(id) })
				if !slices.Equal(got, wantIDs) {
					t.Fatalf("search %q (group %v, newest %v): %d contacts, want the list's %d in its order\n got %q\nwant %q",
						q, withGroup, order.newest, len(got), len(wantIDs), got, wantIDs)
				}
			}
		}
	}
}

// The dental practice's 105 patients called Ana: the list counts them all, pages 100 then 5,
// sorts them newest first when asked, exports all 105 and acts on all 105.
func TestSearchListAna(t *testing.T) {
	f := newFixture(t)
	var ins []store.ContactInput
	for i := range 150 {
		first := "Ana"
		if i%3 == 2 && i >= 105 {
			first = "Bo"
		}
		if i >= 105 && first == "Ana" {
			first = "Cy"
		}
		ins = append(ins, store.ContactInput{Phone: fmt.Sprintf("+1415555%04d", i), FirstName: ptr(first), LastName: ptr(fmt.Sprintf("Patient %03d", i))})
	}
	if _, err := store.BulkContacts(f.s, f.ws, ins); err != nil {
		t.Fatal(err)
	}
	flt := store.ContactFilter{Search: "ana"}
	p, err := f.s.ListContacts(f.ws, flt, "", 100)
	if err != nil || p.Total != 105 || len(p.Contacts) != 100 || p.Next == "" {
		t.Fatalf("first page: %d of %d, next %q, %v; want 100 of 105 and a next page", len(p.Contacts), p.Total, p.Next, err)
	}
	p2, err := f.s.ListContacts(f.ws, flt, p.Next, 100)
	if err != nil || p2.Total != 105 || len(p2.Contacts) != 5 || p2.Next != "" {
		t.Fatalf("second page: %d of %d, next %q, %v; want the last 5", len(p2.Contacts), p2.Total, p2.Next, err)
	}
	if last := p2.Contacts[4]; last.LastName != "Patient 104" {
		t.Errorf("the last by name is %s %s, want Ana Patient 104", last.FirstName, last.LastName)
	}
	p, err = f.s.ListContacts(f.ws, store.ContactFilter{Search: "ana", Newest: true}, "", 100)
	if err != nil || len(p.Contacts) == 0 || p.Contacts[0].LastName != "Patient 104" {
		t.Fatalf("newest first: %v, %v; want Ana Patient 104 first", p.Contacts[:min(1, len(p.Contacts))], err)
	}
	n := 0
	if err := f.s.ContactIDs(f.ws, flt, 40, func(ids []string) error { n += len(ids); return nil }); err != nil || n != 105 {
		t.Errorf("the ids a bulk action walks: %d, %v; want 105", n, err)
	}
	var buf bytes.Buffer
	if err := f.s.WriteContactsCSV(&buf, f.ws, flt, nil); err != nil {
		t.Fatal(err)
	}
	rows, err := csv.NewReader(&buf).ReadAll()
	if err != nil || len(rows) != 106 {
		t.Fatalf("export of the search: %d lines, %v; want the header and 105", len(rows), err)
	}
	for _, r := range rows[1:] {
		if r[1] != "Ana" {
			t.Fatalf("the export holds %q, not an Ana", r[1:3])
		}
	}
	g, _ := f.s.CreateGroup(f.ws, "Recall")
	added := 0
	err = f.s.ContactIDs(f.ws, flt, 40, func(ids []string) error {
		k, err := f.s.BulkAddToGroup(f.ws, g.ID, ids)
		added += k
		return err
	})
	if err != nil || added != 105 {
		t.Fatalf("added %d to the group, %v; want all 105", added, err)
	}
	if p, _ := f.s.ListContacts(f.ws, store.ContactFilter{GroupID: g.ID}, "", 10); p.Total != 105 {
		t.Errorf("the group holds %d, want 105", p.Total)
	}
}
