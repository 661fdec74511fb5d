package main

import (
	"fmt"
	"net/http"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"switchboard/internal/benchgen"
)

// ---- the mixed load ----

// sample is one timed request and when it started.
type sample struct {
	at   time.Time
	took time.Duration
}

// mixedRow: while a broadcast to the seeded group (one copy per conversation) dispatches on the
// sandbox and a CSV of n new contacts imports through the server (`switchboard admin
// import-contacts` against the running server), one client creates conversations on existing
// pairs and a signed-in agent loads /inbox, each one request after another. The load is cut
// into five equal windows from its start until both are done, each window's p99 is shown, and
// the worst is held to the target; the p99 while both ran is shown too.
func mixedRow(r *report, srv *sbServer, e liveEnv, fx liveFixture, sz liveSizes, ui *uiClient) error {
	csvPath := filepath.Join(e.dir, "live", "mixed.csv")
	logf("live rows: mixed load: generating %d contacts", e.n)
	if err := benchgen.WriteCSV(csvPath, e.n, 2, false); err != nil {
		return err
	}
	api := &apiClient{http: longClient(), base: srv.base + "/v1/integrations/developer/zapier/", token: fx.Token, ws: fx.Workspace}
	pairs := conversationContacts(min(2000, fx.Conversations))
	logf("live rows: mixed load: a %d-copy broadcast and a %d-row import", fx.Conversations, e.n)
	load := loadAvg()
	var stop atomic.Bool
	var wg sync.WaitGroup
	var convs, inbox []sample
	var loopErr [2]error
	wg.Go(func() {
		for i := 0; !stop.Load(); i++ {
			t0 := time.Now()
			if err := api.post("create-conversation-action", map[string]any{"from": fx.Number, "to": pairs[i%len(pairs)].Phone}, http.StatusOK); err != nil {
				loopErr[0] = err
				return
			}
			convs = append(convs, sample{t0, time.Since(t0)})
		}
	})
	wg.Go(func() {
		for !stop.Load() {
			t0 := time.Now()
			took, _, err := ui.get("/inbox")
			if err != nil {
				loopErr[1] = err
				return
			}
			inbox = append(inbox, sample{t0, took})
		}
	})
	start := time.Now()
	var queued, delivered, imported time.Duration
	var importOut string
	var bErr, iErr error
	var jobs sync.WaitGroup
	// The broadcast is accepted (every copy queued) first; it then dispatches while the import
	// runs: the load the target names is a broadcast going out beside an import.
	bErr = api.call("send-broadcast-action", map[string]any{"from": fx.Number, "groupIds": []string{fx.Group},
		"text": "Last call, {{firstName|there}}: the sale ends tonight."}, http.StatusAccepted, nil)
	queued = time.Since(start)
	if bErr == nil {
		jobs.Go(func() {
			if _, bErr = srv.waitDrained(30 * time.Minute); bErr == nil {
				delivered = time.Since(start)
			}
		})
	}
	var importTook time.Duration
	jobs.Go(func() {
		t0 := time.Now()
		importOut, iErr = runAdmin(e.bin, srv.data, "import-contacts", "--workspace", fx.Workspace, csvPath)
		imported, importTook = time.Since(start), time.Since(t0)
	})
	jobs.Wait()
	end := time.Now()
	stop.Store(true)
	wg.Wait()
	switch {
	case iErr != nil:
		return fmt.Errorf("import: %w", iErr)
	case !strings.HasPrefix(importOut, "imported "):
		return fmt.Errorf("import: %s", importOut)
	case loopErr[0] != nil:
		return loopErr[0]
	case loopErr[1] != nil:
		return loopErr[1]
	}
	importOut, _, _ = strings.Cut(importOut, "\n")
	// A broadcast refused or cut off under the load is itself a result: the latencies are still
	// what the clients met.
	bcast := fmt.Sprintf("broadcast queued in %.1f s, delivered in %.1f s", queued.Seconds(), delivered.Seconds())
	if bErr != nil {
		bcast = fmt.Sprintf("the broadcast call failed after %.1f s: %v", queued.Seconds(), bErr)
		delivered = imported
	}
	both := start.Add(min(delivered, imported))
	what := fmt.Sprintf("%s; import %.0f rows/s (%.1f s, %s); load %s",
		bcast, float64(e.n)/importTook.Seconds(), importTook.Seconds(), importOut, load)
	for _, m := range []struct {
		name, target string
		samples      []sample
	}{{"create-conversation, existing pair", "p99 ≤ 50 ms", convs}, {"signed-in /inbox", "p99 ≤ 100 ms", inbox}} {
		worst, each, n := windows(m.samples, start, end, 5)
		var during []time.Duration
		for _, s := range m.samples {
			if s.at.Before(both) {
				during = append(during, s.took)
			}
		}
		_, p99both, _ := percentiles(during)
		liveRow(r, fmt.Sprintf("mixed load: %s during a %d-copy broadcast and a %d-row import through the server", m.name, fx.Conversations, e.n),
			fmt.Sprintf("worst of 5 windows: p99 %s (p99 per window: %s; %d requests; p99 while both ran %s; %s)",
				ms(worst), strings.Join(each, ", "), n, ms(p99both), what), m.target)
	}
	return nil
}

// windows cuts [start, end) into k equal windows and returns the worst p99 of them, each
// window's p99 and the number of samples.
func windows(samples []sample, start, end time.Time, k int) (worst time.Duration, each []string, n int) {
	width := end.Sub(start) / time.Duration(k)
	parts := make([][]time.Duration, k)
	for _, s := range samples {
		i := min(k-1, int(s.at.Sub(start)/width))
		if i >= 0 {
			parts[i] = append(parts[i], s.took)
		}
	}
	for _, p := range parts {
		_, p99, _ := percentiles(p)
		worst = max(worst, p99)
		each = append(each, ms(p99))
		n += len(p)
	}
	return worst, each, n
}
