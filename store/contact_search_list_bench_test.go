package store

// The contacts list's first page with a search, over one workspace of 1,000,000 contacts
// (target: p99 ≤ 10 ms, as for find-contact-action): the search's every match counted, the
// first 100 in name order or newest first. The database is bench1MFixture's.
//
//	go test ./store -run '^$' -bench 'SearchList1M' -timeout 1h

import (
	"fmt"
	"math/rand/v2"
	"slices"
	"testing"
	"time"

	"switchboard/internal/benchgen"
)

func BenchmarkSearchList1M(b *testing.B) {
	fx := bench1MFixture(b)
	s, err := Open(fx.path, Options{Timeout: 5 * time.Second})
	if err != nil {
		b.Fatal(err)
	}
	defer s.Close()
	g := benchgen.New(7)
	r := rand.New(rand.NewPCG(7, 7))
	var k3, two, digits, email, emailDigit []string
	for range 150 {
		c := g.Next()
		first, last := benchgen.EmailPart(c.First), benchgen.EmailPart(c.Last)
		if len(first) >= 3 {
			k3 = append(k3, first[:3])
		}
		if len(first) >= 3 && len(last) >= 3 {
			two = append(two, first[:3]+" "+last[:3])
		}
		digits = append(digits, fmt.Sprintf("%04d", r.IntN(10_000)))
		email = append(email, first+"."+last[:min(2, len(last))])
		emailDigit = append(emailDigit, first+"."+last+"+"+fmt.Sprint(1+r.IntN(9)))
	}
	kinds := []struct {
		name    string
		queries []string
	}{
		{"3-letter-prefix", k3},
		{"1-2-letter-prefix", []string{"a", "e", "j", "m", "s", "z", "jo", "ma", "an", "da", "el", "li", "ro", "sa", "ch", "ke"}},
		{"two-word-prefixes", two},
		{"4-phone-digits", digits},
		{"email-prefix", email},
		{"email-prefix-digit", emailDigit},
		{"no-match", []string{"zzqxv", "qqq", "xylophonist", "zz top", "9999999999999", "kkk jjj"}},
	}
	for _, newest := range []bool{false, true} {
		for _, k := range kinds {
			name := k.name
			if newest {
				name += "-newest"
			}
			b.Run(name, func(b *testing.B) {
				var lat []time.Duration
				total := 0
				i := 0
				for b.Loop() {
					q := k.queries[i%len(k.queries)]
					i++
					start := time.Now()
					p, err := s.ListContacts(fx.workspace, ContactFilter{Search: q, Newest: newest}, "", 100)
					lat = append(lat, time.Since(start))
					if err != nil {
						b.Fatal(err)
					}
					total += p.Total
				}
				slices.Sort(lat)
				pct := func(p float64) float64 {
					return float64(lat[min(len(lat)-1, int(p*float64(len(lat))))].Microseconds()) / 1000
				}
				b.ReportMetric(pct(0.50), "p50-ms")
				b.ReportMetric(pct(0.99), "p99-ms")
				b.ReportMetric(float64(lat[len(lat)-1].Microseconds())/1000, "max-ms")
				b.ReportMetric(float64(total)/float64(len(lat)), "matches/op")
			})
		}
	}
}
