package main

import (
	"context"
	"fmt"
	"net/http"
	"os"
	"os/exec"
	"sync"
	"sync/atomic"
	"time"
)

// hammerRow measures what one token hammering the costliest searches does to another user: a
// server started with the default per-token rate limit (as shipped), hammerConc goroutines of
// the first token sending adversarial searches without pause (their 429s included), and the
// other user's searches and create-conversations, one at a time at a steady pace, timed.
func hammerRow(r *report, bin, data, hammerToken, otherToken, ws, fromNum, to string, worst, typical []string, d time.Duration) error {
	const hammerConc = 16
	addr, err := freeAddr()
	if err != nil {
		return err
	}
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	// No -rate-limit flag: the default limit, which is what stands between a token and the
	// other users.
	serve := exec.CommandContext(ctx, bin, "serve", "-addr", addr, "-data", data, "-base-url", "http://"+addr)
	logFile, err := os.Create(data + "-hammer.log")
	if err != nil {
		return err
	}
	defer logFile.Close()
	serve.Stdout, serve.Stderr = logFile, logFile
	serve.Cancel = func() error { return serve.Process.Signal(os.Interrupt) }
	serve.WaitDelay = 10 * time.Second
	if err := serve.Start(); err != nil {
		return err
	}
	defer func() { cancel(); _ = serve.Wait() }()
	base := "http://" + addr
	if err := waitReady(base + "/readyz"); err != nil {
		return err
	}
	api := base + "/v1/integrations/developer/zapier/"
	hammer := &apiClient{http: newClient(), base: api, token: hammerToken, ws: ws}
	other := &apiClient{http: newClient(), base: api, token: otherToken, ws: ws}
	pair := map[string]any{"from": fromNum, "to": to}
	if err := other.post("create-conversation-action", pair, 0); err != nil {
		return err
	}

	stop := make(chan struct{})
	var sent, limited atomic.Int64
	var failed atomic.Pointer[error]
	var wg sync.WaitGroup
	for g := range hammerConc {
		wg.Go(func() {
			for i := g; ; i += hammerConc {
				select {
				case <-stop:
					return
				default:
				}
				status, out, err := hammer.do("find-contact-action", map[string]any{"searchText": worst[i%len(worst)]})
				switch {
				case err != nil:
					failed.CompareAndSwap(nil, &err)
					return
				case status == http.StatusTooManyRequests:
					// Refused: try again soon, ignoring Retry-After as a hostile client would,
					// but not so soon that this process (on the same cores as the server)
					// becomes the load being measured: still eight times the limit.
					limited.Add(1)
					time.Sleep(20 * time.Millisecond)
				case status != http.StatusOK:
					err := fmt.Errorf("hammer: status %d: %s", status, out)
					failed.CompareAndSwap(nil, &err)
					return
				default:
					sent.Add(1)
				}
			}
		})
	}
	time.Sleep(500 * time.Millisecond) // the hammer reaches its rate first
	var searches, convs []time.Duration
	deadline := time.Now().Add(d)
	// The other user keeps within its own limit: a search and a create-conversation every
	// 25 ms (80 requests a second).
	tick := time.NewTicker(25 * time.Millisecond)
	defer tick.Stop()
	for i := 0; time.Now().Before(deadline) && failed.Load() == nil; i++ {
		<-tick.C
		t0 := time.Now()
		if _, err := other.search(typical[i%len(typical)]); err != nil {
			close(stop)
			wg.Wait()
			return err
		}
		searches = append(searches, time.Since(t0))
		t0 = time.Now()
		if err := other.post("create-conversation-action", pair, http.StatusOK); err != nil {
			close(stop)
			wg.Wait()
			return err
		}
		convs = append(convs, time.Since(t0))
	}
	close(stop)
	wg.Wait()
	if p := failed.Load(); p != nil {
		return *p
	}
	_, sp99, smax := percentiles(searches)
	_, cp99, cmax := percentiles(convs)
	secs := d.Seconds() + 0.5
	r.row("another user while one token hammers the costliest searches (default rate limit)",
		fmt.Sprintf("search p99 %s max %s, create-conversation p99 %s max %s (%d + %d calls); the hammer: %.0f searches/s served, %.0f/s refused 429",
			ms(sp99), ms(smax), ms(cp99), ms(cmax), len(searches), len(convs), float64(sent.Load())/secs, float64(limited.Load())/secs),
		"", "p99 ≤ 50 ms")
	r.note("load average after the hammer: " + loadAvg())
	return nil
}
