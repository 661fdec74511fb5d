package store_test

import (
	"cmp"
	"errors"
	"fmt"
	"math/rand/v2"
	"slices"
	"strings"
	"sync"
	"testing"
	"unicode"

	"switchboard/store"
)

// This file is a brute-force reference of contact search (every text word prefixes a folded
// word of a name, company or email; every digit word occurs in the phone; exact phone or email
// first, then first name, last name, id; unnamed last), written from those rules and not from store's code, for the alphabet the tests generate (ASCII, and the
// accented Latin letters below). SearchContacts must return exactly what it returns.

var refBase = map[rune]rune{
	'á': 'a', 'à': 'a', 'â': 'a', 'ä': 'a', 'ã': 'a', 'å': 'a',
	'é': 'e', 'è': 'e', 'ê': 'e', 'ë': 'e',
	'í': 'i', 'ì': 'i', 'î': 'i', 'ï': 'i',
	'ó': 'o', 'ò': 'o', 'ô': 'o', 'ö': 'o', 'õ': 'o',
	'ú': 'u', 'ù': 'u', 'û': 'u', 'ü': 'u',
	'ñ': 'n', 'ç': 'c', 'ý': 'y',
}

// refFold is lower case without accents or control characters (a control character is no part
// of a word: "\x16" is no query at all, like "-").
func refFold(s string) string {
	return strings.Map(func(r rune) rune {
		if unicode.Is(unicode.Cc, r) {
			return -1
		}
		r = unicode.ToLower(r)
		if b, ok := refBase[r]; ok {
			return b
		}
		return r
	}, s)
}

func refSep(r rune) bool {
	return unicode.IsSpace(r) || strings.ContainsRune("@._-+", r)
}

// refWords are the words of a name, company or email: split at white space and @ . _ - +.
func refWords(s string) []string { return strings.FieldsFunc(refFold(s), refSep) }

type refQuery struct {
	pieces int
	text   []string
	digits []string
	raw    string
}

func refParse(q string) refQuery {
	r := refQuery{raw: q}
	pieces := strings.Fields(q)
	r.pieces = len(pieces)
	for _, p := range pieces {
		stripped := strings.NewReplacer("+", "", "-", "", "(", "", ")", "", ".", "").Replace(p)
		allDigits := stripped != ""
		for _, c := range stripped {
			if c < '0' || c > '9' {
				allDigits = false
			}
		}
		if allDigits {
			r.digits = append(r.digits, stripped)
		} else {
			r.text = append(r.text, refWords(p)...)
		}
	}
	return r
}

func refDigits(phone string) string {
	return strings.Map(func(r rune) rune {
		if r >= '0' && r <= '9' {
			return r
		}
		return -1
	}, phone)
}

// refContact is a contact with what the reference compares, computed once.
type refContact struct {
	c                   store.Contact
	words               []string
	digits, first, last string
	unnamed             bool
}

func refPrepare(all []store.Contact) []refContact {
	out := make([]refContact, len(all))
	for i, c := range all {
		var words []string
		for _, f := range []string{c.FirstName, c.LastName, c.Company, c.Email} {
			words = append(words, refWords(f)...)
		}
		out[i] = refContact{c: c, words: words, digits: refDigits(c.Phone()), first: refFold(c.FirstName),
			last: refFold(c.LastName), unnamed: c.FirstName == "" && c.LastName == ""}
	}
	return out
}

func refMatches(c refContact, q refQuery) bool {
	for _, tw := range q.text {
		if !slices.ContainsFunc(c.words, func(w string) bool { return strings.HasPrefix(w, tw) }) {
			return false
		}
	}
	for _, dw := range q.digits {
		if !strings.Contains(c.digits, dw) {
			return false
		}
	}
	return true
}

func refExact(c refContact, q refQuery) bool {
	// Every piece a digit word, their digits joined equal to the phone's.
	if q.pieces > 0 && len(q.digits) == q.pieces && strings.Join(q.digits, "") == c.digits {
		return true
	}
	return c.c.Email != "" && strings.EqualFold(strings.TrimSpace(q.raw), c.c.Email)
}

