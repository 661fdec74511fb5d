package web

import (
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"switchboard/internal/benchgen"
	"switchboard/store"
)

// BenchmarkImportThroughServer posts a generated CSV (realistic names, e-mails and companies,
// the generator of `make bench`) to the running server's import endpoint — what `switchboard
// admin import-contacts` does while a server runs; rows/s is the figure (target ≥ 20,000).
// The load average is reported as load1 (the machine is shared). Run:
//
//	go test ./web -run '^$' -bench ImportThroughServer -benchtime 1x
func BenchmarkImportThroughServer(b *testing.B) {
	if testing.Short() {
		b.Skip("imports 100,000 rows")
	}
	const n = 100_000
	csvPath := filepath.Join(b.TempDir(), "contacts.csv")
	if err := benchgen.WriteCSV(csvPath, n, 1, false); err != nil {
		b.Fatal(err)
	}
	b.StopTimer()
	var rows int
	var elapsed, cpu time.Duration
	for range b.N {
		st, err := store.Open(filepath.Join(b.TempDir(), "bench.db"), store.Options{})
		if err != nil {
			b.Fatal(err)
		}
		ws, _ := st.CreateWorkspace("Bench")
		srv := httptest.NewServer(New(st, Config{BackupToken: "tok"}))
		f, err := os.Open(csvPath)
		if err != nil {
			b.Fatal(err)
		}
		req, _ := http.NewRequest("POST", srv.URL+"/admin/contacts/import?workspace="+ws.ID, f)
		req.Header.Set("Authorization", "Bearer tok")
		b.StartTimer()
		start, cpu0 := time.Now(), processCPU()
		res, err := http.DefaultClient.Do(req)
		elapsed += time.Since(start)
		cpu += processCPU() - cpu0
		b.StopTimer()
		if err != nil || res.StatusCode != http.StatusOK {
			b.Fatalf("import: %v %v", res, err)
		}
		res.Body.Close()
		f.Close()
		rows += n
		srv.Close()
		st.Close()
	}
	b.ReportMetric(float64(rows)/elapsed.Seconds(), "rows/s")
	b.ReportMetric(float64(cpu.Microseconds())/float64(rows), "cpu-µs/row")
	b.ReportMetric(load1(), "load1")
}

// load1 is the one-minute load average (0 where /proc is missing).
func load1() float64 {
	raw, err := os.ReadFile("/proc/loadavg")
	if err != nil {
		return 0
	}
	f := strings.Fields(string(raw))
	if len(f) == 0 {
		return 0
	}
	v, _ := strconv.ParseFloat(f[0], 64)
	return v
}

// processCPU is the CPU time the process used so far (user and system, every thread): on a
// shared machine it says what an import costs when the wall clock says how busy others are.
func processCPU() time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}
