package cli

import (
	"bytes"
	"encoding/json"
	"flag"
	"io"
	"log/slog"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"sync"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"switchboard/store"
)

// The API target of §29: create-conversation on an existing pair ≥ 0.6× a bare net/http JSON
// handler, same client, concurrency 16. Measured with the server wired as `serve` wires it
// (the per-client listener, the HTTP server's limits, one request log line per request to a
// file) in this process, so that a CPU profile shows the server's own frames:
//
//	go test -run '^$' -bench CreateConversationServed -benchtime 3s -cpuprofile cpu.prof ./cli
//
// The bare handler is measured before and after, in the same process and with the same client,
// and averaged, so that a change of the machine's load falls on both sides.

// servedAPI is a server wired like `serve`'s, on a fixture, in this process.
type servedAPI struct {
	base string
	f    fixture
}

func serveInProcess(b *testing.B) servedAPI {
	b.Helper()
	f := newFixture(b)
	fs := flag.NewFlagSet("serve", flag.ContinueOnError)
	cfg, err := parseServeConfig([]string{"-data", f.data, "-rate-limit", "0", "-max-conns-per-ip", "0", "-addr", "127.0.0.1:0"}, fs)
	if err != nil {
		b.Fatal(err)
	}
	// The request log goes to a file, as serve's stderr does when it is redirected.
	logFile, err := os.Create(filepath.Join(b.TempDir(), "serve.log"))
	if err != nil {
		b.Fatal(err)
	}
	prev := slog.Default()
	logOut := newLineWriter(logFile)
	slog.SetDefault(slog.New(slog.NewTextHandler(logOut, nil)))
	s, err := openStore(cfg.Data, store.Options{Timeout: time.Second})
	if err != nil {
		b.Fatal(err)
	}
	a, err := build(s, cfg, "backup-token", Assets{}, nil)
	if err != nil {
		b.Fatal(err)
	}
	ln, err := net.Listen("tcp", cfg.Addr)
	if err != nil {
		b.Fatal(err)
	}
	clients := newClientListener(ln, cfg.MaxConnsPerIP, nil)
	srv := newHTTPServer(a.handler)
	clients.attach(srv)
	go srv.Serve(clients)
	b.Cleanup(func() {
		srv.Close()
		a.stop()
		s.Close()
		logOut.Close()
		logFile.Close()
		slog.SetDefault(prev)
	})
	return servedAPI{base: "http://" + ln.Addr().String(), f: f}
}

// barePooled is the bare baseline of `make bench`: the body read into a pooled buffer, decoded
// into a struct, the answer marshalled from a struct and written in one call.
func barePooled(w http.ResponseWriter, r *http.Request) {
	buf := barePool.Get().(*bytes.Buffer)
	defer barePool.Put(buf)
	buf.Reset()
	if _, err := buf.ReadFrom(io.LimitReader(r.Body, 1<<20)); err != nil {
		http.Error(w, "bad body", http.StatusBadRequest)
		return
	}
	var in struct {
		ID   string `json:"id"`
		From string `json:"from"`
		To   string `json:"to"`
	}
	if err := json.Unmarshal(buf.Bytes(), &in); err != nil {
		http.Error(w, "bad json", http.StatusBadRequest)
		return
	}
	out, err := json.Marshal(struct {
		From        string `json:"from"`
		ID          string `json:"id"`
		To          string `json:"to"`
		WorkspaceID string `json:"workspaceId"`
	}{in.From, "01J00000000000000000000000", in.To, in.ID})
	if err != nil {
		http.Error(w, "encode", http.StatusInternalServerError)
		return
	}
	w.Header()["Content-Type"] = []string{"application/json; charset=utf-8"}
	_, _ = w.Write(out)
}

var barePool = sync.Pool{New: func() any { return new(bytes.Buffer) }}

