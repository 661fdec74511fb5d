package cli

import (
	"bytes"
	"fmt"
	"net/http"
	"net/http/httptest"
	"net/url"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"switchboard/carrier"

	"switchboard/internal/testutil"
)

// BenchmarkInboundMMS: 1,000 inbound Twilio MMS of 500 KB each (MEDIA_BENCH_N overrides the
// count) are posted to the built binary, whose fetcher downloads every file from a local Twilio
// fake with the account's credentials and keeps it in the database, while a client measures the
// integration API's p99 (list-messages-action, sequential) — against the same p99 on the idle
// server. Reported: both p99s, the time until every file is kept, and the file's growth per
// stored byte of media. Run with
//
//	go test -run '^$' -bench InboundMMS -benchtime 1x ./cli/
func BenchmarkInboundMMS(b *testing.B) {
	if testing.Short() {
		b.Skip("benchmark against the built binary")
	}
	n := 1000
	if v, err := strconv.Atoi(os.Getenv("MEDIA_BENCH_N")); err == nil && v > 0 {
		n = v
	}
	const size = 500 << 10
	file := append([]byte{0xFF, 0xD8, 0xFF, 0xE0, 0, 0x10, 'J', 'F', 'I', 'F', 0}, bytes.Repeat([]byte{0x5A}, size-11)...)
	var served atomic.Int64
	fake := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if u, p, ok := r.BasicAuth(); !ok || u != fakeAccountSID || p != fakeAuthToken {
			w.WriteHeader(http.StatusUnauthorized)
			return
		}
		w.Header().Set("Content-Type", "image/jpeg")
		w.Write(file)
		served.Add(1)
	}))
	defer fake.Close()
	for i := 0; i < b.N; i++ {
		b.StopTimer()
		f := newFixture(b)
		addTwilioNumber(b, f, "")
		addr := "127.0.0.1:" + testutil.FreePort(b)
		srv := startServer(b, addr, nil, "-addr", addr, "-data", f.data, "-base-url", "http://"+addr, "-log-requests=false",
			"-rate-limit", "0", "-twilio-base-url", fake.URL, "-twilio-account-sid", fakeAccountSID, "-twilio-auth-token", fakeAuthToken)
		dbPath := filepath.Join(f.data, "switchboard.db")
		before := fileSize(b, dbPath)
		idle := apiP99(b, srv.base, f, 200, nil)
		served.Store(0)
		b.StartTimer()
		start := time.Now()
		var done atomic.Bool
		var busy time.Duration
		var wg sync.WaitGroup
		wg.Go(func() { busy = apiP99(b, srv.base, f, 0, &done) })
		hook := srv.base + "/carrier/twilio/sms"
		for j := range n {
			form := url.Values{"MessageSid": {fmt.Sprintf("MM%032d", j)}, "AccountSid": {fakeAccountSID}, "From": {fmt.Sprintf("+1303555%04d", j%10000)},
				"To": {twilioPhone}, "Body": {"photo"}, "NumMedia": {"1"},
				"MediaUrl0": {fmt.Sprintf("%s/2010-04-01/Accounts/%s/Messages/MM%032d/Media/ME%032d", fake.URL, fakeAccountSID, j, j)}}
			req, _ := http.NewRequest(http.MethodPost, hook, strings.NewReader(form.Encode()))
			req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
			req.Header.Set("X-Twilio-Signature", carrier.TwilioSignature(fakeAuthToken, hook, form))
			res, err := http.DefaultClient.Do(req)
			if err != nil {
				b.Fatal(err)
			}
			res.Body.Close()
			if res.StatusCode != http.StatusOK {
				b.Fatalf("inbound MMS %d: %d", j, res.StatusCode)
			}
		}
		// Every file served, then kept: the newest messages are fetched last.
		deadline := time.Now().Add(10 * time.Minute)
		for {
			if served.Load() >= int64(n) && allLocal(b, srv.base, f, min(n, 100)) {
				break
			}
			if time.Now().After(deadline) {
				b.Fatalf("%d of %d files fetched in 10 minutes", served.Load(), n)
			}
			time.Sleep(50 * time.Millisecond)
		}
		took := time.Since(start)
		done.Store(true)
		wg.Wait()
		b.StopTimer()
		srv.stop(b)
		growth := float64(fileSize(b, dbPath)-before) / float64(n*size)
		b.ReportMetric(float64(idle.Microseconds())/1000, "idle-p99-ms")
		b.ReportMetric(float64(busy.Microseconds())/1000, "busy-p99-ms")
		b.ReportMetric(took.Seconds(), "s-to-keep-all")
		b.ReportMetric(growth, "file-bytes/media-byte")
		fmt.Fprintf(os.Stderr, "inbound MMS: %d × %d KB kept in %v; API p99 idle %v, while fetching %v; file growth %.3f bytes per media byte\n",
			n, size>>10, took.Round(time.Millisecond), idle, busy, growth)
	}
}

// apiP99 calls list-messages-action sequentially, count times or (count 0) until done, and
// returns the 99th percentile latency.
func apiP99(b *testing.B, base string, f fixture, count int, done *atomic.Bool) time.Duration {
	var took []time.Duration
	for i := 0; count == 0 && !done.Load() || i < count; i++ {
		t0 := time.Now()
		code, _ := apiCall(b, base, f.token, "list-messages-action", map[string]any{"developerProvider": "zapier", "id": f.ws, "limit": 10})
		took = append(took, time.Since(t0))
		if code != http.StatusOK {
			b.Errorf("list-messages-action: %d", code)
			return 0
		}
	}
	if len(took) == 0 {
		return 0
	}
	slices.Sort(took)
	return took[len(took)*99/100]
}

// allLocal reports whether the newest n messages list only kept (/media/) URLs.
func allLocal(b *testing.B, base string, f fixture, n int) bool {
	var msgs []struct {
		Media []string `json:"media"`
	}
	apiOK(b, base, f.token, "list-messages-action", map[string]any{"developerProvider": "zapier", "id": f.ws, "limit": n, "direction": "inbound"}, http.StatusOK, &msgs)
	for _, m := range msgs {
		if len(m.Media) == 0 || !strings.Contains(m.Media[0], "/media/") {
			return false
		}
	}
	return len(msgs) == n
}

func fileSize(b *testing.B, path string) int64 {
	fi, err := os.Stat(path)
	if err != nil {
		b.Fatal(err)
	}
	return fi.Size()
}
