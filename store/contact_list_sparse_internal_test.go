package store

import (
	"fmt"
	"math/rand/v2"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// A page of few matches read from their ranks equals the walk in name order, page after page,
// with names whose ranks tie (the same first 12 bytes of sort key, or the same name) and
// every filter that has a set.
func TestSparsePagesEqualTheWalk(t *testing.T) {
	s, err := Open(filepath.Join(t.TempDir(), "sparse.db"), Options{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close() })
	w, err := s.CreateWorkspace("Acme")
	if err != nil {
		t.Fatal(err)
	}
	rng := rand.New(rand.NewPCG(3, 4))
	firsts := []string{"Alexandrinaaa", "Alexandrinaab", "Alexandrina", "Bo", "", "Zoë", "Alexandrinaaa"}
	lasts := []string{"Smith", "Smithson", "", "Åberg", "Alexandrinaaa"}
	var csv strings.Builder
	csv.WriteString("firstName,lastName,phone,groups\n")
	for i := range 400 {
		grp := ""
		if rng.IntN(10) == 0 || i%50 == 0 {
			grp = "Few" // every 50th is opted out below too
		}
		fmt.Fprintf(&csv, "%s,%s,+1415557%04d,%s\n", firsts[rng.IntN(len(firsts))], lasts[rng.IntN(len(lasts))], i, grp)
	}
	if _, err := s.ImportContacts(w.ID, strings.NewReader(csv.String()), nil); err != nil {
		t.Fatal(err)
	}
	gs, err := s.Groups(w.ID)
	if err != nil || len(gs) != 1 {
		t.Fatalf("groups %v, %v", gs, err)
	}
	for i := range 400 {
		if rng.IntN(25) == 0 || i%50 == 0 {
			if _, _, err := s.CreateOptOut(w.ID, "", fmt.Sprintf("+1415557%04d", i), "admin"); err != nil {
				t.Fatal(err)
			}
		}
	}
	yes, no := true, false
	totals := map[string]int{}
	for name, f := range map[string]ContactFilter{"group": {GroupID: gs[0].ID}, "opted out": {OptedOut: &yes},
		"group, not opted out": {GroupID: gs[0].ID, OptedOut: &no}} {
		for _, limit := range []int{1, 3, 7, 100} {
			pages := func(cost int) (int, []string) {
				defer func(c int) { s.idx.Bounds.SparseStepCost = c }(s.idx.Bounds.SparseStepCost)
				s.idx.Bounds.SparseStepCost = cost
				var ids []string
				total, cursor := 0, ""
				for {
					p, err := s.ListContacts(w.ID, f, cursor, limit)
					if err != nil {
						t.Fatal(err)
					}
					total = p.Total
					for _, c := range p.Contacts {
						ids = append(ids, c.ID)
					}
					if cursor = p.Next; cursor == "" {
						return total, ids
					}
				}
			}
			n1, sparse := pages(0)       // always from the ranks
			n2, walked := pages(1 << 30) // always the walk
			if n1 != n2 || len(walked) != n2 || !slices.Equal(sparse, walked) {
				t.Fatalf("%s, pages of %d: from ranks %d %v, walked %d %v", name, limit, n1, sparse, n2, walked)
			}
			if n2 < 2 {
				t.Fatalf("%s: %d matches, the test needs several", name, n2)
			}
			totals[name] = n2
		}
	}
	if totals["group, not opted out"] >= totals["group"] {
		t.Fatalf("totals %v: some group members must be opted out for the test to see the second filter", totals)
	}
}
