package cli

import (
	"fmt"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"switchboard/internal/testutil"
	"testing"
	"time"
)

// BenchmarkGroupBroadcast100k: a broadcast to a 100,000-member group (imported with the CSV's
// groups column, 10 % of the members opted out), sent over HTTP to the built binary: seconds
// until the 202 answer, by which time every copy is resolved and queued (target ≤ 5 s, §9).
//
//	go test -run '^$' -bench GroupBroadcast100k -benchtime 1x .
func BenchmarkGroupBroadcast100k(b *testing.B) {
	const members = 100_000
	var queuedSecs, optedOut float64
	for i := 0; i < b.N; i++ {
		b.StopTimer()
		f := newFixture(b)
		var csv strings.Builder
		csv.WriteString("firstName,lastName,phone,groups\n")
		for m := range members {
			fmt.Fprintf(&csv, "Member%d,Bench,+1303%07d,Everyone\n", m, m)
		}
		path := filepath.Join(b.TempDir(), "members.csv")
		if err := os.WriteFile(path, []byte(csv.String()), 0o600); err != nil {
			b.Fatal(err)
		}
		if r := sbFor(b, 10*time.Minute, nil, "", "admin", "import-contacts", "-data="+f.data, "--workspace", f.ws, path); r.code != 0 {
			b.Fatalf("import: %s", r.stderr)
		}
		addr := "127.0.0.1:" + testutil.FreePort(b)
		srv := startServer(b, addr, nil, "-addr", addr, "-data", f.data, "-log-requests=false", "-rate-limit", "0")
		// Every tenth member opts out.
		for m := 0; m < members; m += 10 {
			if m%10_000 == 0 && m > 0 {
				continue // keep the setup quick: 9,990 opt-outs, close to 10 %
			}
			apiOK(b, srv.base, f.token, "create-opt-out-action", map[string]any{"developerProvider": "zapier", "id": f.ws,
				"phone": fmt.Sprintf("+1303%07d", m)}, http.StatusCreated, nil)
		}
		var groups []struct{ ID string }
		apiOK(b, srv.base, f.token, "list-groups-action", map[string]any{"developerProvider": "zapier", "id": f.ws}, http.StatusOK, &groups)
		if len(groups) != 1 {
			b.Fatalf("groups after import = %v, want Everyone", groups)
		}
		b.StartTimer()
		start := time.Now()
		var res struct {
			Recipients    []string
			TotalOptedOut int
		}
		apiOK(b, srv.base, f.token, "send-broadcast-action", map[string]any{"developerProvider": "zapier", "id": f.ws,
			"from": "+14155550100", "groupIds": []string{groups[0].ID}, "text": "Hi {{firstName|there}}, our sale starts today."},
			http.StatusAccepted, &res)
		queuedSecs = time.Since(start).Seconds()
		b.StopTimer()
		optedOut = float64(res.TotalOptedOut)
		if len(res.Recipients)+res.TotalOptedOut != members {
			b.Fatalf("queued %d + opted out %d, want %d", len(res.Recipients), res.TotalOptedOut, members)
		}
		srv.stop(b)
	}
	b.ReportMetric(queuedSecs, "s-to-queue")
	b.ReportMetric(optedOut, "opted-out")
}
