package store

import (
	"bytes"
	"fmt"
	"math/rand/v2"
	"path/filepath"
	"slices"
	"switchboard/internal/benchgen"
	"testing"

	"switchboard/store/internal/index"
)

// TestSearchPlans runs queries through each way a search can take (rank rounds with and without
// verification, the order walk over candidates and its fallback when they are spread thin, the
// plain order walk) and compares the results with a brute-force filter and sort.
func TestSearchPlans(t *testing.T) {
	s, err := Open(filepath.Join(t.TempDir(), "plans.db"), Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	w, err := s.CreateWorkspace("Plans")
	if err != nil {
		t.Fatal(err)
	}
	r := rand.New(rand.NewPCG(9, 9))
	firsts := []string{"Patricia", "Ann", "Zoë", "Bo", "", "Patrick"}
	lasts := []string{"Holmes", "Adams", "Howard", "Zuñiga", "", "Hoffman", "Baker"}
	var ins []ContactInput
	for i := range 4000 {
		first, last := firsts[r.IntN(len(firsts))], lasts[r.IntN(len(lasts))]
		if i%4 == 0 {
			first = "Patricia" // a big candidate set that clusters in display order
		}
		in := ContactInput{Phone: fmt.Sprintf("+1%03d%07d", 200+r.IntN(800), r.IntN(10_000_000)),
			FirstName: &first, LastName: &last}
		if r.IntN(3) == 0 {
			email := fmt.Sprintf("%s.x%d@%s.com", benchgen.EmailPart(first), i, []string{"hotmail", "mail", "acme"}[r.IntN(3)])
			in.Email = &email
		}
		ins = append(ins, in)
	}
	all, err := BulkContacts(s, w.ID, ins)
	if err != nil {
		t.Fatal(err)
	}
	type hit struct {
		sort []byte
		id   [16]byte
	}
	reference := func(query string) [][16]byte {
		q := index.ParseQuery(query)
		var cs []hit
		for i := range all {
			if d := docOf(&all[i]); d.Matches(q) {
				cs = append(cs, hit{sort: d.SortKey(), id: [16]byte(idKey(all[i].ID))})
			}
		}
		slices.SortFunc(cs, func(a, b hit) int {
			if r := bytes.Compare(a.sort, b.sort); r != 0 {
				return r
			}
			return bytes.Compare(a.id[:], b.id[:])
		})
		var out [][16]byte
		for _, c := range cs[:min(len(cs), SearchLimit)] {
			out = append(out, c.id)
		}
		return out
	}
	queries := []string{
		"patricia",       // rank rounds, no verification
		"patricia 12",    // short digit word: verified, candidates walked in order
		"patricia 4567",  // one gram
		"patricia 45678", // grams, verified
		"pat ho",         // two prefixes
		"ho 1",           // candidates spread over the order
		"zo 9",           // few candidates: rank rounds with verification
		"a",              // every word common enough to walk
		"12",             // digits alone: plain walk
		"zzz 1",          // nothing
	}
	type plan struct{ walkBudget, rankDirect, walkStepCost int }
	for _, p := range []plan{
		{5_000, 2_000, 2},   // as configured
		{10, 0, 0},          // every walk is tried and gives up at once: rank rounds
		{1 << 30, 0, 0},     // every walk is tried and goes on to the end
		{5_000, 1 << 30, 2}, // always rank
	} {
		s.idx.Bounds.WalkBudget, s.idx.Bounds.RankDirect, s.idx.Bounds.WalkStepCost = p.walkBudget, p.rankDirect, p.walkStepCost
		for _, query := range queries {
			res, err := s.SearchContacts(w.ID, query)
			if err != nil {
				t.Fatal(err)
			}
			var got [][16]byte
			for _, c := range res {
				got = append(got, [16]byte(idKey(c.ID)))
			}
			if want := reference(query); !slices.Equal(got, want) {
				t.Errorf("%+v, %q: got %d results, want %d (or another order)", p, query, len(got), len(want))
			}
		}
	}
}
