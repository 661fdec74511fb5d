package main

import (
	"fmt"
	"math/rand/v2"

	_ "modernc.org/sqlite"

	"switchboard/internal/benchgen"
)

// ---- queries ----

type kind struct {
	name, example string
	queries       []string
}

// searchKinds are the query kinds the search target names (3-letter name prefix, two
// word prefixes, 4 phone digits, e-mail prefix, no match), drawn from the generated
// contacts so that they match what is there (and from nothing, for no match).
func searchKinds(n int) []kind {
	g := benchgen.New(7)
	r := rand.New(rand.NewPCG(7, 7))
	var k3, k12, two, digits, email, emailDigit []string
	seen := map[string]bool{}
	add := func(list *[]string, q string) {
		if !seen[q] {
			seen[q] = true
			*list = append(*list, q)
		}
	}
	for _, q := range []string{"mat", "joh", "mar", "jen", "gar", "rob", "sar", "wil", "lop", "ngu", "mül", "kat"} {
		add(&k3, q)
	}
	for _, q := range []string{"a", "e", "j", "m", "s", "z", "jo", "ma", "an", "da", "el", "li", "ro", "sa", "ch", "ke"} {
		add(&k12, q)
	}
	for range 400 {
		c := g.Next()
		first, last := benchgen.EmailPart(c.First), benchgen.EmailPart(c.Last)
		if len(first) >= 3 && len(k3) < 150 {
			add(&k3, first[:3])
		}
		if len(last) >= 3 && len(k3) < 150 {
			add(&k3, last[:3])
		}
		if len(first) >= 3 && len(last) >= 3 && len(two) < 150 {
			add(&two, first[:3]+" "+last[:3])
		}
		if len(digits) < 150 {
			add(&digits, fmt.Sprintf("%04d", r.IntN(10_000)))
		}
		if len(email) < 150 {
			add(&email, first+"."+last[:min(2, len(last))])
		}
		if len(emailDigit) < 150 {
			// first.last+N as typed up to the first digit of N: the digit word is common.
			add(&emailDigit, first+"."+last+"+"+fmt.Sprint(1+r.IntN(9)))
		}
	}
	add(&two, "mat gar")
	add(&emailDigit, "lisa.king+4")
	return []kind{
		{"3-letter prefix", "Mat", k3},
		{"1–2-letter prefix", "a, Jo", k12},
		{"two word prefixes", "mat gar", two},
		{"4 phone digits", "0147", digits},
		{"e-mail prefix", "lisa.ki", email},
		{"e-mail prefix ending in a digit", "lisa.king+4", emailDigit},
		{"no match", "zzqxv", []string{"zzqxv", "qqq", "xylophonist", "zz top", "9999999999999", "kkk jjj"}},
	}
}

// existingPhones are the phones of the first n imported contacts.
func existingPhones(n int) []string {
	g := benchgen.New(1)
	out := make([]string, n)
	for i := range out {
		out[i] = g.Next().Phone
	}
	return out
}