// refSearch filters all by searchText and sorts: exact equality first (not for an empty query),
// then folded first name, last name, id, with unnamed contacts last; at most 100.
func refSearch(all []refContact, searchText string) []store.Contact {
	q := refParse(searchText)
	empty := len(q.text) == 0 && len(q.digits) == 0
	type row struct {
		refContact
		exact bool
	}
	var rows []row
	for _, c := range all {
		if !empty && !refMatches(c, q) {
			continue
		}
		rows = append(rows, row{c, !empty && refExact(c, q)})
	}
	bool01 := func(b bool) int {
		if b {
			return 1
		}
		return 0
	}
	slices.SortFunc(rows, func(a, b row) int {
		return cmp.Or(
			cmp.Compare(bool01(b.exact), bool01(a.exact)),
			cmp.Compare(bool01(a.unnamed), bool01(b.unnamed)),
			strings.Compare(a.first, b.first),
			strings.Compare(a.last, b.last),
			strings.Compare(a.c.ID, b.c.ID),
		)
	})
	out := []store.Contact{}
	for i := 0; i < len(rows) && i < store.SearchLimit; i++ {
		out = append(out, rows[i].c)
	}
	return out
}

// wantSameAsReference compares SearchContacts with the brute-force reference over all.
func wantSameAsReference(t testing.TB, s *store.Store, ws string, all []refContact, q string) bool {
	t.Helper()
	got := search(t, s, ws, q)
	want := refSearch(all, q)
	if slices.Equal(ids(got), ids(want)) {
		return true
	}
	g, w := labels(got), labels(want)
	i := 0
	for i < len(g) && i < len(w) && g[i] == w[i] {
		i++
	}
	t.Errorf("search %q: %d results, want %d; first difference at %d: got %q, want %q",
		q, len(got), len(want), i, g[i:min(len(g), i+3)], w[i:min(len(w), i+3)])
	return false
}

// TestSearchManyCandidates builds a workspace where one first name is shared by more contacts
// than the index collects per term, so that searches take the verify and walk paths, and
// compares every result with the brute-force reference.
func TestSearchManyCandidates(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	rng := rand.New(rand.NewPCG(1, 2))
	lasts := []string{"Smith", "Smyth", "García", "Garcia", "Ng", "O'Hara", "Zapata", "Álvarez", "Brown", "Black"}
	var ins []store.ContactInput
	for i := range 4500 {
		in := store.ContactInput{Phone: fmt.Sprintf("+1415%07d", 5550000+i), FirstName: ptr("María"),
			LastName: ptr(lasts[rng.IntN(len(lasts))])}
		if i%10 == 0 {
			in.Email = ptr(fmt.Sprintf("maria%d@example.com", i))
		}
		ins = append(ins, in)
	}
	for i := range 300 {
		in := store.ContactInput{Phone: fmt.Sprintf("+1212%07d", 5550000+i)}
		switch i % 3 {
		case 0:
			in.FirstName, in.LastName = ptr("Mario"), ptr(lasts[rng.IntN(len(lasts))])
		case 1:
			in.FirstName = ptr("Ann")
		}
		ins = append(ins, in)
	}
	all, err := store.BulkContacts(f.s, f.ws, ins)
	if err != nil {
		t.Fatal(err)
	}
	ref := refPrepare(all)
	for _, q := range []string{
		"",
		"maria",         // one common term: walk
		"m",             // every contact named M…
		"maria smith",   // common + rare: intersect and verify
		"smith maria",   // the same, other order
		"maria sm",      // Smith and Smyth
		"maria garcia",  // accent-insensitive on both sides
		"maria 415",     // both terms common: walk
		"415",           // one common digit term
		"555",           // both area codes
		"maria 5550123", // digit word longer than the indexed suffixes
		"4155550123",    // digits, no exact rank (phone has a leading 1)
		"14155550123",   // exact phone
		"+1 (415) 555-0123",
		"maria example", // every tenth
		"maria10@example.com",
		"MARIA10@EXAMPLE.COM",
		"mario",
		"ann 212",
		"maria zzz", // common + nothing
		"zzz",
		"212 415",
	} {
		wantSameAsReference(t, f.s, f.ws, ref, q)
	}
}

