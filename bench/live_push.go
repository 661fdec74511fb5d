package main

import (
	"bufio"
	"fmt"
	"net"
	"net/http"
	"net/http/cookiejar"
	"net/url"
	"strings"
	"sync"
	"time"
)

// ---- the signed-in user, and the push stream ----

// uiClient is a browser's session: signed in through /login with a cookie jar.
type uiClient struct {
	http   *http.Client
	base   string
	cookie string // the session's Cookie header, for raw stream connections
}

func signIn(base, email, password string) (*uiClient, error) {
	jar, err := cookiejar.New(nil)
	if err != nil {
		return nil, err
	}
	c := &http.Client{Jar: jar, Timeout: 60 * time.Second,
		Transport:     &http.Transport{MaxIdleConnsPerHost: 16, DisableCompression: true},
		CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
	res, err := c.PostForm(base+"/login", url.Values{"email": {email}, "password": {password}})
	if err != nil {
		return nil, err
	}
	res.Body.Close()
	if res.StatusCode != http.StatusSeeOther {
		return nil, fmt.Errorf("sign in as %s: status %d", email, res.StatusCode)
	}
	u, _ := url.Parse(base)
	var parts []string
	for _, ck := range jar.Cookies(u) {
		parts = append(parts, ck.Name+"="+ck.Value)
	}
	if len(parts) == 0 {
		return nil, fmt.Errorf("sign in as %s: no session cookie", email)
	}
	return &uiClient{http: c, base: base, cookie: strings.Join(parts, "; ")}, nil
}

// openStream opens GET /events on a raw connection (a lean client: the server's memory is
// what is measured) and returns it once the stream has begun (its first `retry:` line).
func (u *uiClient) openStream() (net.Conn, *bufio.Reader, error) {
	conn, err := net.Dial("tcp", strings.TrimPrefix(u.base, "http://"))
	if err != nil {
		return nil, nil, err
	}
	fmt.Fprintf(conn, "GET /events HTTP/1.1\r\nHost: bench\r\nCookie: %s\r\nAccept: text/event-stream\r\n\r\n", u.cookie)
	r := bufio.NewReaderSize(conn, 512)
	_ = conn.SetReadDeadline(time.Now().Add(30 * time.Second))
	status, err := r.ReadString('\n')
	if err != nil || !strings.Contains(status, " 200 ") {
		conn.Close()
		return nil, nil, fmt.Errorf("GET /events: %q %v", status, err)
	}
	for {
		line, err := r.ReadString('\n')
		if err != nil {
			conn.Close()
			return nil, nil, err
		}
		if strings.HasPrefix(line, "retry:") {
			_ = conn.SetReadDeadline(time.Time{})
			return conn, r, nil
		}
	}
}

// pushRows: an inbound text posted to the sandbox's callback reaches sz.pushStreams open
// streams of the workspace (p99 from the POST to each stream's event, over every stream and
// text of a run); then sz.idle idle streams, and the anonymous memory they add to the server.
func pushRows(r *report, srv *sbServer, fx liveFixture, sz liveSizes, ui *uiClient) error {
	logf("live rows: push to %d streams", sz.pushStreams)
	arrived := make(chan time.Time, sz.pushStreams*4)
	var conns []net.Conn
	defer func() {
		for _, c := range conns {
			c.Close()
		}
	}()
	for range sz.pushStreams {
		conn, rd, err := ui.openStream()
		if err != nil {
			return err
		}
		conns = append(conns, conn)
		go func() {
			for {
				line, err := rd.ReadString('\n')
				if err != nil {
					return
				}
				// A new inbound message's event (the data object's keys come sorted).
				if strings.HasPrefix(line, "data: ") && strings.Contains(line, `"inbound":true`) &&
					strings.Contains(line, `"new":true`) && strings.Contains(line, `"type":"message"`) {
					arrived <- time.Now()
				}
			}
		}()
	}
	client := newClient()
	post := func(i int) ([]time.Duration, error) {
		start := time.Now()
		if err := inboundText(client, srv.base, fx.Token, fx.PushPhone, fx.Number, fmt.Sprintf("Is my order %d ready to collect?", i)); err != nil {
			return nil, err
		}
		lat := make([]time.Duration, 0, sz.pushStreams)
		timeout := time.After(30 * time.Second)
		for range sz.pushStreams {
			select {
			case at := <-arrived:
				lat = append(lat, at.Sub(start))
			case <-timeout:
				return nil, fmt.Errorf("text %d reached %d of %d streams in 30 s", i, len(lat), sz.pushStreams)
			}
		}
		return lat, nil
	}
	if _, err := post(0); err != nil { // warm-up
		return err
	}
	load := loadAvg()
	var worst99, worstMax time.Duration
	var each []string
	for run := range sz.runs {
		var lat []time.Duration
		for i := range sz.pushPosts {
			l, err := post(1 + run*sz.pushPosts + i)
			if err != nil {
				return err
			}
			lat = append(lat, l...)
		}
		_, p99, maxd := percentiles(lat)
		worst99, worstMax = max(worst99, p99), max(worstMax, maxd)
		each = append(each, ms(p99))
	}
	liveRow(r, fmt.Sprintf("push: inbound text to %d open /events streams", sz.pushStreams),
		fmt.Sprintf("worst of %d runs: p99 %s, max %s (p99 per run: %s; %d texts × %d streams a run; load %s)",
			sz.runs, ms(worst99), ms(worstMax), strings.Join(each, ", "), sz.pushPosts, sz.pushStreams, load), "p99 ≤ 250 ms")
	for _, c := range conns {
		c.Close()
	}
	conns = nil
	return idleRow(r, srv, sz, ui)
}

// idleRow opens sz.idle streams and reads how much anonymous memory (RssAnon) the server holds
// more than before, five times. The Go runtime keeps freed memory for a while, so a later run
// may reuse what an earlier one left: the first run is the fair figure, the worst is printed.
func idleRow(r *report, srv *sbServer, sz liveSizes, ui *uiClient) error {
	logf("live rows: %d idle streams", sz.idle)
	load := loadAvg()
	var worst int64
	var each []string
	for range sz.runs {
		before, err := srv.rssAnon()
		if err != nil {
			return err
		}
		conns := make([]net.Conn, sz.idle)
		err = parallel(8, sz.idle, func(i int) error {
			c, _, err := ui.openStream()
			conns[i] = c
			return err
		})
		var after int64
		if err == nil {
			after, err = srv.rssAnon()
		}
		closeAll(conns)
		if err != nil {
			return err
		}
		worst = max(worst, after-before)
		each = append(each, mb(after-before))
		// The server notices the closed connections and ends those streams before the next run.
		settleStreams()
	}
	liveRow(r, fmt.Sprintf("push: %d idle /events streams, server anonymous memory added", sz.idle),
		fmt.Sprintf("worst of %d runs: %s (per run: %s; load %s)", sz.runs, mb(worst), strings.Join(each, ", "), load), "≤ 50 MB")
	return nil
}

func closeAll(conns []net.Conn) {
	var wg sync.WaitGroup
	for _, c := range conns {
		if c != nil {
			wg.Go(func() { c.Close() })
		}
	}
	wg.Wait()
}

// settleStreams gives the server time to see the closed connections and end their streams
// (it learns of a closed connection from its background read at once; the server has no gauge
// of open streams to wait on) before the next run reads its memory.
func settleStreams() { time.Sleep(2 * time.Second) }
