package store

import (
	"slices"
	"strings"
	"switchboard/internal/textfold"
	"unicode"
	"unicode/utf8"
)

func isWordSep(r rune) bool {
	return unicode.IsSpace(r) || r == '@' || r == '.' || r == '_' || r == '-' || r == '+'
}

// TextWords splits s (folded) into words at white space and @ . _ - +; the words of a
// contact's names, company and email are what text words of a query must prefix.
func TextWords(s string) []string {
	return strings.FieldsFunc(textfold.Fold(s), isWordSep)
}

// Digits returns the decimal digits of s in order.
func Digits(s string) string {
	var b strings.Builder
	for _, r := range s {
		if r >= '0' && r <= '9' {
			b.WriteRune(r)
		}
	}
	return b.String()
}

// Query is a parsed searchText: its words, split into text words and digit words.
type Query struct {
	// Text words must each prefix a word of the contact's first name, last name, company or email.
	Text []string
	// Digit words must each occur in the contact's phone digits.
	Digits []string
	// ExactDigits is set when every piece of the query is a digit word: their digits joined in
	// query order (before de-duplication), so `+1 (202) 555-0147` gives 12025550147. A phone
	// with exactly these digits ranks first.
	ExactDigits string
	// Exact is the trimmed query, folded: an email equal to it ranks first.
	Exact string
}

// Empty reports whether the query has no words: it lists contacts in order, unranked.
func (q Query) Empty() bool { return len(q.Text) == 0 && len(q.Digits) == 0 }

// ParseQuery splits searchText into digit words and text words.
func ParseQuery(searchText string) Query {
	var q Query
	pieces := strings.Fields(searchText)
	for _, p := range pieces {
		stripped := strings.Map(func(r rune) rune {
			switch r {
			case '+', '-', '(', ')', '.':
				return -1
			}
			return r
		}, p)
		if stripped != "" && isASCIIDigits(stripped) {
			q.Digits = append(q.Digits, stripped)
			continue
		}
		q.Text = append(q.Text, TextWords(p)...)
	}
	// Joined before de-duplication: "12 12" is the phone 1212, not 12.
	if len(pieces) > 0 && len(q.Digits) == len(pieces) {
		q.ExactDigits = strings.Join(q.Digits, "")
	}
	q.Text = dropImplied(dedupe(q.Text), strings.HasPrefix)
	q.Digits = dropImplied(dedupe(q.Digits), strings.Contains)
	if len(pieces) > 0 {
		q.Exact = strings.ToLower(strings.TrimSpace(searchText))
	}
	return q
}

// dropImplied removes every word implied by another: a text word that prefixes another text
// word (whatever the longer one prefixes, the shorter one prefixes too), a digit word contained
// in another digit word. in holds no duplicates. The search then does the work of each word
// once, whatever the query repeats.
func dropImplied(in []string, implied func(longer, shorter string) bool) []string {
	if len(in) < 2 {
		return in
	}
	out := in[:0:0]
	for i, w := range in {
		if !slices.ContainsFunc(in, func(o string) bool { return o != w && len(o) > len(w) && implied(o, w) }) {
			out = append(out, in[i])
		}
	}
	return out
}

func isASCIIDigits(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] < '0' || s[i] > '9' {
			return false
		}
	}
	return s != ""
}

func dedupe(in []string) []string {
	if len(in) < 2 {
		return in
	}
	seen := make(map[string]bool, len(in))
	out := in[:0]
	for _, s := range in {
		if !seen[s] {
			seen[s] = true
			out = append(out, s)
		}
	}
	return out
}

// searchDoc is the folded text a contact is matched against; it is derived from the record,
// never stored.
type searchDoc struct {
	first, last, company, email, digits string
}

func docOf(c *Contact) searchDoc {
	return searchDoc{
		first:   textfold.Fold(c.FirstName),
		last:    textfold.Fold(c.LastName),
		company: textfold.Fold(c.Company),
		email:   textfold.Fold(c.Email),
		digits:  Digits(c.Phone()),
	}
}

// words are the doc's text words, every field split at the same separators as queries.
func (d searchDoc) words() []string {
	var w []string
	for _, f := range []string{d.first, d.last, d.company, d.email} {
		w = append(w, strings.FieldsFunc(f, isWordSep)...)
	}
	return dedupe(w)
}

// matches applies the search rules: every text word prefixes a word, every digit word occurs
// in the phone digits.
func (d searchDoc) matches(q Query) bool {
	for _, dw := range q.Digits {
		if !strings.Contains(d.digits, dw) {
			return false
		}
	}
	if len(q.Text) == 0 {
		return true
	}
	for _, tw := range q.Text {
		if !hasWordPrefixed(d.first, tw) && !hasWordPrefixed(d.last, tw) &&
			!hasWordPrefixed(d.company, tw) && !hasWordPrefixed(d.email, tw) {
			return false
		}
	}
	return true
}

