package cluster

import (
	"context"
	"errors"
	"net"
	"net/http"
	"net/http/httputil"
	"time"

	"github.com/hashicorp/raft"
)

// Headers a node sets on a request it forwards to the leader. They travel only on the peer
// channel (TLS with the cluster key), and the leader reads them only there: a client cannot
// set them.
const (
	headerClient = "X-Switchboard-Peer-Client" // the client's address, for throttles and logs
	headerAdmin  = "X-Switchboard-Peer-Admin"  // "1": the forwarding node checked the admin token
)

// forwarder is the reverse proxy a follower hands requests to the leader with, over the peer
// channel.
type forwarder struct {
	n *Node
	p *httputil.ReverseProxy
}

type forwardKey struct{}

type forwardInfo struct {
	leader      string
	admin       bool
	unavailable Refusal
}

// Refusal answers a request the cluster could not take (503); uncertain says the request may
// have reached the leader, so its change may have been made.
type Refusal = func(w http.ResponseWriter, r *http.Request, uncertain bool)

func newForwarder(n *Node) *forwarder {
	f := &forwarder{n: n}
	f.p = &httputil.ReverseProxy{
		Transport: n.client.Transport,
		Rewrite: func(pr *httputil.ProxyRequest) {
			fi := pr.In.Context().Value(forwardKey{}).(*forwardInfo)
			pr.Out.URL.Scheme = "http"
			pr.Out.URL.Host = fi.leader
			pr.Out.Host = pr.In.Host // the public host the client asked for
			pr.Out.Header.Del(headerAdmin)
			pr.Out.Header.Set(headerClient, pr.In.RemoteAddr)
			if fi.admin {
				pr.Out.Header.Set(headerAdmin, "1")
			}
		},
		FlushInterval: -1, // pass each write on at once (htmx fragments, downloads)
		ErrorHandler: func(w http.ResponseWriter, r *http.Request, err error) {
			fi := r.Context().Value(forwardKey{}).(*forwardInfo)
			// A connection that could not be made carried nothing; one that broke after the
			// request went out may have carried it to the leader.
			var op *net.OpError
			sent := !(errors.As(err, &op) && op.Op == "dial")
			n.log.Warn("cluster: forwarding to the leader failed", "leader", fi.leader, "path", r.URL.Path, "err", err)
			fi.unavailable(w, r, sent)
		},
	}
	return f
}

// Forward hands r to the leader and writes its answer to w. When no leader is known, or the
// leader cannot be reached, unavailable answers instead (503). admin says the caller checked
// the request's admin token, so the leader may take it without its own.
func (n *Node) Forward(w http.ResponseWriter, r *http.Request, admin bool, unavailable Refusal) {
	addr, id := n.leader()
	if addr == "" || id == n.cfg.ID {
		unavailable(w, r, false)
		return
	}
	ctx := context.WithValue(r.Context(), forwardKey{}, &forwardInfo{leader: string(addr), admin: admin, unavailable: unavailable})
	n.proxy.p.ServeHTTP(w, r.WithContext(ctx))
}

// serveForwarded serves a request another node forwarded, with the client's address it saw.
func (n *Node) serveForwarded(w http.ResponseWriter, r *http.Request) {
	app := n.app.Load()
	if app == nil {
		writeErr(w, http.StatusServiceUnavailable, "this node is starting")
		return
	}
	client := r.Header.Get(headerClient)
	admin := r.Header.Get(headerAdmin) == "1"
	r.Header.Del(headerClient)
	r.Header.Del(headerAdmin)
	if client == "" {
		client = r.RemoteAddr
	}
	(*app)(w, r, client, admin)
}

// ReadBarrier waits until this node has applied every entry the leader had committed when it
// was asked (Raft's read index): a read after it sees every write acknowledged before it.
func (n *Node) ReadBarrier(ctx context.Context) error {
	var idx uint64
	if n.raft.State() == raft.Leader {
		idx = n.raft.CommitIndex()
		if err := n.raft.VerifyLeader().Error(); err != nil {
			return err
		}
	} else {
		addr, _ := n.leader()
		if addr == "" {
			return errNoLeader
		}
		var answer struct {
			Index uint64 `json:"index"`
		}
		if err := n.call(ctx, string(addr), http.MethodGet, "/cluster/readindex", nil, &answer); err != nil {
			return err
		}
		idx = answer.Index
	}
	t := time.NewTicker(2 * time.Millisecond)
	defer t.Stop()
	for n.raft.AppliedIndex() < idx {
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-t.C:
		}
	}
	return nil
}

// leader is the leader's id and the address this node dials it at: the one this node's own
// configuration lists for that id (it may be a proxy's), else the one the leader gave.
func (n *Node) leader() (addr, id string) {
	a, sid := n.raft.LeaderWithID()
	if sid == "" {
		return "", ""
	}
	if f := n.raft.GetConfiguration(); f.Error() == nil {
		for _, s := range f.Configuration().Servers {
			if s.ID == sid {
				return string(s.Address), string(sid)
			}
		}
	}
	return string(a), string(sid)
}
