package web

import (
	"context"
	"net/http"
	"strings"

	"github.com/a-h/templ"

	"switchboard/views"
)

// Cluster is this node's place in a cluster of nodes that keep one database (DESIGN §26); nil
// on one node. The cluster package's Node implements it.
type Cluster interface {
	// Role is "leader", "follower" or "candidate".
	Role() string
	IsLeader() bool
	// Lead returns once this node leads with its file holding every entry its log held when
	// it was elected (a new leader applies its log first), else an error: it does not lead,
	// or it is still applying.
	Lead() error
	// Ready reports whether the node has caught up with the leader.
	Ready() bool
	// Forward hands r to the leader and writes its answer; unavailable answers when there is
	// no leader to hand it to (uncertain: the request may have reached it before the link
	// broke). admin says this node checked the request's admin token.
	Forward(w http.ResponseWriter, r *http.Request, admin bool, unavailable func(w http.ResponseWriter, r *http.Request, uncertain bool))
	// ReadBarrier returns once this node has applied every write the leader had committed.
	ReadBarrier(ctx context.Context) error
	// PeerAddr is the address of the node's peer channel (its -raft-addr as the others dial it).
	PeerAddr() string
	// SetApp sets what serves the requests other nodes forward to this one: client is the
	// client's address as the forwarding node saw it, admin whether it checked the admin token.
	SetApp(app func(w http.ResponseWriter, r *http.Request, client string, admin bool))
}

// Where a request is served in a cluster. Every request that might write goes to the leader,
// and so does every read: many GETs write (a session's last-seen time, a thread marked read),
// some API actions that POST only read, and a follower's file may be a few entries behind, so
// the leader answers whatever a client could compare with what it just wrote. A node serves
// itself only what cannot be stale for its client or is about the node itself: static files,
// /healthz, /readyz, /metrics, the operator's hot copy (/admin/backup with its token, a
// consistent copy of that node's file), and the live event stream /events, which reads the
// events the node has applied after a read barrier (so its session check sees a sign-in the
// leader just committed).

// peerKey marks a request another node forwarded (servePeer): it is served here, never passed
// on again.
type peerKey struct{}

type peerMark struct{ admin bool }

func fromPeer(r *http.Request) (peerMark, bool) {
	m, ok := r.Context().Value(peerKey{}).(peerMark)
	return m, ok
}

// servePeer serves a request another node forwarded, with the client's address that node saw.
func (h *Handler) servePeer(root http.Handler) func(w http.ResponseWriter, r *http.Request, client string, admin bool) {
	return func(w http.ResponseWriter, r *http.Request, client string, admin bool) {
		r = r.WithContext(context.WithValue(r.Context(), peerKey{}, peerMark{admin: admin}))
		r.RemoteAddr = client
		root.ServeHTTP(w, r)
	}
}

// front passes what the leader must answer to it and serves the rest here (see above).
func (h *Handler) front(next http.Handler) http.Handler {
	c := h.cfg.Cluster
	if c == nil {
		return next
	}
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if servedHere(r) {
			next.ServeHTTP(w, r)
			return
		}
		if c.IsLeader() {
			// A new leader answers once its file holds its whole log: a read before could
			// miss a write the last leader acknowledged (its writes wait for the same).
			if err := c.Lead(); err != nil {
				h.unavailable(w, r)
				return
			}
			next.ServeHTTP(w, r)
			return
		}
		if _, ok := fromPeer(r); ok {
			// Forwarded here by a node that took this one for the leader, which it no longer
			// is: its file may miss the new leader's writes, and passing it on again could
			// loop. The client tries again.
			h.unavailable(w, r)
			return
		}
		admin := false
		if adminEndpoint(r.URL.Path) {
			if !h.adminLocal(w, r) {
				return
			}
			admin = true
		}
		c.Forward(w, r, admin, h.refused)
	})
}

// servedHere reports whether a node serves r itself in a cluster.
func servedHere(r *http.Request) bool {
	p := r.URL.Path
	switch {
	case strings.HasPrefix(p, "/static/"), p == "/healthz", p == "/readyz", p == "/metrics", p == "/favicon.ico", p == "/cluster/peer":
		return true
	case p == "/events" && r.Method == http.MethodGet:
		return true
	case p == "/admin/backup" && r.Header.Get("Authorization") != "":
		return true
	}
	return false
}

// adminEndpoint reports whether path is one of the operator's token endpoints that change or
// read the database (the admin commands run through a running server).
func adminEndpoint(path string) bool {
	return path == "/admin/contacts/export" || path == "/admin/contacts/import" || path == "/admin/run"
}

// unavailable answers 503 when the cluster cannot take the request now (no leader this node
// can reach, or it lost its majority) and nothing was changed.
func (h *Handler) unavailable(w http.ResponseWriter, r *http.Request) { h.refused(w, r, false) }

// refused answers 503 for a request the cluster could not take: the API and the machine
// endpoints in JSON, a person the product's error page. uncertain says the change may have
// been made all the same (the leader was lost while it took it), so the client checks before
// trying again; else nothing changed and it may simply try again in a moment.
func (h *Handler) refused(w http.ResponseWriter, r *http.Request, uncertain bool) {
	w.Header().Set("Retry-After", "1")
	text, page := unavailableText, "Nothing was changed. Try again in a few seconds."
	if uncertain {
		text, page = uncertainText, "Your change may or may not have been made: look before you try again."
	}
	if machinePath(r.URL.Path) || strings.HasPrefix(r.URL.Path, "/"+h.cfg.Stage+"/") || strings.HasPrefix(r.URL.Path, "/admin/contacts/") {
		writeError(w, http.StatusServiceUnavailable, text)
		return
	}
	setPageHeaders(w)
	templ.Handler(views.Layout("Unavailable", views.StatusPage("Switchboard is unavailable for a moment",
		"The servers are choosing which of them takes changes, or this one cannot reach the others. "+page,
		r.URL.RequestURI(), "Try again")), templ.WithStatus(http.StatusServiceUnavailable)).ServeHTTP(w, r)
}

// The 503 answers of a cluster that cannot take a request.
const (
	unavailableText = "the cluster cannot take this request now (no leader reachable); nothing was changed, try again in a moment"
	uncertainText   = "the cluster lost its leader while taking this request; the change may or may not have been made, check before trying again"
)

// adminVerified reports whether another node forwarded r after checking its admin token.
func adminVerified(r *http.Request) bool {
	m, ok := fromPeer(r)
	return ok && m.admin
}

// role is the node's role for /healthz: "single" on one node.
func (h *Handler) role() string {
	if h.cfg.Cluster == nil {
		return "single"
	}
	return h.cfg.Cluster.Role()
}

// clusterPeer is GET /cluster/peer: the address of this node's peer channel, where the cluster
// command (which holds the cluster key) talks to it. The channel refuses anyone without the key.
func (h *Handler) clusterPeer(w http.ResponseWriter, _ *http.Request) {
	writeJSON(w, http.StatusOK, map[string]string{"addr": h.cfg.Cluster.PeerAddr()})
}
