package store

import (
	"bytes"
	"encoding/binary"
	"fmt"
	"math/rand/v2"
	"path/filepath"
	"slices"
	"testing"

	bolt "go.etcd.io/bbolt"
)

// TestTermPostings adds and removes ids of a few terms in random order, in transactions of
// random size, and checks the chunks against a plain set after each: every chunk non-empty,
// at most termChunkMax ids, sorted, keyed by its first id, and the chunks of a term in order.
func TestTermPostings(t *testing.T) {
	db, err := bolt.Open(filepath.Join(t.TempDir(), "postings.db"), 0o600, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	ws := bytes.Repeat([]byte{7}, 16)
	terms := []string{"tab", "tabc", "tabd", "d1234"}
	model := map[string]map[[16]byte]uint64{} // id -> rank
	for _, term := range terms {
		model[term] = map[[16]byte]uint64{}
	}
	r := rand.New(rand.NewPCG(1, 2))
	pool := make([][16]byte, 600)
	for i := range pool {
		pool[i][0] = byte(i >> 8)
		pool[i][1] = byte(i)
		pool[i][15] = byte(r.IntN(256))
	}
	for round := range 60 {
		err := db.Update(func(tx *bolt.Tx) error {
			b, err := tx.CreateBucketIfNotExists([]byte("terms"))
			if err != nil {
				return err
			}
			for range 1 + r.IntN(300) {
				term := terms[r.IntN(len(terms))]
				var id [16]byte
				if round < 20 && r.IntN(2) == 0 {
					id = pool[len(model[term])%len(pool)] // mostly ascending, as an import adds
				} else {
					id = pool[r.IntN(len(pool))]
				}
				if r.IntN(3) == 0 {
					err = removeTermID(b, ws, term, id)
					delete(model[term], id)
				} else {
					rank := r.Uint64() >> (8 * r.IntN(8)) // ranks change now and then
					if old, ok := model[term][id]; ok && r.IntN(4) > 0 {
						rank = old
					}
					err = addTermID(b, ws, term, id, rank16(rank))
					model[term][id] = rank
				}
				if err != nil {
					return err
				}
			}
			return nil
		})
		if err != nil {
			t.Fatal(err)
		}
		db.View(func(tx *bolt.Tx) error {
			b := tx.Bucket([]byte("terms"))
			for _, term := range terms {
				checkChunks(t, b, termPrefix(ws, term))
				want := modelPostings(model[term])
				if got := scanPostings(b, ws, term, true, true); !slices.Equal(got, want) {
					t.Fatalf("round %d, term %s: scan has %d ids, want %d", round, term, len(got), len(want))
				}
			}
			// A prefix scan merges the terms it covers.
			// (A contact has one rank; the model's terms do not agree on it, so compare ids.)
			union := map[[16]byte]uint64{}
			for _, term := range []string{"tab", "tabc", "tabd"} {
				for id := range model[term] {
					union[id] = 0
				}
			}
			want := modelPostings(union)
			got := scanPostings(b, ws, "tab", false, true)
			for i := range got {
				got[i].rank = rank16(0)
			}
			if !slices.Equal(got, want) {
				t.Fatalf("round %d: prefix scan has %d ids, want %d", round, len(got), len(want))
			}
			if n := countPostings(b, termScanPrefix(ws, "tab", false), 1<<20); n < len(want) {
				t.Fatalf("round %d: counted %d postings under tab, %d contacts have them", round, n, len(want))
			}
			// Semi-joins keep exactly the candidates that also have the term.
			var cands []posting
			for _, id := range pool[:200] {
				cands = append(cands, posting{id: id})
			}
			slices.SortFunc(cands, func(a, b posting) int { return cmpID(a.id, b.id) })
			for _, term := range terms {
				var wantIDs, gotIDs [][16]byte
				for _, c := range cands {
					if _, ok := model[term][c.id]; ok {
						wantIDs = append(wantIDs, c.id)
					}
				}
				for _, p := range semiJoin(b, ws, term, true, cands) {
					gotIDs = append(gotIDs, p.id)
				}
				if !slices.Equal(gotIDs, wantIDs) {
					t.Fatalf("round %d, term %s: semi-join kept %d, want %d", round, term, len(gotIDs), len(wantIDs))
				}
			}
			return nil
		})
	}
}

// rank16 is a rank that orders as r does.
func rank16(r uint64) [rankLen]byte {
	return [rankLen]byte(binary.BigEndian.AppendUint64(make([]byte, 0, rankLen), r)[:rankLen:rankLen])
}

func modelPostings(m map[[16]byte]uint64) []posting {
	var ps []posting
	for id, rank := range m {
		ps = append(ps, posting{id, rank16(rank)})
	}
	slices.SortFunc(ps, func(a, b posting) int { return cmpID(a.id, b.id) })
	return ps
}

func checkChunks(t *testing.T, b *bolt.Bucket, prefix []byte) {
	t.Helper()
	var prev []byte
	c := b.Cursor()
	for k, v := c.Seek(prefix); k != nil && bytes.HasPrefix(k, prefix); k, v = c.Next() {
		n := len(v) / postingLen
		if len(k) != len(prefix)+16 || len(v)%postingLen != 0 || n == 0 || n > termChunkMax {
			t.Fatalf("bad chunk: key %x, %d bytes", k, len(v))
		}
		if !bytes.Equal(k[len(prefix):], v[:16]) {
			t.Fatalf("chunk key %x is not its first id %x", k[len(prefix):], v[:16])
		}
		for i := 0; i < n; i++ {
			id := v[postingLen*i : postingLen*i+16]
			if prev != nil && bytes.Compare(prev, id) >= 0 {
				t.Fatalf("ids out of order: %x then %x", prev, id)
			}
			prev = id
		}
	}
}

func TestMergeRuns(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 4))
	for _, nruns := range []int{1, 2, 3, 7, 16, 17, 40} {
		var ps []posting
		var runs []int
		set := map[[16]byte]uint64{}
		for range nruns {
			runs = append(runs, len(ps))
			run := make([]posting, r.IntN(50))
			for i := range run {
				run[i].id[0], run[i].id[1] = byte(r.IntN(4)), byte(r.IntN(256))
				set[run[i].id] = 0
			}
			slices.SortFunc(run, func(a, b posting) int { return cmpID(a.id, b.id) })
			ps = append(ps, slices.CompactFunc(run, func(a, b posting) bool { return a.id == b.id })...)
		}
		want := modelPostings(set)
		if got := mergeRuns(ps, runs); !slices.Equal(got, want) {
			t.Fatalf("%d runs: got %d ids, want %d", nruns, len(got), len(want))
		}
	}
}

