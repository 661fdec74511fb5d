package web

import (
	"bytes"
	"encoding/binary"
	"encoding/json"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	bolt "go.etcd.io/bbolt"
)

// HTTP-level benchmarks for the performance targets (create-conversation ≥ 50 % of a bare
// net/http handler, send-message ≥ 70 % of raw bbolt DB.Batch puts). Run with
//
//	go test -run '^$' -bench . -benchtime 3s ./web/
//
// Each reports its own rate, the baseline's rate measured with the same client, concurrency
// and disk, and the ratio the target is stated in.

// benchClient is the one keep-alive client every HTTP benchmark uses.
func benchClient() *http.Client {
	return &http.Client{Transport: &http.Transport{MaxIdleConns: 256, MaxIdleConnsPerHost: 256, MaxConnsPerHost: 0}}
}

// runConcurrent runs b.N calls of fn spread over n goroutines and returns the calls per second.
func runConcurrent(b *testing.B, n int, fn func() error) float64 {
	b.Helper()
	var next atomic.Int64
	var wg sync.WaitGroup
	var failed atomic.Pointer[error]
	b.ResetTimer()
	start := time.Now()
	for range n {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for next.Add(1) <= int64(b.N) {
				if err := fn(); err != nil {
					failed.CompareAndSwap(nil, &err)
					return
				}
			}
		}()
	}
	wg.Wait()
	elapsed := time.Since(start)
	b.StopTimer()
	if p := failed.Load(); p != nil {
		b.Fatal(*p)
	}
	return float64(b.N) / elapsed.Seconds()
}

// rateFor measures fn at concurrency n for about d (for the baselines).
func rateFor(n int, d time.Duration, fn func() error) (float64, error) {
	var count atomic.Int64
	var wg sync.WaitGroup
	var failed atomic.Pointer[error]
	stop := time.Now().Add(d)
	start := time.Now()
	for range n {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for time.Now().Before(stop) {
				if err := fn(); err != nil {
					failed.CompareAndSwap(nil, &err)
					return
				}
				count.Add(1)
			}
		}()
	}
	wg.Wait()
	if p := failed.Load(); p != nil {
		return 0, *p
	}
	return float64(count.Load()) / time.Since(start).Seconds(), nil
}

type statusError struct {
	status int
	body   []byte
}

func (e *statusError) Error() string {
	return "status " + http.StatusText(e.status) + ": " + string(e.body)
}

// poster posts body to url with the headers of the integration API and wants status.
func poster(client *http.Client, url, token string, body []byte, want int) func() error {
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
		data, err := io.ReadAll(res.Body)
		res.Body.Close()
		if err != nil {
			return err
		}
		if res.StatusCode != want {
			return &statusError{res.StatusCode, data}
		}
		return nil
	}
}

