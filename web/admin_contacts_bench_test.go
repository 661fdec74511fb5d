package web

import (
	"bytes"
	"fmt"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"testing"
	"time"

	"switchboard/store"
)

// BenchmarkImportThroughServer posts a generated CSV to the running server's import endpoint
// (what `switchboard admin import-contacts` does while a server runs); rows/s is the figure
// (target ≥ 20,000 at 1,000,000 rows, which `make bench` runs outside in).
// Run: go test ./web -run '^$' -bench ImportThroughServer -benchtime 1x
func BenchmarkImportThroughServer(b *testing.B) {
	if testing.Short() {
		b.Skip("imports 100,000 rows")
	}
	const n = 100_000
	var csv bytes.Buffer
	csv.WriteString("firstName,lastName,phone,email\n")
	for i := range n {
		fmt.Fprintf(&csv, "First%d,Last%d,+1415%07d,p%d@example.com\n", i, i%977, i, i)
	}
	b.StopTimer()
	for range b.N {
		st, err := store.Open(filepath.Join(b.TempDir(), "bench.db"), store.Options{})
		if err != nil {
			b.Fatal(err)
		}
		ws, _ := st.CreateWorkspace("Bench")
		srv := httptest.NewServer(New(st, Config{BackupToken: "tok"}))
		req, _ := http.NewRequest("POST", srv.URL+"/admin/contacts/import?workspace="+ws.ID, bytes.NewReader(csv.Bytes()))
		req.Header.Set("Authorization", "Bearer tok")
		start := time.Now()
		res, err := http.DefaultClient.Do(req)
		elapsed := time.Since(start)
		if err != nil || res.StatusCode != http.StatusOK {
			b.Fatalf("import: %v %v", res, err)
		}
		res.Body.Close()
		b.ReportMetric(float64(n)/elapsed.Seconds(), "rows/s")
		srv.Close()
		st.Close()
	}
}
