package index

import (
	"bytes"
	"cmp"
	"strings"
	"testing"
)

var docSeeds = [][5]string{
	{"José", "Núñez", "Globex", "ana.lopez+vip@mail.example.com", "+14155550123"},
	{"", "", "", "", ""},
	{"a\x00b", "\x00", "c\x00", "\x00@\x00", "+1\x002"},
	{"Ana\tMaría", "O'Neil\n", "\xff\xfe", "İ@ß.com", "+442071234567"},
	{"ꭰ", "Ᏸ", "ﬃ", "①", "+1"},
}

// FuzzDocRoundTrip: a contact's index terms are well formed, and a contact is found by its own
// names and phone digits.
func FuzzDocRoundTrip(f *testing.F) {
	for _, s := range docSeeds {
		f.Add(s[0], s[1], s[2], s[3], s[4])
	}
	f.Fuzz(func(t *testing.T, first, last, company, email, phone string) {
		d := DocOf(Text{First: first, Last: last, Company: company, Email: email, Phone: phone})
		if !isASCIIDigitsOrEmpty(d.Digits) {
			t.Fatalf("doc digits %q of phone %q are not ASCII digits", d.Digits, phone)
		}
		// Every indexed term is one of the doc's words or phone digit suffixes, or its phone's
		// digit mask (exactly one when it has digits).
		masks := 0
		for _, term := range d.Terms() {
			if len(term) < 2 || !strings.ContainsRune("tdsl", rune(term[0])) || strings.ContainsRune(term, 0) {
				t.Fatalf("bad index term %q", term)
			}
			if term[0] == 'l' {
				masks++
				if term != maskTerm(len(d.Digits), digitMask(d.Digits)) || termMask([]byte(term[3:])) != digitMask(d.Digits) ||
					maskTermLen([]byte(term)) != min(len(d.Digits), 99) {
					t.Fatalf("mask term %q of digits %q", term, d.Digits)
				}
			}
		}
		if want := min(len(d.Digits), 1); masks != want {
			t.Fatalf("%d mask terms for digits %q, want %d", masks, d.Digits, want)
		}
		// A field used as the whole query finds the contact, unless a piece of it is a digit word
		// (which must then occur in the phone).
		for _, field := range []string{first, last, company, email} {
			q := ParseQuery(field)
			if len(q.Digits) > 0 {
				continue
			}
			if !d.Matches(q) {
				t.Fatalf("contact %#v is not found by its own field %q (query %#v)", d, field, q)
			}
		}
		if d.Digits != "" && !d.Matches(ParseQuery(d.Digits)) {
			t.Fatalf("contact is not found by its phone digits %q", d.Digits)
		}
	})
}

func isASCIIDigitsOrEmpty(s string) bool { return s == "" || isASCIIDigits(s) }

// FuzzSortKey: the order index's byte order is folded first name, then last name, with
// contacts that have neither last.
func FuzzSortKey(f *testing.F) {
	f.Add("ana", "b", "ana b", "")
	f.Add("a", "", "", "z")
	f.Add("", "", "zed", "")
	f.Add("Émile", "Zola", "emma", "a")
	f.Fuzz(func(t *testing.T, f1, l1, f2, l2 string) {
		a := DocOf(Text{First: f1, Last: l1})
		b := DocOf(Text{First: f2, Last: l2})
		rank := func(d Doc) int {
			if d.First == "" && d.Last == "" {
				return 1
			}
			return 0
		}
		want := cmp.Or(cmp.Compare(rank(a), rank(b)), strings.Compare(a.First, b.First), strings.Compare(a.Last, b.Last))
		if got := bytes.Compare(a.SortKey(), b.SortKey()); got != want {
			t.Fatalf("sortKey order of (%q %q) vs (%q %q) = %d, want %d", a.First, a.Last, b.First, b.Last, got, want)
		}
	})
}
