package index

import (
	"strings"
	"switchboard/internal/textfold"
	"unicode/utf8"
)

// Text is what a search matches a contact against and orders it by, as its record holds it:
// first and last name, company, email, and the phone (the default channel's address).
type Text struct {
	First, Last, Company, Email, Phone string
}

// TextFunc reads the text of the contact with id from the store's records; ok is false when it
// has none (deleted) or its record does not decode.
type TextFunc func(id [16]byte) (t Text, ok bool)

// Doc is the folded text a contact is matched against; it is derived from the record, never
// stored.
type Doc struct {
	First, Last, Company, Email, Digits string
}

// DocOf folds t.
func DocOf(t Text) Doc {
	return Doc{
		First:   textfold.Fold(t.First),
		Last:    textfold.Fold(t.Last),
		Company: textfold.Fold(t.Company),
		Email:   textfold.Fold(t.Email),
		Digits:  Digits(t.Phone),
	}
}

// Words are the doc's text words, every field split at the same separators as queries.
func (d Doc) Words() []string {
	var w []string
	for _, f := range []string{d.First, d.Last, d.Company, d.Email} {
		w = append(w, strings.FieldsFunc(f, isWordSep)...)
	}
	return dedupe(w)
}

// Matches applies the search rules: every text word prefixes a word, every digit word occurs
// in the phone digits.
func (d Doc) Matches(q Query) bool {
	for _, dw := range q.Digits {
		if !strings.Contains(d.Digits, dw) {
			return false
		}
	}
	if len(q.Text) == 0 {
		return true
	}
	for _, tw := range q.Text {
		if !hasWordPrefixed(d.First, tw) && !hasWordPrefixed(d.Last, tw) &&
			!hasWordPrefixed(d.Company, tw) && !hasWordPrefixed(d.Email, tw) {
			return false
		}
	}
	return true
}

// hasWordPrefixed reports whether p prefixes a word of f (split as Words splits it), without
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

// SortKey orders contacts by folded first name, then last name; contacts with neither come last.
// The id (appended by the index) breaks ties.
func (d Doc) SortKey() []byte {
	flag := byte(1)
	if d.First == "" && d.Last == "" {
		flag = 2
	}
	k := make([]byte, 0, 2+len(d.First)+len(d.Last)+1)
	k = append(k, flag)
	k = append(k, d.First...)
	k = append(k, 0)
	k = append(k, d.Last...)
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

// Terms are the contact's search index terms: 't'+word for each text word and 'd'+gram for each
// run of digitGram digits of its phone, so a digit word's occurrence anywhere in the phone is
// found through its grams; a phone too short for a gram is 's'+its digits; and the phone's
// length and set of distinct digits, maskTerm, which decides one-digit words and rules out the
// phones too short for a long digit word.
func (d Doc) Terms() []string {
	var t []string
	for _, w := range d.Words() {
		t = append(t, "t"+w)
	}
	for i := 0; i+digitGram <= len(d.Digits); i++ {
		t = append(t, "d"+d.Digits[i:i+digitGram])
	}
	if n := len(d.Digits); n > 0 && n < digitGram {
		t = append(t, "s"+d.Digits)
	}
	if m := digitMask(d.Digits); m != 0 {
		t = append(t, maskTerm(len(d.Digits), m))
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

// maskTerm is the term of the contacts whose phones have n digits, of which the distinct ones
// are exactly m: 'l', n as two digits, and those digits in ascending order ("l110145"). Every
// phone is under one such term, the terms in order of length: the contacts holding a set of
// digits are the union of the terms whose masks contain it, and those whose phones are long
// enough for a digit word of n digits are under the terms from "l"+n on (maskPrefix).
func maskTerm(n int, m uint16) string {
	b := maskPrefix(n)
	for i := range 10 {
		if m&(1<<i) != 0 {
			b = append(b, byte('0'+i))
		}
	}
	return string(b)
}

// maskPrefix is the start of the mask terms of phones of n digits, n at most 99.
func maskPrefix(n int) []byte {
	n = min(max(n, 0), 99)
	return append(make([]byte, 0, 13), 'l', byte('0'+n/10), byte('0'+n%10))
}

// maskTermLen is the number of digits of the phones under a mask term's key k (after the 'l').
func maskTermLen(k []byte) int { return int(k[1]-'0')*10 + int(k[2]-'0') }

// termMask is maskTerm's inverse on a term's digits (the key after 'l' and the length, up to
// the 0x00).
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

// MaskTermOf is the mask term of a phone (maskTerm of its digits' count and distinct digits),
// "" when it has no digit.
func MaskTermOf(phone string) string {
	if m := digitMask(phone); m != 0 {
		return maskTerm(len(Digits(phone)), m)
	}
	return ""
}
