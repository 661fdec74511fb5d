package store

import (
	"fmt"
	"math/rand/v2"
	"testing"

	"switchboard/store/internal/index"
	"switchboard/store/kv"
)

// A search in the list takes every plan of its set — postings alone, the records checked once
// the candidates are few (forced here for every query), the phone index read in one pass — and
// in each counts and walks exactly the contacts the search's own matcher accepts, deleted and
// renamed contacts included.
func TestSearchSetEveryPlan(t *testing.T) {
	s, err := Open(t.TempDir()+"/s.db", Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	w, err := s.CreateWorkspace("Acme")
	if err != nil {
		t.Fatal(err)
	}
	rng := rand.New(rand.NewPCG(38, 3))
	firsts := []string{"Ana", "Anabel", "José", "Maria", "Bo", "Zoë", ""}
	lasts := []string{"Lima", "Garcia", "Núñez", "Smith-Jones", ""}
	var ids []string
	for range 300 {
		first, last := firsts[rng.IntN(len(firsts))], lasts[rng.IntN(len(lasts))]
		c, err := s.CreateContact(w.ID, ContactInput{Phone: fmt.Sprintf("+1%03d555%04d", 200+rng.IntN(3), rng.IntN(10_000)), FirstName: &first, LastName: &last})
		if err != nil {
			continue // a phone drawn twice
		}
		ids = append(ids, c.ID)
	}
	for _, id := range ids[:30] {
		if _, err := s.BulkDeleteContacts(w.ID, []string{id}); err != nil {
			t.Fatal(err)
		}
	}
	for _, id := range ids[30:60] {
		c, _ := s.Contact(w.ID, id)
		renamed := "Renata"
		if _, _, err := s.UpsertContact(w.ID, ContactInput{Phone: c.Phone(), FirstName: &renamed}); err != nil {
			t.Fatal(err)
		}
	}
	queries := []string{"ana", "an li", "a", "jos", "zo", "renata", "555", "2015", "20155", "5551234", "1 2", "ana 5", "smith jones", "nunez 20", "q"}
	for i := range 40 {
		queries = append(queries, fmt.Sprint(rng.IntN(100_000)), fmt.Sprintf("%s %d", firsts[i%len(firsts)], rng.IntN(100)))
	}
	b := &s.idx.Bounds
	defer func(rp, rc int) { b.RecordPostings, b.RecordCost = rp, rc }(b.RecordPostings, b.RecordCost)
	for _, plan := range []struct {
		name                    string
		recordPostings, recCost int
	}{{"postings", b.RecordPostings, b.RecordCost}, {"records", 0, 0}, {"phone index", 1 << 30, 1_000_000}} {
		b.RecordPostings, b.RecordCost = plan.recordPostings, plan.recCost
		for _, q := range queries {
			pq := index.ParseQuery(q)
			want := map[string]bool{}
			err := rawView(s.DB(), func(tx *kv.Tx) error {
				c := index.WsBucket(tx, bContacts, idKey(w.ID)).Cursor()
				for k, v := c.First(); k != nil; k, v = c.Next() {
					if len(k) != 16 {
						continue
					}
					ct, _, err := decodeContact(v, slotID([16]byte(k)), w.ID, "")
					if err != nil {
						return err
					}
					if d := docOf(&ct); pq.Empty() || d.Matches(pq) {
						want[ct.ID] = true
					}
				}
				return nil
			})
			if err != nil {
				t.Fatal(err)
			}
			flt := ContactFilter{Search: q}
			page, err := s.ListContacts(w.ID, flt, "", 10)
			if err != nil {
				t.Fatal(err)
			}
			if page.Total != len(want) {
				t.Errorf("plan %s, %q: the list counts %d, want %d", plan.name, q, page.Total, len(want))
			}
			n := 0
			err = s.ContactIDs(w.ID, flt, 1000, func(got []string) error {
				for _, id := range got {
					n++
					if !want[id] {
						t.Errorf("plan %s, %q: %s found, but does not match (or is deleted)", plan.name, q, id)
					}
				}
				return nil
			})
			if err != nil {
				t.Fatal(err)
			}
			if n != len(want) {
				t.Errorf("plan %s, %q: %d found, want %d", plan.name, q, n, len(want))
			}
		}
	}
}

// A searched list in name order pages the same whether its page is read from the matches'
// ranks or by walking the name order, and newest first the same from the set as from the slots.
func TestSearchListPagesEveryWay(t *testing.T) {
	s, err := Open(t.TempDir()+"/s.db", Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	w, _ := s.CreateWorkspace("Acme")
	rng := rand.New(rand.NewPCG(38, 4))
	names := []string{"Ana", "Anabel", "Andrea", "Bo", "Zoë", "Ángel", ""}
	for i := range 400 {
		n := names[rng.IntN(len(names))]
		last := fmt.Sprintf("L%03d", rng.IntN(50))
		if _, err := s.CreateContact(w.ID, ContactInput{Phone: fmt.Sprintf("+1415555%04d", i), FirstName: &n, LastName: &last}); err != nil {
			t.Fatal(err)
		}
	}
	pages := func(flt ContactFilter) []string {
		var out []string
		cursor := ""
		for {
			p, err := s.ListContacts(w.ID, flt, cursor, 9)
			if err != nil {
				t.Fatal(err)
			}
			for _, c := range p.Contacts {
				out = append(out, c.ID)
			}
			if p.Next == "" {
				return out
			}
			cursor = p.Next
		}
	}
	b := &s.idx.Bounds
	defer func(rd, rc, sc int) { b.RankDirect, b.RankCost, b.SparseStepCost = rd, rc, sc }(b.RankDirect, b.RankCost, b.SparseStepCost)
	for _, q := range []string{"an", "a", "l0", "bo", "5550", "55501"} {
		for _, newest := range []bool{false, true} {
			flt := ContactFilter{Search: q, Newest: newest}
			b.RankDirect, b.RankCost, b.SparseStepCost = 2_000, 5, 8
			byRank := pages(flt)
			b.RankDirect, b.RankCost, b.SparseStepCost = 0, 1<<20, 1<<20 // every page walked
			walked := pages(flt)
			flt.Search = ""
			everyone := pages(flt)
			if fmt.Sprint(byRank) != fmt.Sprint(walked) {
				t.Errorf("%q newest %v: by rank %d contacts, walked %d, or in another order", q, newest, len(byRank), len(walked))
			}
			// The same order as the whole list.
			pos := map[string]int{}
			for i, id := range everyone {
				pos[id] = i
			}
			for i := 1; i < len(walked); i++ {
				if pos[walked[i-1]] > pos[walked[i]] {
					t.Errorf("%q newest %v: out of the list's order at %d", q, newest, i)
					break
				}
			}
		}
	}
}