func TestNthSmallest(t *testing.T) {
	r := rand.New(rand.NewPCG(5, 6))
	for range 200 {
		vs := make([][rankLen]byte, 1+r.IntN(300))
		for i := range vs {
			vs[i] = rank16(uint64(r.IntN(40)) << 56) // many ties
		}
		n := 1 + r.IntN(len(vs))
		sorted := slices.SortedFunc(slices.Values(vs), cmpID)
		if got := nthSmallest(vs, n); got != sorted[n-1] {
			t.Fatalf("nthSmallest(%v, %d) = %d, want %d", vs, n, got, sorted[n-1])
		}
	}
}

// FuzzDocMatches: the allocation-free matcher and sort key that walks use agree with decoding
// the doc, for any doc bytes and any query.
func FuzzDocMatches(f *testing.F) {
	f.Add([]byte("jose\x00nunez\x00globex\x00ana.lopez+vip@mail.example.com\x0014155550123"), "jo nu 555")
	f.Add([]byte("ana maria\x00o'neil\x00\x00\x00442071234567"), "mar o'n")
	f.Add([]byte("\xff\xfe a\u00a0b\x00\x00x\u3000y\x00e@f\x001"), "b y f 1")
	f.Add([]byte("only first"), "first")
	f.Add([]byte("\x00\x00\x00\x00\x00\x00"), "")
	f.Fuzz(func(t *testing.T, enc []byte, query string) {
		q := ParseQuery(query)
		d := decodeDoc(enc)
		if got, want := docMatches(enc, q), d.matches(q); got != want {
			t.Fatalf("docMatches(%q, %q) = %v, decodeDoc(...).matches = %v", enc, query, got, want)
		}
		if got, want := docSortKey(enc), d.sortKey(); !bytes.Equal(got, want) {
			t.Fatalf("docSortKey(%q) = %q, want %q", enc, got, want)
		}
	})
}

// TestSearchPlans runs queries through each way searchIDs can take (rank rounds with and without
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
			email := fmt.Sprintf("%s.x%d@%s.com", emailPart(first), i, []string{"hotmail", "mail", "acme"}[r.IntN(3)])
			in.Email = &email
		}
		ins = append(ins, in)
	}
	all, err := BulkContacts(s, w.ID, ins)
	if err != nil {
		t.Fatal(err)
	}
	reference := func(query string) [][16]byte {
		q := ParseQuery(query)
		var cs []cand
		for i := range all {
			if d := docOf(&all[i]); d.matches(q) {
				cs = append(cs, cand{d.sortKey(), [16]byte(idKey(all[i].ID))})
			}
		}
		sortCands(cs)
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
	c, sc, wm, wb := collectCap, streamCap, walkMin, walkBudget
	t.Cleanup(func() { collectCap, streamCap, walkMin, walkBudget = c, sc, wm, wb })
	type plan struct{ collect, stream, walkMin, walkBudget int }
	for _, p := range []plan{
		{32_000, 250_000, 1000, 20_000}, // as configured: every set complete
		{32_000, 250_000, 0, 20_000},    // every verification walks the candidates
		{32_000, 250_000, 0, 10},        // and gives up at once: rank rounds
		{300, 250_000, 1000, 20_000},    // common words narrow the candidates by streaming
		{300, 500, 1000, 20_000},        // or are too common to stream and are verified
		{300, 500, 0, 10},
		{10, 10, 1000, 20_000}, // everything common: the plain walk
	} {
		collectCap, streamCap, walkMin, walkBudget = p.collect, p.stream, p.walkMin, p.walkBudget
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
