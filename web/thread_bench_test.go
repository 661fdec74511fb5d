package web

import (
	"fmt"
	"io"
	"net/http"
	"net/http/cookiejar"
	"net/http/httptest"
	"net/url"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"switchboard/store"
)

// BenchmarkThread10k: the first response of a thread of 10,000 messages (target: ≤ 100 KB and
// ≤ 50 ms). The page reads only the newest window, so neither grows with the thread.
//
//	go test ./web -run '^$' -bench Thread10k
func BenchmarkThread10k(b *testing.B) {
	if testing.Short() {
		b.Skip("writes 10,000 messages")
	}
	quietLogs(b)
	st, err := store.Open(filepath.Join(b.TempDir(), "thread.db"), store.Options{})
	if err != nil {
		b.Fatal(err)
	}
	defer st.Close()
	w, err := st.CreateWorkspace("Bench")
	if err != nil {
		b.Fatal(err)
	}
	u, err := st.CreateUser(store.NewUser{Email: "ana@example.com", Name: "Ana Lima", Password: uiPassword})
	if err == nil {
		_, err = st.AddMember(w.ID, u.ID, "admin")
	}
	if err == nil {
		_, err = st.AddNumber(w.ID, "+14155550100", "Main")
	}
	if err != nil {
		b.Fatal(err)
	}
	// Concurrent writers share commits (DB.Batch): 10,000 texts in seconds.
	const total, writers = 10_000, 32
	var wg sync.WaitGroup
	var conv string
	var once sync.Once
	errs := make(chan error, writers)
	for k := range writers {
		wg.Go(func() {
			for i := k; i < total; i += writers {
				m, err := st.RecordInboundMessage(w.ID, store.InboundMessage{From: "+14155550123", To: "+14155550100",
					Text: fmt.Sprintf("Message %05d: could you tell me when my order ships and whether the invoice is right?", i)})
				if err != nil {
					errs <- err
					return
				}
				once.Do(func() { conv = m.ConversationID })
			}
		})
	}
	wg.Wait()
	close(errs)
	if err := <-errs; err != nil {
		b.Fatal(err)
	}
	sess, err := NewSessions(st, SessionConfig{BaseURL: "http://sb.test"})
	if err != nil {
		b.Fatal(err)
	}
	srv := httptestServer(b, New(st, Config{Sessions: sess}))
	jar, _ := cookiejar.New(nil)
	c := &http.Client{Jar: jar, CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
	res, err := c.PostForm(srv+"/login", url.Values{"email": {u.Email}, "password": {uiPassword}})
	if err != nil || res.StatusCode != http.StatusSeeOther {
		b.Fatalf("sign in: %v %v", res, err)
	}
	res.Body.Close()
	lat := make([]time.Duration, 0, 256)
	size := 0
	for b.Loop() {
		t0 := time.Now()
		res, err := c.Get(srv + "/inbox/" + conv)
		if err != nil {
			b.Fatal(err)
		}
		body, err := io.ReadAll(res.Body)
		res.Body.Close()
		lat = append(lat, time.Since(t0))
		if err != nil || res.StatusCode != http.StatusOK || !strings.Contains(string(body), "Show earlier") {
			b.Fatalf("thread: %d %v", res.StatusCode, err)
		}
		size = len(body)
	}
	slices.Sort(lat)
	b.ReportMetric(float64(size)/1024, "KB")
	b.ReportMetric(float64(lat[len(lat)/2].Microseconds())/1000, "p50-ms")
	b.ReportMetric(float64(lat[min(len(lat)-1, len(lat)*99/100)].Microseconds())/1000, "p99-ms")
}

// httptestServer serves h until the benchmark ends and returns its URL.
func httptestServer(tb testing.TB, h http.Handler) string {
	srv := httptest.NewServer(h)
	tb.Cleanup(srv.Close)
	return srv.URL
}
