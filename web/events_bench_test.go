package web

import (
	"bufio"
	"fmt"
	"net"
	"net/http"
	"net/http/cookiejar"
	"net/http/httptest"
	"net/url"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"switchboard/carrier"
	"switchboard/store"
)

// Benchmarks of the push stream (targets: an inbound text reaches 200 open streams with p99 ≤
// 250 ms; 1,000 idle streams cost ≤ 50 MB). Run with
//
//	go test -run '^$' -bench 'Events' -benchtime 20x ./web/

// liveBench is a server with one workspace, a member signed in and a carrier token.
type liveBench struct {
	srv    *httptest.Server
	st     *store.Store
	ws     store.Workspace
	cookie string // the session cookie header
	token  string
	number string
}

func newLiveBench(b *testing.B) *liveBench {
	b.Helper()
	if testing.Short() {
		b.Skip("benchmark of many streams")
	}
	st, err := store.Open(filepath.Join(b.TempDir(), "bench.db"), store.Options{})
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { st.Close() })
	e := &liveBench{st: st, number: "+14155550100"}
	must := func(err error) {
		if err != nil {
			b.Fatal(err)
		}
	}
	e.ws, err = st.CreateWorkspace("Acme")
	must(err)
	u, err := st.CreateUser(store.NewUser{Email: "ana@example.com", Name: "Ana", Password: uiPassword})
	must(err)
	_, err = st.AddMember(e.ws.ID, u.ID, "admin")
	must(err)
	_, err = st.AddNumber(e.ws.ID, e.number, "Main")
	must(err)
	_, e.token, err = st.CreateToken(u.ID, "carrier")
	must(err)
	sess, err := NewSessions(st, SessionConfig{BaseURL: "http://sb.test"})
	must(err)
	e.srv = httptest.NewServer(New(st, Config{Sessions: sess, Receiver: carrier.NewReceiver(st, nil),
		MaxStreamsPerSession: -1, MaxStreamsPerUser: -1})) // hundreds of streams of one session: the server's cost, not a team
	b.Cleanup(e.srv.Close)
	jar, _ := cookiejar.New(nil)
	c := &http.Client{Jar: jar, CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
	res, err := c.PostForm(e.srv.URL+"/login", url.Values{"email": {u.Email}, "password": {uiPassword}})
	must(err)
	res.Body.Close()
	base, _ := url.Parse(e.srv.URL)
	var parts []string
	for _, ck := range jar.Cookies(base) {
		parts = append(parts, ck.Name+"="+ck.Value)
	}
	e.cookie = strings.Join(parts, "; ")
	return e
}

// dial opens one stream over a raw connection (a lean client, so that memory measures the
// server) and returns it after the response headers.
func (e *liveBench) dial(b *testing.B) (net.Conn, *bufio.Reader) {
	conn, err := net.Dial("tcp", strings.TrimPrefix(e.srv.URL, "http://"))
	if err != nil {
		b.Fatal(err)
	}
	fmt.Fprintf(conn, "GET /events HTTP/1.1\r\nHost: sb.test\r\nCookie: %s\r\nAccept: text/event-stream\r\n\r\n", e.cookie)
	r := bufio.NewReaderSize(conn, 512)
	status, err := r.ReadString('\n')
	if err != nil || !strings.Contains(status, " 200 ") {
		b.Fatalf("GET /events: %q %v", status, err)
	}
	for {
		line, err := r.ReadString('\n')
		if err != nil {
			b.Fatal(err)
		}
		if line == "\r\n" {
			return conn, r
		}
	}
}

func (e *liveBench) inbound(b *testing.B, c *http.Client, text string) {
	form := url.Values{"From": {"+14155550123"}, "To": {e.number}, "Body": {text}}
	req, _ := http.NewRequest("POST", e.srv.URL+"/carrier/sandbox/sms", strings.NewReader(form.Encode()))
	req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	req.Header.Set("Authorization", "Bearer "+e.token)
	res, err := c.Do(req)
	if err != nil {
		b.Fatal(err)
	}
	res.Body.Close()
	if res.StatusCode != http.StatusOK {
		b.Fatalf("inbound: %d", res.StatusCode)
	}
}

// BenchmarkEventsPushLatency: each iteration posts an inbound text and waits until all 200
// streams have its message event; p99_ms is over every stream of every iteration, from the
// POST to the event's arrival.
func BenchmarkEventsPushLatency(b *testing.B) {
	e := newLiveBench(b)
	const streams = 200
	arrived := make(chan time.Time, streams*4)
	for range streams {
		conn, r := e.dial(b)
		b.Cleanup(func() { conn.Close() })
		go func() {
			for {
				line, err := r.ReadString('\n')
				if err != nil {
					return
				}
				if line == "event: message\n" {
					arrived <- time.Now()
				}
			}
		}()
	}
	c := benchClient()
	var lat []time.Duration
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		start := time.Now()
		e.inbound(b, c, fmt.Sprintf("text %d", i))
		for range streams {
			select {
			case at := <-arrived:
				lat = append(lat, at.Sub(start))
			case <-time.After(10 * time.Second):
				b.Fatal("an event did not arrive within 10 s")
			}
		}
	}
	b.StopTimer()
	slices.Sort(lat)
	b.ReportMetric(float64(lat[len(lat)*99/100].Microseconds())/1000, "p99_ms")
	b.ReportMetric(float64(lat[len(lat)/2].Microseconds())/1000, "p50_ms")
}

// BenchmarkEventsIdleMemory: the heap and stacks that 1,000 idle streams add to the process
// (server and the lean clients together, so an upper bound on the server's share).
func BenchmarkEventsIdleMemory(b *testing.B) {
	e := newLiveBench(b)
	const streams = 1000
	for i := 0; i < b.N; i++ {
		b.StopTimer()
		var before, after runtime.MemStats
		runtime.GC()
		runtime.ReadMemStats(&before)
		b.StartTimer()
		var conns []net.Conn
		var mu sync.Mutex
		for range streams {
			conn, _ := e.dial(b)
			mu.Lock()
			conns = append(conns, conn)
			mu.Unlock()
		}
		b.StopTimer()
		runtime.GC()
		runtime.ReadMemStats(&after)
		used := (after.HeapInuse + after.StackInuse) - (before.HeapInuse + before.StackInuse)
		b.ReportMetric(float64(used)/(1<<20), "MB/1000streams")
		for _, c := range conns {
			c.Close()
		}
		b.StartTimer()
	}
}
