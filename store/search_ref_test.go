package store_test

import (
	"cmp"
	"slices"
	"strings"
	"unicode"

	"switchboard/store"
)

// This file is a brute-force reference of DESIGN §3 find-contact-action, written from the
// design's words and not from store's code, for the alphabet the tests generate (ASCII, and the
// accented Latin letters below). SearchContacts must return exactly what it returns.

var refBase = map[rune]rune{
	'á': 'a', 'à': 'a', 'â': 'a', 'ä': 'a', 'ã': 'a', 'å': 'a',
	'é': 'e', 'è': 'e', 'ê': 'e', 'ë': 'e',
	'í': 'i', 'ì': 'i', 'î': 'i', 'ï': 'i',
	'ó': 'o', 'ò': 'o', 'ô': 'o', 'ö': 'o', 'õ': 'o',
	'ú': 'u', 'ù': 'u', 'û': 'u', 'ü': 'u',
	'ñ': 'n', 'ç': 'c', 'ý': 'y',
}

// refFold is lower case without accents.
func refFold(s string) string {
	return strings.Map(func(r rune) rune {
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