// hasWordPrefixed reports whether p prefixes a word of f (split as words() splits it), without
// splitting f: a search verifies thousands of records.
func hasWordPrefixed(f, p string) bool {
	if strings.ContainsFunc(p, isWordSep) {
		return false // no word holds a separator
	}
	for i := 0; i < len(f); {
		r, n := utf8.DecodeRuneInString(f[i:])
		if isWordSep(r) {
			i += n
			continue
		}
		// A word starts at i.
		if strings.HasPrefix(f[i:], p) {
			return true // p holds no separator, so it lies within the word
		}
		for i < len(f) {
			r, n := utf8.DecodeRuneInString(f[i:])
			if isWordSep(r) {
				break
			}
			i += n
		}
	}
	return false
}

// sortKey orders contacts by folded first name, then last name; contacts with neither come last.
// The id (appended by the index) breaks ties.
func (d searchDoc) sortKey() []byte {
	flag := byte(1)
	if d.first == "" && d.last == "" {
		flag = 2
	}
	k := make([]byte, 0, 2+len(d.first)+len(d.last)+1)
	k = append(k, flag)
	k = append(k, d.first...)
	k = append(k, 0)
	k = append(k, d.last...)
	return append(k, 0)
}

// digitGram is the length of the phone digit runs the term index holds: 'd' + every run of
// digitGram digits of the phone. A digit word of that length is one term; a longer one is found
// through its grams and verified; a shorter one matches so many phones that the search verifies
// it against the contacts it walks.
const digitGram = 4

// digitGrams are the grams of a digit word that a search intersects: the runs at every
// digitGram-th digit and the last run, which together cover the word.
func digitGrams(w string) []string {
	if len(w) < digitGram {
		return nil
	}
	var g []string
	for i := 0; i+digitGram < len(w); i += digitGram {
		g = append(g, w[i:i+digitGram])
	}
	return dedupe(append(g, w[len(w)-digitGram:]))
}

// terms are the contact's search index terms: 't'+word for each text word and 'd'+gram for each
// run of digitGram digits of its phone, so a digit word's occurrence anywhere in the phone is
// found through its grams; a phone too short for a gram is 's'+its digits; and the phone's
// set of distinct digits, maskTerm, which decides one-digit words.
func (d searchDoc) terms() []string {
	var t []string
	for _, w := range d.words() {
		t = append(t, "t"+w)
	}
	for i := 0; i+digitGram <= len(d.digits); i++ {
		t = append(t, "d"+d.digits[i:i+digitGram])
	}
	if n := len(d.digits); n > 0 && n < digitGram {
		t = append(t, "s"+d.digits)
	}
	if m := digitMask(d.digits); m != 0 {
		t = append(t, maskTerm(m))
	}
	return dedupe(t)
}

// digitMask is the set of distinct digits in s, bit i for digit i: a one-digit word occurs in a
// phone exactly when its bit is in the phone's mask.
func digitMask(s string) uint16 {
	var m uint16
	for i := 0; i < len(s); i++ {
		if c := s[i]; c >= '0' && c <= '9' {
			m |= 1 << (c - '0')
		}
	}
	return m
}

// maskTerm is the term of the contacts whose phone's distinct digits are exactly m: 'm' and
// those digits in ascending order ("m0145"). Every phone is under one such term, so the contacts
// holding a set of one-digit words are the union of the terms whose masks contain it.
func maskTerm(m uint16) string {
	b := make([]byte, 1, 11)
	b[0] = 'm'
	for i := range 10 {
		if m&(1<<i) != 0 {
			b = append(b, byte('0'+i))
		}
	}
	return string(b)
}

// termMask is maskTerm's inverse on a term's digits (the key after 'm', up to the 0x00).
func termMask(digits []byte) uint16 {
	var m uint16
	for _, c := range digits {
		if c >= '0' && c <= '9' {
			m |= 1 << (c - '0')
		}
	}
	return m
}

// shortDigitTerms are the terms whose contacts are exactly those whose phone contains w, a
// digit word one shorter than a gram: every gram that starts or ends with it, and a phone of
// w's length that is w (a longer phone holding w has w at the start or the end of one of its
// grams).
func shortDigitTerms(w string) []string {
	t := make([]string, 0, 21)
	for c := '0'; c <= '9'; c++ {
		t = append(t, "d"+string(c)+w, "d"+w+string(c))
	}
	return append(t, "s"+w)
}
