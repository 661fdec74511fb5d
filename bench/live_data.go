package main

import (
	"bytes"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"time"
)

// ---- import and export through the running server ----

// importRuns is how many times the n-row import through the server is measured: each run is
// n rows into a fresh workspace of the same server, so at 1,000,000 rows one run (about a
// minute) keeps `make bench` within its time; the mixed load's import is a second, loaded one.
func importRuns(n int) int {
	if n >= 1_000_000 {
		return 1
	}
	return 3
}

// dataRows: a fresh server on an empty data directory; `switchboard admin import-contacts`
// imports the benchmark's CSV through it (rows per second, the whole command's time), then
// `switchboard admin export-contacts` streams the n contacts back through it, sz.runs times:
// seconds, and the most anonymous memory the server held during the export beyond what it held
// before.
func dataRows(r *report, e liveEnv, sz liveSizes) error {
	dir := filepath.Join(e.dir, "import")
	data := filepath.Join(dir, "data")
	_ = os.RemoveAll(dir)
	var workspaces []string
	for i := range importRuns(e.n) {
		ws, err := runAdmin(e.bin, data, "create-workspace", "--name", fmt.Sprintf("Import %d", i+1))
		if err != nil {
			return err
		}
		workspaces = append(workspaces, ws)
	}
	srv, err := startSB(e.bin, data, filepath.Join(dir, "serve.log"))
	if err != nil {
		return err
	}
	defer srv.stop()
	logf("import through the server: %d rows, %d runs", e.n, len(workspaces))
	load := loadAvg()
	var worst float64
	var each []string
	for _, ws := range workspaces {
		start := time.Now()
		out, err := runAdmin(e.bin, data, "import-contacts", "--workspace", ws, e.csv)
		took := time.Since(start)
		if err != nil {
			return err
		}
		if !strings.HasPrefix(out, fmt.Sprintf("imported %d,", e.n)) {
			return fmt.Errorf("import: %s", out)
		}
		rate := float64(e.n) / took.Seconds()
		if worst == 0 || rate < worst {
			worst = rate
		}
		each = append(each, fmt.Sprintf("%.0f (%.1f s)", rate, took.Seconds()))
	}
	liveRow(r, fmt.Sprintf("import of %d rows through the running server (admin import-contacts)", e.n),
		fmt.Sprintf("worst of %d runs: %.0f rows/s (per run: %s; load %s)", len(workspaces), worst, strings.Join(each, ", "), load), "≥ 20,000 rows/s")

	// A fresh process, so that the memory the imports left in the Go heap does not hide what the
	// export needs.
	srv.stop()
	if srv, err = startSB(e.bin, data, filepath.Join(dir, "serve-export.log")); err != nil {
		return err
	}
	defer srv.stop()
	logf("export through the server: %d contacts, %d runs", e.n, sz.runs)
	load = loadAvg()
	var worstTook time.Duration
	var worstMem int64
	each = nil
	for range sz.runs {
		before, err := srv.rssAnon()
		if err != nil {
			return err
		}
		done := make(chan struct{})
		peak := srv.peakRSS(done)
		start := time.Now()
		lines, err := exportLines(e.bin, data, workspaces[0])
		took := time.Since(start)
		close(done)
		extra := <-peak - before
		if err != nil {
			return err
		}
		if lines != e.n+1 {
			return fmt.Errorf("export: %d lines, want %d contacts and the header", lines, e.n)
		}
		worstTook, worstMem = max(worstTook, took), max(worstMem, extra)
		each = append(each, fmt.Sprintf("%.1f s, +%s", took.Seconds(), mb(extra)))
	}
	liveRow(r, fmt.Sprintf("export of %d contacts through the running server (admin export-contacts)", e.n),
		fmt.Sprintf("worst of %d runs: %.1f s, +%s server memory (per run: %s; load %s)", sz.runs, worstTook.Seconds(), mb(worstMem),
			strings.Join(each, "; "), load), "≤ 15 s, ≤ 50 MB extra")
	return nil
}

// exportLines runs `switchboard admin export-contacts` against the running server and counts
// the lines of the CSV it writes (a contact's fields hold no line breaks here).
func exportLines(bin, data, ws string) (int, error) {
	cmd := exec.Command(bin, "admin", "export-contacts", "-data", data, "--workspace", ws)
	var errb bytes.Buffer
	cmd.Stderr = &errb
	out, err := cmd.StdoutPipe()
	if err != nil {
		return 0, err
	}
	if err := cmd.Start(); err != nil {
		return 0, err
	}
	lines := 0
	buf := make([]byte, 1<<20)
	for {
		k, rerr := out.Read(buf)
		lines += bytes.Count(buf[:k], []byte{'\n'})
		if rerr != nil {
			break
		}
	}
	if err := cmd.Wait(); err != nil {
		return 0, fmt.Errorf("export-contacts: %w: %s", err, errb.String())
	}
	return lines, nil
}
