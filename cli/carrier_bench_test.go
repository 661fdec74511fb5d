package cli

import (
	"fmt"
	"io"
	"net/http"
	"strings"
	"switchboard/internal/testutil"
	"testing"
	"time"
)

// Dispatch targets (≥ 2,000 messages/s to the sandbox; a 100,000-copy broadcast delivered in ≤ 60
// s; a send behind it out within 1 s), measured as a user meets them: the built binary, over HTTP,
// on the sandbox carrier. Run with
//
//	go test -run '^$' -bench 'Dispatch|Broadcast100k' -benchtime 1x .
//
// Each iteration starts a fresh server on a fresh data directory, so the figures do not depend
// on b.N; one iteration is the measurement.

const deliveredSandbox = `switchboard_messages_total{carrier="sandbox",outcome="delivered"}`

// scrapeMetric reads one series from the server's /metrics (0 when it is not there yet).
func scrapeMetric(b testing.TB, base, series string) float64 {
	b.Helper()
	res, err := http.Get(base + "/metrics")
	if err != nil {
		b.Fatal(err)
	}
	defer res.Body.Close()
	body, _ := io.ReadAll(res.Body)
	for _, line := range strings.Split(string(body), "\n") {
		if rest, ok := strings.CutPrefix(line, series+" "); ok {
			var v float64
			if _, err := fmt.Sscan(rest, &v); err != nil {
				b.Fatalf("metric line %q: %v", line, err)
			}
			return v
		}
	}
	return 0
}

// startBenchServer serves a fresh fixture (its sandbox number +14155550100 is unlimited).
func startBenchServer(b *testing.B) (fixture, *server) {
	b.Helper()
	f := newFixture(b)
	addr := "127.0.0.1:" + testutil.FreePort(b)
	return f, startServer(b, addr, nil, "-addr", addr, "-data", f.data, "-log-requests=false", "-rate-limit", "0")
}

// BenchmarkDispatchSandbox: messages handed to the sandbox and recorded delivered per second,
// read from /metrics while a 50,000-message backlog drains (target ≥ 2,000/s).
func BenchmarkDispatchSandbox(b *testing.B) {
	const calls, per = 5, 10_000
	var rate, backlog float64
	for i := 0; i < b.N; i++ {
		b.StopTimer()
		f, srv := startBenchServer(b)
		b.StartTimer()
		for c := range calls {
			sendBroadcast(b, srv.base, f, "+14155550100", phones("+1303", 5000000+c*per, per), "Spring sale: 20% off this weekend")
		}
		// The backlog is queued; measure how fast it drains from here.
		d0, t0 := scrapeMetric(b, srv.base, deliveredSandbox), time.Now()
		backlog = scrapeMetric(b, srv.base, "switchboard_outbox_depth")
		deadline := t0.Add(5 * time.Minute)
		for scrapeMetric(b, srv.base, deliveredSandbox) < calls*per {
			if time.Now().After(deadline) {
				b.Fatalf("the backlog did not drain in 5 minutes")
			}
			time.Sleep(20 * time.Millisecond)
		}
		d1, t1 := scrapeMetric(b, srv.base, deliveredSandbox), time.Now()
		if backlog < 5_000 {
			b.Logf("only %.0f messages were left when queueing finished: the drain rate is from a short window", backlog)
		}
		rate = (d1 - d0) / t1.Sub(t0).Seconds()
		b.StopTimer()
		srv.stop(b)
	}
	b.ReportMetric(rate, "delivered/s")
	b.ReportMetric(backlog, "backlog")
	b.ReportMetric(0, "ns/op")
}

// BenchmarkBroadcast100kSandbox: ten 10,000-recipient broadcast calls on the sandbox, then a
// normal send queued behind them. Reports the seconds from the first call until all 100,000
// copies are delivered (target ≤ 60 s), the seconds the ten calls took to queue, and the
// seconds until list-messages-action shows the send behind them delivered (target ≤ 1 s).
func BenchmarkBroadcast100kSandbox(b *testing.B) {
	const calls, per = 10, 10_000
	var all, queued, behind float64
	for i := 0; i < b.N; i++ {
		b.StopTimer()
		f, srv := startBenchServer(b)
		b.StartTimer()
		start := time.Now()
		for c := range calls {
			sendBroadcast(b, srv.base, f, "+14155550100", phones("+1404", 5000000+c*per, per), "Hi {{firstName|there}}, our summer menu is here")
		}
		queued = time.Since(start).Seconds()
		sent := time.Now()
		id := sendMessage(b, srv.base, f, "+14155550100", "+14155550142", "Your table for two is confirmed for 7pm")
		behind, all = 0, 0
		deadline := start.Add(5 * time.Minute)
		for behind == 0 || all == 0 {
			if behind == 0 {
				for _, m := range listMessages(b, srv.base, f, 5) {
					if m.ID == id && m.Status == "delivered" {
						behind = time.Since(sent).Seconds()
					}
				}
			}
			if all == 0 && scrapeMetric(b, srv.base, deliveredSandbox) >= calls*per+1 {
				all = time.Since(start).Seconds()
			}
			if time.Now().After(deadline) {
				b.Fatalf("not done after 5 minutes: behind %.2f s, all %.2f s", behind, all)
			}
			time.Sleep(5 * time.Millisecond)
		}
		b.StopTimer()
		srv.stop(b)
	}
	b.ReportMetric(all, "s/100k-delivered")
	b.ReportMetric(queued, "s/100k-queued")
	b.ReportMetric(behind, "s/send-behind")
	b.ReportMetric(0, "ns/op")
}
