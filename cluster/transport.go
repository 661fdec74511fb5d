package cluster

import (
	"context"
	"crypto/tls"
	"errors"
	"net"
	"net/http"
	"sync"
	"time"

	"github.com/hashicorp/raft"
)

// The peer channel: one TCP port per node (-raft-addr), TLS with the cluster key on every
// connection, carrying two protocols told apart by the first byte the dialer writes: raft's
// own RPCs (hashicorp/raft's NetworkTransport) and a small HTTP API between nodes and the
// cluster command (status, add, remove, the keys, the leader's HTTP address, the read index).
const (
	protoRaft byte = 'R'
	protoHTTP byte = 'H'
)

// handshakeTimeout bounds a connection's TLS handshake and protocol byte.
const handshakeTimeout = 5 * time.Second

// mux accepts the peer channel's connections and hands each to its protocol.
type mux struct {
	ln   net.Listener
	key  *Key
	raft *chanListener
	http *chanListener
	wg   sync.WaitGroup
}

func listenMux(addr string, key *Key) (*mux, error) {
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		return nil, err
	}
	m := &mux{ln: ln, key: key, raft: newChanListener(ln.Addr()), http: newChanListener(ln.Addr())}
	m.wg.Go(m.serve)
	return m, nil
}

func (m *mux) serve() {
	for {
		c, err := m.ln.Accept()
		if err != nil {
			m.raft.close()
			m.http.close()
			return
		}
		go m.route(c)
	}
}

// route completes the TLS handshake (which checks the peer's key) and reads the protocol byte.
func (m *mux) route(c net.Conn) {
	tc := tls.Server(c, m.key.ServerTLS())
	_ = tc.SetDeadline(time.Now().Add(handshakeTimeout))
	var b [1]byte
	if err := tc.Handshake(); err != nil {
		c.Close()
		return
	}
	if _, err := tc.Read(b[:]); err != nil {
		c.Close()
		return
	}
	_ = tc.SetDeadline(time.Time{})
	var ok bool
	switch b[0] {
	case protoRaft:
		ok = m.raft.put(tc)
	case protoHTTP:
		ok = m.http.put(tc)
	}
	if !ok {
		c.Close()
	}
}

func (m *mux) Close() error {
	err := m.ln.Close()
	m.wg.Wait()
	return err
}

// dialPeer opens a connection to a peer's channel for protocol proto.
func dialPeer(ctx context.Context, key *Key, addr string, proto byte) (net.Conn, error) {
	d := tls.Dialer{Config: key.ClientTLS(), NetDialer: &net.Dialer{Timeout: handshakeTimeout}}
	c, err := d.DialContext(ctx, "tcp", addr)
	if err != nil {
		return nil, err
	}
	_ = c.SetWriteDeadline(time.Now().Add(handshakeTimeout))
	if _, err := c.Write([]byte{proto}); err != nil {
		c.Close()
		return nil, err
	}
	_ = c.SetWriteDeadline(time.Time{})
	return c, nil
}

// chanListener is a net.Listener fed with connections the mux accepted.
type chanListener struct {
	addr net.Addr
	ch   chan net.Conn
	done chan struct{}
	once sync.Once
}

func newChanListener(addr net.Addr) *chanListener {
	return &chanListener{addr: addr, ch: make(chan net.Conn), done: make(chan struct{})}
}

func (l *chanListener) put(c net.Conn) bool {
	select {
	case l.ch <- c:
		return true
	case <-l.done:
		return false
	}
}

func (l *chanListener) Accept() (net.Conn, error) {
	select {
	case c := <-l.ch:
		return c, nil
	case <-l.done:
		return nil, net.ErrClosed
	}
}

func (l *chanListener) close()         { l.once.Do(func() { close(l.done) }) }
func (l *chanListener) Close() error   { l.close(); return nil }
func (l *chanListener) Addr() net.Addr { return l.addr }

// raftStream is raft's StreamLayer over the peer channel.
type raftStream struct {
	*chanListener
	key       *Key
	advertise net.Addr
}

func (s *raftStream) Dial(addr raft.ServerAddress, timeout time.Duration) (net.Conn, error) {
	ctx, cancel := context.WithTimeout(context.Background(), timeout)
	defer cancel()
	return dialPeer(ctx, s.key, string(addr), protoRaft)
}

func (s *raftStream) Addr() net.Addr {
	if s.advertise != nil {
		return s.advertise
	}
	return s.chanListener.Addr()
}

// peerClient is an HTTP client whose every connection is the peer channel's HTTP protocol:
// a URL's host is the peer's -raft-addr.
func peerClient(key *Key, timeout time.Duration) *http.Client {
	return &http.Client{
		Timeout: timeout,
		Transport: &http.Transport{
			DialContext: func(ctx context.Context, _, addr string) (net.Conn, error) {
				return dialPeer(ctx, key, addr, protoHTTP)
			},
			MaxIdleConnsPerHost: 256, // a follower forwards as many requests at once as its clients make
			IdleConnTimeout:     time.Minute,
		},
	}
}

// errNoLeader is returned while the cluster has no leader this node knows of.
var errNoLeader = errors.New("cluster: no leader")
