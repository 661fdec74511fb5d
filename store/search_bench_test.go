package store

// Search and start-up benchmarks over one workspace of 1,000,000 contacts (targets: search
// p99 ≤ 10 ms, index ≤ 2× the contact data, start ≤ 2 s). The database is built once per
// process (see bench1MFixture); the first benchmark that needs it pays for the build (an import
// of a generated CSV: minutes).
//
//	go test ./store -run '^$' -bench 'Search1M|Startup1M' -timeout 1h
//
// The default -benchtime (1s) gives each query kind several hundred searches for its p99; a
// -benchtime of Nx runs Startup1M N times too (each Open takes a fraction of a second).

import (
	"fmt"
	"math/rand/v2"
	"slices"
	"switchboard/internal/benchgen"
	"testing"
	"time"

	"switchboard/store/kv"
)

// BenchmarkSearch1M runs find-contact queries against the 1M-contact workspace and reports the
// p50 and p99 latency of each kind, and the index size against the contact data size.
func BenchmarkSearch1M(b *testing.B) {
	fx := bench1MFixture(b)
	if fx.build > 0 {
		b.Logf("fixture: %d contacts imported in %s, %d opt-outs", fx.contacts, fx.build.Round(time.Second), fx.optOuts)
	} else {
		b.Logf("fixture: %d contacts, %d opt-outs, reused from %s", fx.contacts, fx.optOuts, fx.path)
	}
	s, err := Open(fx.path, Options{Timeout: 5 * time.Second})
	if err != nil {
		b.Fatal(err)
	}
	defer s.Close()

	r := rand.New(rand.NewPCG(7, 7))
	prefixes := []string{"joh", "mar", "dav", "jen", "chr", "mic", "sar", "jos", "ann", "eli",
		"gar", "rob", "lop", "wil", "and", "kat", "mül", "ngu", "sof", "bri"}
	var digits []string
	for range 200 {
		digits = append(digits, fmt.Sprintf("%04d", r.IntN(10_000)))
	}
	// Email prefixes as people type them: first.la of generated contacts.
	var emails []string
	g := benchgen.New(99)
	for range 200 {
		c := g.Next()
		last := benchgen.EmailPart(c.Last)
		emails = append(emails, benchgen.EmailPart(c.First)+"."+last[:min(2, len(last))])
	}

	for _, k := range []struct {
		name    string
		queries []string
	}{
		{"prefix-name", prefixes},
		{"phone-4digits", digits},
		{"email-prefix", emails},
		{"no-match", []string{"zzqxv"}},
	} {
		b.Run(k.name, func(b *testing.B) {
			benchQueries(b, s, fx.workspace, k.queries)
		})
	}
	b.Run("index-size", func(b *testing.B) {
		// Measured once: the figures are sizes, not times (it walks every bucket, seconds).
		sz, err := measureIndex(s)
		if err != nil {
			b.Fatal(err)
		}
		for b.Loop() {
		}
		b.ReportMetric(float64(sz.dataKV)/1e6, "data-MB")
		b.ReportMetric(float64(sz.indexKV)/1e6, "index-MB")
		b.ReportMetric(float64(sz.indexKV)/float64(sz.dataKV), "index/data")
		b.ReportMetric(float64(sz.dataLeaf)/1e6, "data-leaf-MB")
		b.ReportMetric(float64(sz.indexLeaf)/1e6, "index-leaf-MB")
		b.ReportMetric(float64(sz.indexLeaf)/float64(sz.dataLeaf), "index/data-leaf")
		for _, line := range sz.perBucket {
			b.Log(line)
		}
	})
}

// benchQueries searches for the queries in turn and reports latency percentiles.
func benchQueries(b *testing.B, s *Store, ws string, queries []string) {
	lat := make([]time.Duration, 0, b.N)
	found := 0
	i := 0
	for b.Loop() {
		q := queries[i%len(queries)]
		i++
		start := time.Now()
		res, err := s.SearchContacts(ws, q)
		lat = append(lat, time.Since(start))
		if err != nil {
			b.Fatal(err)
		}
		found += len(res)
	}
	slices.Sort(lat)
	pct := func(p float64) float64 {
		return float64(lat[min(len(lat)-1, int(p*float64(len(lat))))].Microseconds()) / 1000
	}
	b.ReportMetric(pct(0.50), "p50-ms")
	b.ReportMetric(pct(0.99), "p99-ms")
	b.ReportMetric(float64(lat[len(lat)-1].Microseconds())/1000, "max-ms")
	b.ReportMetric(float64(found)/float64(len(lat)), "results/op")
}

type indexSizes struct {
	dataKV, indexKV     int64 // key + value bytes
	dataLeaf, indexLeaf int64 // bbolt leaf bytes in use (entry headers included)
	perBucket           []string
}

// contactIndexBuckets are every bucket that exists to find or order contacts.
var contactIndexBuckets = [][]byte{bContactPhone, bContactEmail, bContactTerms, bContactOrder, bContactNums,
	bContactPhoneRecent, bContactEmailRecent, bContactOrderRecent}

// measureIndex sums the contact index buckets against the contacts bucket.
func measureIndex(s *Store) (indexSizes, error) {
	var sz indexSizes
	err := s.view(func(tx *kv.Tx) error {
		for _, name := range append([][]byte{bContacts}, contactIndexBuckets...) {
			b := tx.Bucket(name)
			var kv, n int64
			// Every workspace's nested bucket.
			if err := b.ForEachBucket(func(ws []byte) error {
				return b.Bucket(ws).ForEach(func(k, v []byte) error {
					kv += int64(len(k) + len(v))
					n++
					return nil
				})
			}); err != nil {
				return err
			}
			leaf := int64(b.Stats().LeafInuse)
			if string(name) == string(bContacts) {
				sz.dataKV, sz.dataLeaf = kv, leaf
			} else {
				sz.indexKV += kv
				sz.indexLeaf += leaf
			}
			sz.perBucket = append(sz.perBucket, fmt.Sprintf("%-22s %10d entries %8.1f MB key+value %8.1f MB leaf in use",
				name, n, float64(kv)/1e6, float64(leaf)/1e6))
		}
		return nil
	})
	return sz, err
}

// BenchmarkStartup1M opens the 1M-contact database as `serve` does: migrations, then the
// opt-out bloom filters (100,000 opt-outs). The file is in the page cache, as on a restart.
func BenchmarkStartup1M(b *testing.B) {
	fx := bench1MFixture(b)
	for b.Loop() {
		s, err := Open(fx.path, Options{Timeout: 5 * time.Second})
		if err != nil {
			b.Fatal(err)
		}
		if f := s.optFilterOf(fx.workspace); f == nil || f.n != uint(fx.optOuts) {
			b.Fatalf("opt-out filter not built: %+v", f)
		}
		s.Close()
	}
	b.ReportMetric(float64(b.Elapsed().Milliseconds())/float64(b.N), "ms/op")
}
