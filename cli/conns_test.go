package cli

import (
	"bufio"
	"errors"
	"io"
	"net"
	"net/http"
	"testing"
	"testing/synctest"
	"time"

	"switchboard/web"
)

// pipeListener hands the server in-memory connections from given client addresses, so that a
// test runs inside a synctest bubble with the server's timers on the bubble's clock.
type pipeListener struct {
	conns  chan net.Conn
	closed chan struct{}
}

func newPipeListener() *pipeListener {
	return &pipeListener{conns: make(chan net.Conn, 16), closed: make(chan struct{})}
}

func (l *pipeListener) Accept() (net.Conn, error) {
	select {
	case c := <-l.conns:
		return c, nil
	case <-l.closed:
		return nil, net.ErrClosed
	}
}

func (l *pipeListener) Close() error   { close(l.closed); return nil }
func (l *pipeListener) Addr() net.Addr { return &net.TCPAddr{IP: net.IPv4(127, 0, 0, 1), Port: 8080} }

type addrConn struct {
	net.Conn
	remote net.Addr
}

func (c addrConn) RemoteAddr() net.Addr { return c.remote }

// client is one connection's client end with its reader.
type client struct {
	conn net.Conn
	r    *bufio.Reader
}

func (l *pipeListener) dial(from string) *client {
	a, b := net.Pipe()
	addr, _ := net.ResolveTCPAddr("tcp", from)
	l.conns <- addrConn{Conn: b, remote: addr}
	return &client{conn: a, r: bufio.NewReader(a)}
}

// get sends one request (signed in when auth) and returns its status, or the error that says
// the connection is gone.
func (c *client) get(path string, auth bool) (int, error) {
	req := "GET " + path + " HTTP/1.1\r\nHost: sb.test\r\n"
	if auth {
		req += "X-Signed-In: yes\r\n"
	}
	if _, err := io.WriteString(c.conn, req+"\r\n"); err != nil {
		return 0, err
	}
	res, err := http.ReadResponse(c.r, nil)
	if err != nil {
		return 0, err
	}
	io.Copy(io.Discard, res.Body)
	res.Body.Close()
	return res.StatusCode, nil
}

// serveTest serves a handler that counts a request carrying X-Signed-In as authenticated, like
// a session or token check, through the server's own listener bound and timeouts.
func serveTest(t *testing.T, perClient int) (*pipeListener, func()) {
	ln := newPipeListener()
	cl := newClientListener(ln, perClient, nil)
	srv := newHTTPServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Header.Get("X-Signed-In") != "" {
			web.MarkAuthenticated(r)
		}
		if r.URL.Path == "/stream" { // a live stream: pings every 15 s for two minutes
			rc := http.NewResponseController(w)
			_ = rc.SetReadDeadline(time.Time{})
			_ = rc.SetWriteDeadline(time.Time{})
			w.WriteHeader(http.StatusOK)
			for range 8 {
				io.WriteString(w, ": ping\n")
				rc.Flush()
				time.Sleep(15 * time.Second)
			}
			return
		}
		w.WriteHeader(http.StatusNoContent)
	}))
	cl.attach(srv)
	go srv.Serve(cl)
	return ln, func() { srv.Close() }
}

// TestConnectionsPerClientAreBounded: a client at its bound has its next connection closed at
// once, while other clients connect; a closed connection frees its place. An IPv6 client is
// its /64.
func TestConnectionsPerClientAreBounded(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		ln, stop := serveTest(t, 2)
		defer stop()
		a, b := ln.dial("192.0.2.1:1000"), ln.dial("192.0.2.1:1001")
		for _, c := range []*client{a, b} {
			if status, err := c.get("/", false); err != nil || status != http.StatusNoContent {
				t.Fatalf("a connection within the bound: %d %v", status, err)
			}
		}
		third := ln.dial("192.0.2.1:1002")
		synctest.Wait()
		if _, err := third.get("/", false); err == nil {
			t.Fatal("a third connection of one client was served; want it closed at once")
		}
		if status, err := ln.dial("192.0.2.2:1000").get("/", false); err != nil || status != http.StatusNoContent {
			t.Fatalf("another client: %d %v", status, err)
		}
		a.conn.Close()
		synctest.Wait()
		if status, err := ln.dial("192.0.2.1:1003").get("/", false); err != nil || status != http.StatusNoContent {
			t.Fatalf("after one closed: %d %v, want its place free", status, err)
		}
		v6a, v6b := ln.dial("[2001:db8::1]:1000"), ln.dial("[2001:db8::2]:1000")
		v6a.get("/", false)
		v6b.get("/", false)
		v6c := ln.dial("[2001:db8::3]:1000")
		synctest.Wait()
		if _, err := v6c.get("/", false); err == nil {
			t.Fatal("a third connection from one IPv6 /64 was served")
		}
	})
}

// TestIdleConnectionsThatNeverSignedInGoFirst: an idle connection that never carried a
// signed-in request is closed after anonIdle; a signed-in one waits the server's IdleTimeout;
// a live stream that pings every 15 s is never cut, signed in or not.
func TestIdleConnectionsThatNeverSignedInGoFirst(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		ln, stop := serveTest(t, 0)
		defer stop()
		anon, signed := ln.dial("192.0.2.1:1000"), ln.dial("192.0.2.1:1001")
		if _, err := anon.get("/login", false); err != nil {
			t.Fatal(err)
		}
		if _, err := signed.get("/inbox", true); err != nil {
			t.Fatal(err)
		}
		stream := ln.dial("192.0.2.1:1002")
		io.WriteString(stream.conn, "GET /stream HTTP/1.1\r\nHost: sb.test\r\nX-Signed-In: yes\r\n\r\n")
		res, err := http.ReadResponse(stream.r, nil)
		if err != nil || res.StatusCode != http.StatusOK {
			t.Fatalf("stream: %v", err)
		}
		pings := 0
		go func() {
			sc := bufio.NewScanner(res.Body)
			for sc.Scan() {
				pings++
			}
		}()
		time.Sleep(anonIdle + time.Second)
		synctest.Wait()
		if _, err := anon.get("/login", false); err == nil {
			t.Fatalf("an unauthenticated connection idle %s was still served", anonIdle+time.Second)
		}
		if status, err := signed.get("/inbox", true); err != nil || status != http.StatusNoContent {
			t.Fatalf("a signed-in connection idle %s: %d %v, want it served", anonIdle+time.Second, status, err)
		}
		time.Sleep(2 * time.Minute)
		synctest.Wait()
		if pings != 8 {
			t.Fatalf("the stream sent %d pings over two minutes, want all 8", pings)
		}
		if _, err := signed.get("/inbox", true); !errors.Is(err, io.EOF) && err == nil {
			t.Fatal("a signed-in connection idle past IdleTimeout was still served")
		}
	})
}