// bareJSONHandler is the baseline: a plain net/http handler that decodes a JSON body and
// answers a conversation-shaped JSON object, with nothing else — as lean as a JSON handler can
// be (body read whole, struct decode and encode, one write), so the ratio is not flattered.
func bareJSONHandler(w http.ResponseWriter, r *http.Request) {
	body, err := io.ReadAll(io.LimitReader(r.Body, MaxBody))
	if err != nil {
		http.Error(w, "bad body", http.StatusBadRequest)
		return
	}
	var in struct {
		ID   string `json:"id"`
		From string `json:"from"`
		To   string `json:"to"`
	}
	if err := json.Unmarshal(body, &in); err != nil {
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

// quietLogs sends slog to io.Discard for the benchmark (so request logging is paid for, but
// the terminal is not flooded) and restores it after.
func quietLogs(b *testing.B) {
	prev := slog.Default()
	slog.SetDefault(slog.New(slog.NewTextHandler(io.Discard, nil)))
	b.Cleanup(func() { slog.SetDefault(prev) })
}

// BenchmarkCreateConversationExisting: create-conversation on an existing pair over HTTP
// (keep-alive client, 16 concurrent requests), against the bare handler with the same client.
// Target: ratio ≥ 0.5.
func BenchmarkCreateConversationExisting(b *testing.B) {
	quietLogs(b)
	const concurrency = 16
	e := newEnv(b, Config{RateLimit: 0, LogRequests: true})
	body, _ := json.Marshal(obj{"developerProvider": "zapier", "id": e.ws.ID, "from": fromNumber, "to": toNumber})
	client := benchClient()
	url := e.url("create-conversation-action")
	if err := poster(client, url, e.token, body, http.StatusCreated)(); err != nil {
		b.Fatal(err)
	}
	bare := httptest.NewServer(http.HandlerFunc(bareJSONHandler))
	defer bare.Close()
	// The baseline is measured before and after the run and averaged, so that a machine
	// whose load changes (other jobs) skews both sides alike.
	bareFn := poster(client, bare.URL+"/v1/x", e.token, body, http.StatusOK)
	before, err := rateFor(concurrency, time.Second, bareFn)
	if err != nil {
		b.Fatal(err)
	}
	rate := runConcurrent(b, concurrency, poster(client, url, e.token, body, http.StatusOK))
	after, err := rateFor(concurrency, time.Second, bareFn)
	if err != nil {
		b.Fatal(err)
	}
	bareRate := (before + after) / 2
	b.ReportMetric(rate, "req/s")
	b.ReportMetric(bareRate, "bare_req/s")
	b.ReportMetric(rate/bareRate, "ratio")
}

// BenchmarkBareJSONHandler is the baseline alone, for profiles and comparison.
func BenchmarkBareJSONHandler(b *testing.B) {
	body := []byte(`{"developerProvider":"zapier","id":"01J00000000000000000000000","from":"+14155550100","to":"+14155550123"}`)
	bare := httptest.NewServer(http.HandlerFunc(bareJSONHandler))
	defer bare.Close()
	rate := runConcurrent(b, 16, poster(benchClient(), bare.URL+"/v1/x", "x", body, http.StatusOK))
	b.ReportMetric(rate, "req/s")
}

// boltBatchRate is raw bbolt: concurrent DB.Batch puts of 600-byte values, in a fresh file
// under dir, for about d.
func boltBatchRate(dir string, concurrency int, d time.Duration) (float64, error) {
	db, err := bolt.Open(filepath.Join(dir, "raw.db"), 0o600, nil)
	if err != nil {
		return 0, err
	}
	defer db.Close()
	bucket := []byte("b")
	if err := db.Update(func(tx *bolt.Tx) error { _, err := tx.CreateBucket(bucket); return err }); err != nil {
		return 0, err
	}
	value := bytes.Repeat([]byte("v"), 600)
	var seq atomic.Uint64
	return rateFor(concurrency, d, func() error {
		k := make([]byte, 8)
		binary.BigEndian.PutUint64(k, seq.Add(1))
		return db.Batch(func(tx *bolt.Tx) error { return tx.Bucket(bucket).Put(k, value) })
	})
}

// BenchmarkSendMessageDurable: send-message over HTTP (each a durable commit: bbolt fsyncs
// before the 202) at concurrency 32, against raw bbolt DB.Batch puts of 600-byte values at
// concurrency 32 on the same disk. Target: ratio ≥ 0.7.
func BenchmarkSendMessageDurable(b *testing.B) {
	quietLogs(b)
	const concurrency = 32
	e := newEnv(b, Config{RateLimit: 0, LogRequests: true})
	body, _ := json.Marshal(obj{"developerProvider": "zapier", "id": e.ws.ID, "from": fromNumber, "to": toNumber,
		"text": "Your order #12345 has shipped and will arrive on Tuesday. Reply STOP to opt out."})
	client := benchClient()
	send := poster(client, e.url("send-message-action"), e.token, body, http.StatusAccepted)
	if err := send(); err != nil {
		b.Fatal(err)
	}
	// The baseline is measured before and after the run and averaged (see above).
	before, err := boltBatchRate(b.TempDir(), concurrency, time.Second)
	if err != nil {
		b.Fatal(err)
	}
	rate := runConcurrent(b, concurrency, send)
	after, err := boltBatchRate(b.TempDir(), concurrency, time.Second)
	if err != nil {
		b.Fatal(err)
	}
	rawRate := (before + after) / 2
	b.ReportMetric(rate, "msgs/s")
	b.ReportMetric(rawRate, "bolt_puts/s")
	b.ReportMetric(rate/rawRate, "ratio")
}

// BenchmarkBoltBatchPut is the raw bbolt baseline alone.
func BenchmarkBoltBatchPut(b *testing.B) {
	db, err := bolt.Open(filepath.Join(b.TempDir(), "raw.db"), 0o600, nil)
	if err != nil {
		b.Fatal(err)
	}
	defer db.Close()
	bucket := []byte("b")
	db.Update(func(tx *bolt.Tx) error { _, err := tx.CreateBucket(bucket); return err })
	value := bytes.Repeat([]byte("v"), 600)
	var seq atomic.Uint64
	rate := runConcurrent(b, 32, func() error {
		k := make([]byte, 8)
		binary.BigEndian.PutUint64(k, seq.Add(1))
		return db.Batch(func(tx *bolt.Tx) error { return tx.Bucket(bucket).Put(k, value) })
	})
	b.ReportMetric(rate, "puts/s")
}

// BenchmarkCreateConversationHandler is the server's own cost per request, without the
// network: the handler called directly, for profiling the web and store layers.
func BenchmarkCreateConversationHandler(b *testing.B) {
	quietLogs(b)
	e := newEnv(b, Config{RateLimit: 0, LogRequests: true})
	h := e.srv.Config.Handler
	body, _ := json.Marshal(obj{"developerProvider": "zapier", "id": e.ws.ID, "from": fromNumber, "to": toNumber})
	call := func() int {
		req := httptest.NewRequest(http.MethodPost, "/v1/integrations/developer/zapier/create-conversation-action", bytes.NewReader(body))
		req.Header.Set("Authorization", "Bearer "+e.token)
		req.Header.Set("Content-Type", "application/json")
		rec := httptest.NewRecorder()
		h.ServeHTTP(rec, req)
		return rec.Code
	}
	call()
	b.ReportAllocs()
	b.ResetTimer()
	cpu0 := processCPU()
	for b.Loop() {
		if code := call(); code != http.StatusOK {
			b.Fatalf("status %d", code)
		}
	}
	reportCPU(b, cpu0)
}

// reportCPU reports the process's CPU time per operation since cpu0 (garbage collection
// included): on a machine shared with other work it says what a request costs when ns/op says
// how busy the others are.
func reportCPU(b *testing.B, cpu0 time.Duration) {
	b.ReportMetric(float64(processCPU()-cpu0)/float64(b.N), "cpu-ns/op")
}

// BenchmarkBareJSONHandlerDirect is the bare baseline called the same way, for comparing the
// server's own cost per request with the baseline's.
func BenchmarkBareJSONHandlerDirect(b *testing.B) {
	body := []byte(`{"developerProvider":"zapier","id":"01J00000000000000000000000","from":"+14155550100","to":"+14155550123"}`)
	b.ReportAllocs()
	cpu0 := processCPU()
	for b.Loop() {
		req := httptest.NewRequest(http.MethodPost, "/v1/x", bytes.NewReader(body))
		req.Header.Set("Authorization", "Bearer x")
		req.Header.Set("Content-Type", "application/json")
		rec := httptest.NewRecorder()
		bareJSONHandler(rec, req)
		if rec.Code != http.StatusOK {
			b.Fatalf("status %d", rec.Code)
		}
	}
	reportCPU(b, cpu0)
}