// randomContact draws a contact from small pools so that random queries often match several.
func randomContact(rng *rand.Rand, phone string) store.ContactInput {
	firsts := []string{"José", "Jose", "JOSÉ", "María", "Maria", "Zoë", "Ana", "Anabel", "Ann-Marie", "Chloé",
		"Björn", "Åsa", "Noël", "Émile", "Bob", "Bo", "Renée", "Ana Lucía", "", "", ""}
	lasts := []string{"García", "Garcia", "Smith", "Smith-Jones", "Núñez", "de la Cruz", "Müller", "Mueller",
		"Ng", "Brontë", "O'Neil", "", ""}
	companies := []string{"", "", "Acme Inc.", "Globex", "Ünited Widgets", "initech", "acme.io", "Bob's Burgers"}
	domains := []string{"example.com", "mail.acme.io", "ex-ample.org", "Globex.COM"}
	locals := []string{"ana", "jose.garcia", "bob_smith", "info", "m.nunez", "sales+leads", "zoe-ng", "renee"}
	pick := func(xs []string) string { return xs[rng.IntN(len(xs))] }
	in := store.ContactInput{Phone: phone}
	if v := pick(firsts); v != "" || rng.IntN(2) == 0 {
		in.FirstName = ptr(v)
	}
	if v := pick(lasts); v != "" || rng.IntN(2) == 0 {
		in.LastName = ptr(v)
	}
	if v := pick(companies); v != "" {
		in.Company = ptr(v)
	}
	if rng.IntN(3) > 0 {
		e := pick(locals) + "@" + pick(domains)
		if rng.IntN(4) == 0 {
			e = strings.ToUpper(e)
		}
		in.Email = ptr(e)
	}
	return in
}

// randomQuery draws a query that often matches: prefixes of the contacts' words with their case
// and accents changed, fragments of their phones (formatted or not), exact phones and emails.
func randomQuery(rng *rand.Rand, all []store.Contact) string {
	c := all[rng.IntN(len(all))]
	word := func() string {
		var words []string
		for _, f := range []string{c.FirstName, c.LastName, c.Company, c.Email} {
			words = append(words, strings.FieldsFunc(f, func(r rune) bool { return r == ' ' || strings.ContainsRune("@._-+", r) })...)
		}
		if len(words) == 0 {
			return "nobody"
		}
		w := []rune(words[rng.IntN(len(words))])
		w = w[:1+rng.IntN(len(w))]
		switch rng.IntN(4) {
		case 0:
			return strings.ToUpper(string(w))
		case 1:
			return refFold(string(w))
		}
		return string(w)
	}
	digits := func() string {
		d := refDigits(c.Phone())
		i := rng.IntN(len(d))
		j := i + 1 + rng.IntN(min(len(d)-i, 8))
		frag := d[i:j]
		switch rng.IntN(5) {
		case 0:
			return "(" + frag + ")"
		case 1:
			if len(frag) > 2 {
				return frag[:2] + "-" + frag[2:]
			}
		case 2:
			return "+" + frag
		case 3:
			if len(frag) > 3 {
				return frag[:3] + "." + frag[3:]
			}
		}
		return frag
	}
	switch rng.IntN(12) {
	case 0:
		return ""
	case 1:
		return c.Phone()
	case 2:
		d := refDigits(c.Phone())
		if rng.IntN(2) == 0 {
			return d
		}
		// The phone's digits in formatted pieces, `+1 (415) 555-0123` style: an exact match.
		i := 1 + rng.IntN(len(d)-1)
		j := i + rng.IntN(len(d)-i)
		return "+" + d[:i] + " (" + d[i:j] + ") " + d[j:]
	case 3:
		if c.Email != "" {
			if rng.IntN(2) == 0 {
				return strings.ToLower(c.Email)
			}
			return " " + c.Email
		}
		return word()
	case 4:
		return word() + " " + word()
	case 5:
		return word() + " " + digits()
	case 6:
		return digits() + " " + digits()
	case 7:
		return []string{"zzz", "@", "---", "+", "a@b", "()", "ana x", "1-", "é"}[rng.IntN(9)]
	case 8, 9:
		return digits()
	}
	return word()
}

