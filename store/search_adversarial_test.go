package store_test

import (
	"fmt"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"

	"switchboard/store"
	"switchboard/store/internal/index"
)

// Adversarial searches: whatever searchText a caller sends (up to 255 characters), a search
// decodes each postings entry at most about once, reads at most a bounded number of records,
// and scans the phone index at most once; and it returns exactly what the rules say.

const (
	advVerify   = 150 // candidate count at which the search verifies on records (lowered)
	advTinyWalk = 300 // a tiny-digit query's walk budget (lowered)
)

// adversarialFixture builds n contacts from small pools (many share words and digits) and
// lowers the search bounds so that a few thousand contacts reach every plan.
func adversarialFixture(t testing.TB, n int) (*fixture, []store.Contact, []refContact, int) {
	t.Helper()
	f := newFixture(t)
	rng := rand.New(rand.NewPCG(3, 5))
	var ins []store.ContactInput
	for i := range n {
		phone := fmt.Sprintf("+1%s555%04d", []string{"415", "212", "650"}[rng.IntN(3)], i)
		switch {
		case i%17 == 0:
			phone = fmt.Sprintf("+44207%06d", rng.IntN(1_000_000))
		case i%29 == 0:
			phone = fmt.Sprintf("+%d", 10+i/29*37%990)
		}
		ins = append(ins, randomContact(rng, phone))
	}
	all, err := store.BulkContacts(f.s, f.ws, ins)
	if err != nil {
		t.Fatal(err)
	}
	total, err := store.PostingsEntries(f.s, f.ws)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(store.SetSearchBounds(f.s, advVerify, advTinyWalk))
	return f, all, refPrepare(all), total
}

// checkWork asserts the bound on one search's work: postings at most twice the index (three-digit
// words' grams may overlap), records at most the verification and walk bounds (or a tenth of the
// contacts, which costs less than one pass over the phone index) and what ordering the first
// page reads, the phone index at most once.
func checkWork(t testing.TB, q string, w store.SearchWork, contacts, postings int) {
	t.Helper()
	maxRecords := max(advVerify, contacts/10) + advTinyWalk + 4*store.SearchLimit
	if w.Postings > 2*postings || w.Records > maxRecords || w.Phones > contacts {
		t.Errorf("search %q did %+v, want postings ≤ %d, records ≤ %d, phones ≤ %d",
			q, w, 2*postings, maxRecords, contacts)
	}
}

// checkOneDigitWork asserts the tighter bound on a query of only one-digit words ("7", "1 2 3 …
// 9"): it never scans the phone index (a pass over a million phones is 20–40 ms), decodes at
// most one postings entry per contact (each phone is under one digit-mask term) and reads at
// most a walk's budget and what ordering the first page reads.
func checkOneDigitWork(t testing.TB, q string, w store.SearchWork, contacts int) {
	t.Helper()
	pq := index.ParseQuery(q)
	if len(pq.Text) > 0 || len(pq.Digits) == 0 || slices.ContainsFunc(pq.Digits, func(d string) bool { return len(d) != 1 }) {
		return
	}
	maxRecords := advTinyWalk + 4*store.SearchLimit
	if w.Phones > 0 || w.Postings > contacts || w.Records > maxRecords {
		t.Errorf("one-digit search %q did %+v, want phones 0, postings ≤ %d, records ≤ %d", q, w, contacts, maxRecords)
	}
}

// adversarialQueries are the classes a hostile caller tries.
func adversarialQueries() []string {
	oneDigits := strings.TrimSpace(strings.Repeat("1 2 3 4 5 6 7 8 9 0 ", 13))[:253]
	var twoLetters []string
	for i := range 85 {
		twoLetters = append(twoLetters, string(rune('a'+i%26))+string(rune('a'+i*7%26)))
	}
	var twoDigits []string
	for i := range 85 {
		twoDigits = append(twoDigits, fmt.Sprintf("%02d", i*13%100))
	}
	return []string{
		oneDigits,
		strings.Repeat("9 ", 127),
		"0 1 2 3 4 5 6 7 8 9",
		"5 5 5 5",
		"7",
		"1 3",
		"0 2 4 6 8",
		"9 8 7 6 5 4 3",
		"(1) 2-3 +4 5.6",
		strings.TrimSpace(strings.Repeat("ana ", 63)),
		strings.TrimSpace(strings.Repeat("a ", 127)),
		strings.Join(twoLetters, " "),
		strings.Join(twoDigits, " "),
		strings.Repeat("é", 127),
		strings.Repeat("中文 ", 50),
		strings.Repeat("Ωμέγα ", 36),
		strings.Repeat("😀", 63),
		strings.Repeat("-+().@_", 36),
		strings.Repeat("@.", 127),
		"a b c d e f g h i j k l m n o p q r s t u v w x y z",
		"a.b.c.d.e.f.g.h.i.j.k.l.m.n.o.p.q.r.s.t.u.v.w.x.y.z",
		"15551555 5551555 1555",
		strings.Repeat("1", 255),
		strings.Repeat("12 ", 85),
		"ana 1 2 3 4 5 6 7 8 9 0",
		"ana 12 34 56",
		"a 0",
		"j 1 2",
		"555 1 2",
		"41 55",
		"1 12 123 1234 12345",
		"an ana anab anabe anabel",
		"+1 (415) 555-0001 +1 (212)",
	}
}

