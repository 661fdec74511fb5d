package cli

import (
	"switchboard/internal/testutil"

	"fmt"
	"net/http"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"testing"
	"time"

	"switchboard/internal/benchgen"
)

// BenchmarkScheduledBackup: the first scheduled backup of a 1,000,000-contact database by the
// built binary into a file:/// target (gzip-compressed, checksummed), and the p99 of
// create-conversation over HTTP while it runs against the p99 of the same calls with no backup
// (targets: ≤ 60 s, and at most twice the p99, §21). backup-s is the server's own measure (its
// "backup written … took=" log line).
//
//	go test -run '^$' -bench ScheduledBackup -benchtime 1x -timeout 60m ./cli
func BenchmarkScheduledBackup(b *testing.B) {
	if testing.Short() {
		b.Skip("imports 1,000,000 contacts")
	}
	const contacts = 1_000_000
	var backupSecs, p99Idle, p99During, samples, dbMB, gzMB float64
	for i := 0; i < b.N; i++ {
		b.StopTimer()
		f := newFixture(b)
		csv := filepath.Join(b.TempDir(), "contacts.csv")
		if err := benchgen.WriteCSV(csv, contacts, 1, false); err != nil {
			b.Fatal(err)
		}
		if r := sbFor(b, 30*time.Minute, nil, "", "admin", "import-contacts", "-data="+f.data, "--workspace", f.ws, csv); r.code != 0 {
			b.Fatalf("import: %s", r.stderr)
		}
		st, err := os.Stat(filepath.Join(f.data, "switchboard.db"))
		if err != nil {
			b.Fatal(err)
		}
		dbMB = float64(st.Size()) / 1e6
		seq := 0
		createConversation := func(base string) time.Duration {
			seq++
			start := time.Now()
			apiOK(b, base, f.token, "create-conversation-action", map[string]any{"developerProvider": "zapier", "id": f.ws,
				"from": "+14155550100", "to": fmt.Sprintf("+1720%07d", seq)}, http.StatusCreated, nil)
			return time.Since(start)
		}

		// The p99 with no backup running.
		addr := "127.0.0.1:" + testutil.FreePort(b)
		srv := startServer(b, addr, nil, "-addr", addr, "-data", f.data, "-log-requests=false", "-rate-limit", "0")
		var idle []time.Duration
		for range 300 {
			idle = append(idle, createConversation(srv.base))
		}
		srv.stop(b)

		// With an empty target the first backup starts as the server does; the calls go on
		// until the backup is in place.
		dir := b.TempDir()
		b.StartTimer()
		srv = startServer(b, addr, nil, "-addr", addr, "-data", f.data, "-log-requests=false", "-rate-limit", "0",
			"-backup-url", "file://"+dir, "-backup-every", "1h")
		var during []time.Duration
		deadline := time.Now().Add(10 * time.Minute)
		for len(backupNames(b, dir)) == 0 {
			during = append(during, createConversation(srv.base))
			if time.Now().After(deadline) {
				b.Fatalf("no backup within 10 minutes; server log:\n%s", srv.stderr)
			}
		}
		b.StopTimer()
		written := regexp.MustCompile(`backup written.* bytes=(\d+) took=(\S+)`)
		took := written.FindStringSubmatch(srv.stderr.String())
		for wait := time.Now().Add(10 * time.Second); took == nil && time.Now().Before(wait); { // the line follows the rename
			time.Sleep(10 * time.Millisecond)
			took = written.FindStringSubmatch(srv.stderr.String())
		}
		if took == nil {
			b.Fatalf("no backup log line:\n%s", srv.stderr)
		}
		d, err := time.ParseDuration(took[2])
		if err != nil {
			b.Fatal(err)
		}
		var gz int64
		fmt.Sscan(took[1], &gz)
		backupSecs, gzMB = d.Seconds(), float64(gz)/1e6
		p99Idle, p99During, samples = p99(idle), p99(during), float64(len(during))
		srv.stop(b)
	}
	b.ReportMetric(backupSecs, "backup-s")
	b.ReportMetric(dbMB, "db-MB")
	b.ReportMetric(gzMB, "backup-MB")
	b.ReportMetric(p99Idle, "p99-ms-idle")
	b.ReportMetric(p99During, "p99-ms-during")
	b.ReportMetric(samples, "calls-during")
}

// p99 is the 99th percentile of ds in milliseconds.
func p99(ds []time.Duration) float64 {
	if len(ds) == 0 {
		return 0
	}
	s := slices.Clone(ds)
	slices.Sort(s)
	return float64(s[(len(s)*99)/100]) / float64(time.Millisecond)
}