// apiPoster posts body to url as the integration API's clients do and wants status.
func apiPoster(client *http.Client, url, token string, body []byte, want int) func() error {
	return func() error {
		req, err := http.NewRequest(http.MethodPost, url, bytes.NewReader(body))
		if err != nil {
			return err
		}
		req.Header.Set("Authorization", "Bearer "+token)
		req.Header.Set("Content-Type", "application/json")
		res, err := client.Do(req)
		if err != nil {
			return err
		}
		out, err := io.ReadAll(res.Body)
		res.Body.Close()
		if err != nil {
			return err
		}
		if res.StatusCode != want {
			return &statusErr{res.StatusCode, out}
		}
		return nil
	}
}

type statusErr struct {
	status int
	body   []byte
}

func (e *statusErr) Error() string { return http.StatusText(e.status) + ": " + string(e.body) }

// callsFor calls fn from n goroutines for about d and returns the calls per second and the
// process's CPU time per call (client and server, both in this process).
func callsFor(n int, d time.Duration, fn func() error) (float64, time.Duration, error) {
	cpu0 := processCPU()
	var count atomic.Int64
	var wg sync.WaitGroup
	var failed atomic.Pointer[error]
	start := time.Now()
	stop := start.Add(d)
	for range n {
		wg.Go(func() {
			for time.Now().Before(stop) && failed.Load() == nil {
				if err := fn(); err != nil {
					failed.CompareAndSwap(nil, &err)
					return
				}
				count.Add(1)
			}
		})
	}
	wg.Wait()
	if p := failed.Load(); p != nil {
		return 0, 0, *p
	}
	calls := count.Load()
	return float64(calls) / time.Since(start).Seconds(), (processCPU() - cpu0) / time.Duration(max(calls, 1)), nil
}

// processCPU is the CPU time this process used so far (user and system, every thread).
func processCPU() time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

// BenchmarkCreateConversationServed: create-conversation on an existing pair, 16 concurrent
// keep-alive requests, against the bare handler with the same client (target ratio ≥ 0.6).
func BenchmarkCreateConversationServed(b *testing.B) {
	const conc = 16
	api := serveInProcess(b)
	bare := &http.Server{Handler: http.HandlerFunc(barePooled)}
	bln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		b.Fatal(err)
	}
	go bare.Serve(bln)
	defer bare.Close()
	client := &http.Client{Timeout: 30 * time.Second, Transport: &http.Transport{MaxIdleConns: 256, MaxIdleConnsPerHost: 256}}
	body, _ := json.Marshal(map[string]any{"developerProvider": "zapier", "id": api.f.ws, "from": "+14155550100", "to": "+14155550123"})
	url := api.base + "/v1/integrations/developer/zapier/create-conversation-action"
	if err := apiPoster(client, url, api.f.token, body, http.StatusCreated)(); err != nil {
		b.Fatal(err)
	}
	conv := apiPoster(client, url, api.f.token, body, http.StatusOK)
	bareFn := apiPoster(client, "http://"+bln.Addr().String()+"/x", api.f.token, body, http.StatusOK)
	// The rates' ratio is the target's; on a machine shared with other work it follows their
	// load, so the CPU time per request (client and server) is reported too: its ratio is what
	// the rates' would be on two quiet cores.
	var convRate, bareRate float64
	var convCPU, bareCPU time.Duration
	for b.Loop() {
		before, cpuBefore, err := callsFor(conc, time.Second, bareFn)
		if err != nil {
			b.Fatal(err)
		}
		r, cpu, err := callsFor(conc, 2*time.Second, conv)
		if err != nil {
			b.Fatal(err)
		}
		after, cpuAfter, err := callsFor(conc, time.Second, bareFn)
		if err != nil {
			b.Fatal(err)
		}
		convRate, bareRate = convRate+r, bareRate+(before+after)/2
		convCPU, bareCPU = convCPU+cpu, bareCPU+(cpuBefore+cpuAfter)/2
	}
	b.ReportMetric(convRate/float64(b.N), "req/s")
	b.ReportMetric(bareRate/float64(b.N), "bare_req/s")
	b.ReportMetric(float64(convCPU.Microseconds())/float64(b.N), "cpu-µs/req")
	b.ReportMetric(float64(bareCPU.Microseconds())/float64(b.N), "bare_cpu-µs/req")
	b.ReportMetric(float64(bareCPU)/float64(convCPU), "cpu_ratio")
	b.ReportMetric(convRate/bareRate, "ratio")
}
