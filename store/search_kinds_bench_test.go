package store

import (
	"fmt"
	"math/rand/v2"
	"slices"
	"testing"
	"time"

	"switchboard/internal/benchgen"
)

// BenchmarkSearchKinds1M is find-contact in process for the query kinds that `make bench` holds
// to SQLite FTS5 (issue 36: no match and 4 phone digits never slower, two word prefixes a fifth
// of it), with the queries `make bench` draws. Each kind reports its p50 and p99 and the CPU
// time per search (which a shared machine does not blur as it does the wall clock), and logs its
// costliest queries by their mean.
//
//	SWITCHBOARD_BENCH_1M_DB=FILE go test ./store -run '^$' -bench SearchKinds1M -benchtime 2s
func BenchmarkSearchKinds1M(b *testing.B) {
	fx := bench1MFixture(b)
	s, err := Open(fx.path, Options{Timeout: 5 * time.Second})
	if err != nil {
		b.Fatal(err)
	}
	defer s.Close()
	g := benchgen.New(7)
	r := rand.New(rand.NewPCG(7, 7))
	var two, digits []string
	for range 400 {
		c := g.Next()
		first, last := benchgen.EmailPart(c.First), benchgen.EmailPart(c.Last)
		if len(first) >= 3 && len(last) >= 3 && len(two) < 150 {
			two = append(two, first[:3]+" "+last[:3])
		}
		if len(digits) < 150 {
			digits = append(digits, fmt.Sprintf("%04d", r.IntN(10_000)))
		}
	}
	for _, k := range []struct {
		name    string
		queries []string
	}{
		{"no-match", []string{"zzqxv", "qqq", "xylophonist", "zz top", "9999999999999", "kkk jjj"}},
		{"4-phone-digits", digits},
		{"two-word-prefixes", append(two, "mat gar")},
	} {
		b.Run(k.name, func(b *testing.B) {
			per := make([]time.Duration, len(k.queries))
			runs := make([]int, len(k.queries))
			var lat []time.Duration
			i := 0
			cpu0 := processCPU()
			for b.Loop() {
				q := i % len(k.queries)
				i++
				start := time.Now()
				if _, err := s.SearchContacts(fx.workspace, k.queries[q]); err != nil {
					b.Fatal(err)
				}
				d := time.Since(start)
				lat = append(lat, d)
				per[q] += d
				runs[q]++
			}
			b.ReportMetric(float64(processCPU()-cpu0)/float64(b.N)/1e6, "cpu-ms/op")
			slices.Sort(lat)
			at := func(p float64) float64 {
				return float64(lat[min(len(lat)-1, int(p*float64(len(lat))))].Microseconds()) / 1000
			}
			b.ReportMetric(at(0.50), "p50-ms")
			b.ReportMetric(at(0.99), "p99-ms")
			order := make([]int, len(k.queries))
			for j := range order {
				order[j] = j
			}
			mean := func(j int) time.Duration { return per[j] / time.Duration(max(runs[j], 1)) }
			slices.SortFunc(order, func(x, y int) int { return int(mean(y) - mean(x)) })
			for _, j := range order[:min(5, len(order))] {
				b.Logf("%-16q mean %s", k.queries[j], mean(j).Round(time.Microsecond))
			}
		})
	}
}