// randomAdversarial draws a searchText of up to 255 characters from every character class and
// from the contacts' own words and digits.
func randomAdversarial(rng *rand.Rand, all []store.Contact) string {
	pieces := []func() string{
		func() string { return fmt.Sprint(rng.IntN(10)) },
		func() string { return fmt.Sprintf("%02d", rng.IntN(100)) },
		func() string { return fmt.Sprint(rng.IntN(100_000)) },
		func() string { return string(rune('a' + rng.IntN(26))) },
		func() string { return string(rune('a'+rng.IntN(26))) + string(rune('a'+rng.IntN(26))) },
		func() string { return []string{"-", "+", "(", ")", ".", "@", "_", "@.", "+-"}[rng.IntN(9)] },
		func() string { return []string{"é", "ñ", "中", "Ω", "😀", "ß", "İ", "ﬁ"}[rng.IntN(8)] },
		func() string { return randomQuery(rng, all) },
	}
	var b strings.Builder
	n := 1 + rng.IntN(127)
	repeat := ""
	if rng.IntN(4) == 0 {
		repeat = pieces[rng.IntN(len(pieces))]()
	}
	for range n {
		p := repeat
		if p == "" {
			p = pieces[rng.IntN(len(pieces))]()
		}
		if b.Len()+len(p)+1 > 255 {
			break
		}
		if b.Len() > 0 {
			b.WriteByte(" .-"[rng.IntN(3)])
		}
		b.WriteString(p)
	}
	return b.String()
}

// TestSearchAdversarialWork runs the adversarial classes and a few hundred generated hostile
// queries over a few thousand contacts: each returns what the brute-force reference returns and
// stays within the work bound.
func TestSearchAdversarialWork(t *testing.T) {
	const n = 3000
	f, all, ref, postings := adversarialFixture(t, n)
	queries := adversarialQueries()
	rng := rand.New(rand.NewPCG(13, 17))
	for range 300 {
		queries = append(queries, randomAdversarial(rng, all))
	}
	failures := 0
	for _, q := range queries {
		_, w, err := store.SearchContactsWork(f.s, f.ws, q)
		if err != nil {
			t.Fatal(err)
		}
		checkWork(t, q, w, n, postings)
		checkOneDigitWork(t, q, w, n)
		if testing.Verbose() && len(q) > 0 && (w.Records > 300 || w.Phones > 0 || w.Postings > postings/4) {
			t.Logf("%.40q: %+v", q, w)
		}
		if !wantSameAsReference(t, f.s, f.ws, ref, q) {
			if failures++; failures > 10 {
				t.Fatal("too many differences")
			}
		}
	}
}

// FuzzSearchWork checks the work bound and the reference on fuzzed searchText.
func FuzzSearchWork(f *testing.F) {
	const n = 2000
	fx, _, ref, postings := adversarialFixture(f, n)
	for _, q := range adversarialQueries() {
		f.Add(q)
	}
	f.Add("\x16") // a control character is no word: the whole list, as for "-"
	f.Fuzz(func(t *testing.T, q string) {
		if len(q) > 255 {
			q = q[:255]
		}
		_, w, err := store.SearchContactsWork(fx.s, fx.ws, q)
		if err != nil {
			t.Fatal(err)
		}
		checkWork(t, q, w, n, postings)
		checkOneDigitWork(t, q, w, n)
		wantSameAsReference(t, fx.s, fx.ws, ref, q)
	})
}
