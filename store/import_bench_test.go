package store

import (
	"fmt"
	"os"
	"path/filepath"
	"testing"
	"time"
)

// BenchmarkImportContacts imports a generated CSV into a fresh database; rows/s and the file's
// bytes per contact are the figures.
// Run: go test ./store -run '^$' -bench ImportContacts -benchtime 1x
func BenchmarkImportContacts(b *testing.B) {
	for _, n := range []int{100_000, bench1M} {
		b.Run(fmt.Sprintf("rows=%d", n), func(b *testing.B) {
			csvPath := benchCSV(b, n)
			var rows int
			var elapsed time.Duration
			var size int64
			i := 0
			for b.Loop() {
				b.StopTimer()
				i++
				path := filepath.Join(benchDir(b), fmt.Sprintf("import-%d-%d.db", n, i))
				s, err := Open(path, Options{})
				if err != nil {
					b.Fatal(err)
				}
				ws := newBenchWorkspace(b, s)
				f, err := os.Open(csvPath)
				if err != nil {
					b.Fatal(err)
				}
				b.StartTimer()
				start := time.Now()
				rep, err := s.ImportContacts(ws, f, benchProgress(start))
				elapsed += time.Since(start)
				b.StopTimer()
				f.Close()
				s.Close()
				if fi, err := os.Stat(path); err == nil {
					size = fi.Size()
				}
				os.Remove(path)
				if err != nil {
					b.Fatal(err)
				}
				if rep.Imported != n {
					b.Fatalf("imported %d of %d: %+v", rep.Imported, n, rep.Errors[:min(5, len(rep.Errors))])
				}
				rows += n
				b.StartTimer()
			}
			b.ReportMetric(float64(rows)/elapsed.Seconds(), "rows/s")
			// The file's size over its contacts after the import (§8, §29: ≤ 400 B at 1M).
			b.ReportMetric(float64(size)/float64(n), "B/contact")
		})
	}
}