// TestSearchMatchesReference compares SearchContacts with the brute-force reference over a few
// hundred random contacts and random queries, before and after renaming a third of them.
func TestSearchMatchesReference(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	rng := rand.New(rand.NewPCG(7, 11))
	var ins []store.ContactInput
	for i := range 300 {
		phone := fmt.Sprintf("+1%s555%04d", []string{"415", "212", "650"}[rng.IntN(3)], i)
		if i%17 == 0 {
			phone = fmt.Sprintf("+44207%06d", rng.IntN(1_000_000))
		}
		if i%23 == 0 {
			// Phones too short for a digit gram (E.164 allows two digits).
			phone = fmt.Sprintf("+%d", 10+i/23*37%990)
		}
		ins = append(ins, randomContact(rng, phone))
	}
	all, err := store.BulkContacts(f.s, f.ws, ins)
	if err != nil {
		t.Fatal(err)
	}
	check := func() {
		ref := refPrepare(all)
		failures := 0
		for range 400 {
			if !wantSameAsReference(t, f.s, f.ws, ref, randomQuery(rng, all)) {
				if failures++; failures > 10 {
					t.Fatal("too many differences")
				}
			}
		}
	}
	check()

	// Rename a third of the contacts through create-or-update, concurrently (DB.Batch groups
	// them); the index must follow.
	var wg sync.WaitGroup
	errs := make([]error, len(all))
	for i := 0; i < len(all); i += 3 {
		r := randomContact(rng, all[i].Phone())
		wg.Go(func() {
			c, created, err := f.s.UpsertContact(f.ws, r)
			if err == nil && created {
				err = fmt.Errorf("created a new contact for %s, want an update", r.Phone)
			}
			all[i], errs[i] = c, err
		})
	}
	wg.Wait()
	if err := errors.Join(errs...); err != nil {
		t.Fatal(err)
	}
	check()
}

// TestSearchOrdersEqualRanks: contacts whose first 12 bytes of sort key are alike (first names
// of more than nine letters sharing them, last names sharing their first two) come out in full
// name order, the same as the reference, whether few or many share a rank and whether the
// query's words decide the match alone or a record must be read to verify it.
func TestSearchOrdersEqualRanks(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	rng := rand.New(rand.NewPCG(3, 5))
	firsts := []string{"Christopher", "Christophe", "Christophers", "Christina", "Chris"}
	lasts := []string{"Jones", "Johnson", "Jo", "Jordan", "Joyce", "Jost", "Jonas", "Garcia"}
	var ins []store.ContactInput
	for i := range 400 {
		n := 1 + rng.IntN(3) // a few of a rank, or many (Christopher Jo…)
		if i%5 == 0 {
			n = 1
		}
		ins = append(ins, store.ContactInput{Phone: fmt.Sprintf("+1415%07d", 5550000+i),
			FirstName: ptr(firsts[rng.IntN(len(firsts)-n+1)]), LastName: ptr(lasts[rng.IntN(len(lasts))])})
	}
	all, err := store.BulkContacts(f.s, f.ws, ins)
	if err != nil {
		t.Fatal(err)
	}
	ref := refPrepare(all)
	for _, q := range []string{"chr", "christoph jo", "chr jon", "christopher", "jo", "chr 415", "chris jo 5550"} {
		wantSameAsReference(t, f.s, f.ws, ref, q)
	}
}
