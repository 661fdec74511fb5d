package store

import (
	"io"
	"runtime"
	"testing"
	"time"
)

// BenchmarkContactsList is one page of /contacts at 1,000,000 contacts (10 % opted out): the
// count and the first 100, for each filter and sort. Target: ≤ 50 ms each.
// Run: go test ./store -run '^$' -bench ContactsList -benchtime 20x
func BenchmarkContactsList(b *testing.B) {
	if testing.Short() {
		b.Skip("builds a 1,000,000-contact database")
	}
	db := bench1MFixture(b)
	s, err := Open(db.path, Options{})
	if err != nil {
		b.Fatal(err)
	}
	defer s.Close()
	yes, no := true, false
	for name, f := range map[string]ContactFilter{
		"all-by-name":   {},
		"all-newest":    {Newest: true},
		"opted-out":     {OptedOut: &yes},
		"not-opted-out": {OptedOut: &no},
		"created-after": {CreatedAfter: time.Now().Add(-time.Hour)},
	} {
		b.Run(name, func(b *testing.B) {
			for b.Loop() {
				p, err := s.ListContacts(db.workspace, f, "", 100)
				if err != nil || p.Total == 0 {
					b.Fatalf("%+v %v", p.Total, err)
				}
			}
		})
	}
}

// BenchmarkExportContacts writes every contact of the 1,000,000-contact database as CSV to a
// discarding writer: the time, and the heap in use at its end above the start (target ≤ 15 s
// and ≤ 50 MB).
// Run: go test ./store -run '^$' -bench ExportContacts -benchtime 1x
func BenchmarkExportContacts(b *testing.B) {
	if testing.Short() {
		b.Skip("builds a 1,000,000-contact database")
	}
	db := bench1MFixture(b)
	s, err := Open(db.path, Options{})
	if err != nil {
		b.Fatal(err)
	}
	defer s.Close()
	for b.Loop() {
		var before, peak runtime.MemStats
		runtime.GC()
		runtime.ReadMemStats(&before)
		n := 0
		start := time.Now()
		err := s.ExportContacts(db.workspace, ContactFilter{}, func(ExportRow) error {
			if n++; n%100_000 == 0 {
				runtime.ReadMemStats(&peak)
			}
			return nil
		})
		if err != nil {
			b.Fatal(err)
		}
		if err := s.WriteContactsCSV(io.Discard, db.workspace, ContactFilter{}, nil); err != nil {
			b.Fatal(err)
		}
		b.ReportMetric(time.Since(start).Seconds()/2, "s/export")
		b.ReportMetric(float64(int64(peak.HeapInuse)-int64(before.HeapInuse))/(1<<20), "MB-extra-heap")
		if n != db.contacts {
			b.Fatalf("exported %d of %d", n, db.contacts)
		}
	}
}
