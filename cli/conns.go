package cli

import (
	"context"
	"net"
	"net/http"
	"net/netip"
	"sync"
	"sync/atomic"
	"time"

	"github.com/prometheus/client_golang/prometheus"

	"switchboard/web"
)

// anonIdle is how long a connection that never carried a signed-in or token request may wait
// idle for its next request: a browser that has only fetched the sign-in page and its files
// loses nothing but a handshake, and a client holding sockets open to fill the server's bound
// holds each for seconds, not minutes. Connections that authenticated keep the server's
// IdleTimeout; a request in progress (a GET /events stream) is not idle.
const anonIdle = 15 * time.Second

// clientListener bounds the open connections of each client (-max-conns-per-ip): one client
// cannot take the whole -max-connections bound and lock everyone else out. A client is an IPv4
// address, or an IPv6 /64 (one host's range). A connection beyond its client's bound is closed
// at once.
type clientListener struct {
	net.Listener
	perClient int // 0: no bound
	idle      time.Duration
	refused   prometheus.Counter

	mu   sync.Mutex
	open map[string]int
}

func newClientListener(ln net.Listener, perClient int, reg prometheus.Registerer) *clientListener {
	l := &clientListener{Listener: ln, perClient: perClient, idle: anonIdle, open: map[string]int{},
		refused: prometheus.NewCounter(prometheus.CounterOpts{Name: "switchboard_connections_refused_total",
			Help: "Connections closed at once because their client had -max-conns-per-ip open."})}
	if reg != nil {
		reg.MustRegister(l.refused)
	}
	return l
}

// clientOf is the client a remote address counts against.
func clientOf(addr net.Addr) string {
	ap, err := netip.ParseAddrPort(addr.String())
	if err != nil {
		return addr.String()
	}
	ip := ap.Addr().Unmap()
	if ip.Is6() {
		if p, err := ip.Prefix(64); err == nil {
			return p.String()
		}
	}
	return ip.String()
}

// Accept returns the next connection whose client is within its bound.
func (l *clientListener) Accept() (net.Conn, error) {
	for {
		c, err := l.Listener.Accept()
		if err != nil {
			return nil, err
		}
		key := clientOf(c.RemoteAddr())
		l.mu.Lock()
		if l.perClient > 0 && l.open[key] >= l.perClient {
			l.mu.Unlock()
			l.refused.Inc()
			c.Close()
			continue
		}
		l.open[key]++
		l.mu.Unlock()
		return &clientConn{Conn: c, l: l, key: key}, nil
	}
}

func (l *clientListener) release(key string) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.open[key]--; l.open[key] <= 0 {
		delete(l.open, key)
	}
}

// attach lets srv tell the connections when they are idle and lets requests mark theirs as
// authenticated (web.WithAuthMark).
func (l *clientListener) attach(srv *http.Server) {
	srv.ConnState = func(c net.Conn, s http.ConnState) {
		if cc, ok := c.(*clientConn); ok {
			cc.idle.Store(s == http.StateIdle)
		}
	}
	srv.ConnContext = func(ctx context.Context, c net.Conn) context.Context {
		if cc, ok := c.(*clientConn); ok {
			return web.WithAuthMark(ctx, func() { cc.authed.Store(true) })
		}
		return ctx
	}
}

// clientConn is an accepted connection, counted against its client until it is closed.
type clientConn struct {
	net.Conn
	l      *clientListener
	key    string
	once   sync.Once
	idle   atomic.Bool // waiting for the next request (http.StateIdle until its first bytes)
	authed atomic.Bool // carried a signed-in or token request
}

func (c *clientConn) Close() error {
	c.once.Do(func() { c.l.release(c.key) })
	return c.Conn.Close()
}

// Read ends the idle wait as soon as the next request's first bytes arrive, so that only the
// wait is shortened, not the reading of the request.
func (c *clientConn) Read(p []byte) (int, error) {
	n, err := c.Conn.Read(p)
	if n > 0 && c.idle.Load() {
		c.idle.Store(false)
	}
	return n, err
}

// SetReadDeadline is the server's: while the connection is idle and never authenticated, the
// wait for the next request ends within anonIdle.
func (c *clientConn) SetReadDeadline(t time.Time) error {
	if c.idle.Load() && !c.authed.Load() && c.l.idle > 0 {
		if limit := time.Now().Add(c.l.idle); t.IsZero() || t.After(limit) {
			t = limit
		}
	}
	return c.Conn.SetReadDeadline(t)
}
