package cluster

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"strconv"
	"time"

	"github.com/hashicorp/raft"
)

// The peer channel's HTTP API. Every request on it comes from a holder of the cluster key (the
// TLS handshake checked it): another node, or the `switchboard cluster` command.
func (n *Node) peerHandler() http.Handler {
	mux := http.NewServeMux()
	mux.HandleFunc("GET /cluster/info", n.handleInfo)
	mux.HandleFunc("GET /cluster/status", n.handleStatus)
	mux.HandleFunc("GET /cluster/keys", n.handleKeys)
	mux.HandleFunc("GET /cluster/copy", n.handleCopy)
	mux.HandleFunc("GET /cluster/readindex", n.handleReadIndex)
	mux.HandleFunc("POST /cluster/add", n.handleAdd)
	mux.HandleFunc("POST /cluster/remove", n.handleRemove)
	mux.HandleFunc("POST /cluster/welcome", n.handleWelcome)
	mux.HandleFunc("POST /cluster/presence", n.handlePresence)
	mux.HandleFunc("/", n.serveForwarded)
	return mux
}

// NodeInfo is what a node says of itself.
type NodeInfo struct {
	ID      string `json:"id"`
	Addr    string `json:"addr"`
	Role    string `json:"role"`
	Applied uint64 `json:"applied"`
	Commit  uint64 `json:"commit"`
	Term    uint64 `json:"term"`
	Leader  string `json:"leader"`
}

func (n *Node) info() NodeInfo {
	_, leader := n.raft.LeaderWithID()
	return NodeInfo{ID: n.cfg.ID, Addr: n.self, Role: n.Role(), Applied: n.raft.AppliedIndex(),
		Commit: n.raft.CommitIndex(), Term: n.raft.CurrentTerm(), Leader: string(leader)}
}

func writeJSON(w http.ResponseWriter, status int, v any) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	_ = json.NewEncoder(w).Encode(v)
}

func writeErr(w http.ResponseWriter, status int, format string, args ...any) {
	writeJSON(w, status, map[string]string{"error": fmt.Sprintf(format, args...)})
}

func (n *Node) handleInfo(w http.ResponseWriter, _ *http.Request) {
	writeJSON(w, http.StatusOK, n.info())
}

// handleStatus answers one NodeInfo per member of the cluster's configuration, asking each;
// one that does not answer is "unreachable".
func (n *Node) handleStatus(w http.ResponseWriter, r *http.Request) {
	f := n.raft.GetConfiguration()
	if err := f.Error(); err != nil {
		writeErr(w, http.StatusServiceUnavailable, "configuration: %v", err)
		return
	}
	servers := f.Configuration().Servers
	out := make([]NodeInfo, len(servers))
	done := make(chan struct{}, len(servers))
	for i, s := range servers {
		go func() {
			defer func() { done <- struct{}{} }()
			if string(s.ID) == n.cfg.ID {
				out[i] = n.info()
				return
			}
			out[i] = NodeInfo{ID: string(s.ID), Addr: string(s.Address), Role: "unreachable"}
			ctx, cancel := context.WithTimeout(r.Context(), 2*time.Second)
			defer cancel()
			var info NodeInfo
			if err := n.call(ctx, string(s.Address), http.MethodGet, "/cluster/info", nil, &info); err == nil {
				info.Addr = string(s.Address)
				out[i] = info
			}
		}()
	}
	for range servers {
		<-done
	}
	writeJSON(w, http.StatusOK, out)
}

// handleReadIndex is the leader's side of a read barrier: it confirms it still leads (a round of
// heartbeats to a majority) and answers its commit index.
func (n *Node) handleReadIndex(w http.ResponseWriter, _ *http.Request) {
	if n.raft.State() != raft.Leader {
		writeErr(w, http.StatusServiceUnavailable, "not the leader")
		return
	}
	idx := n.raft.CommitIndex()
	if err := n.raft.VerifyLeader().Error(); err != nil {
		writeErr(w, http.StatusServiceUnavailable, "not the leader: %v", err)
		return
	}
	writeJSON(w, http.StatusOK, map[string]uint64{"index": idx})
}

// membership is the body of /cluster/add and /cluster/remove.
type membership struct {
	ID   string `json:"id"`
	Addr string `json:"addr,omitempty"`
}

// handleAdd adds a node: the leader hands it the keys and a copy of the database (the node
// refuses when its keys differ), then adds it as a voter. Another node passes the request to
// the leader.
func (n *Node) handleAdd(w http.ResponseWriter, r *http.Request) {
	var m membership
	if err := json.NewDecoder(io.LimitReader(r.Body, 1<<16)).Decode(&m); err != nil || m.ID == "" || m.Addr == "" {
		writeErr(w, http.StatusBadRequest, "want {\"id\": ID, \"addr\": HOST:PORT}")
		return
	}
	if n.relayToLeader(w, r, m) {
		return
	}
	keys, err := n.readKeys()
	if err != nil {
		writeErr(w, http.StatusInternalServerError, "read the keys: %v", err)
		return
	}
	var answer map[string]string
	err = n.callLong(r.Context(), m.Addr, http.MethodPost, "/cluster/welcome", welcome{Keys: keys, From: n.self}, &answer)
	var pe *peerError
	if errors.As(err, &pe) {
		writeErr(w, pe.status, "node %s at %s: %s", m.ID, m.Addr, pe.msg)
		return
	}
	if err != nil {
		writeErr(w, http.StatusBadGateway, "node %s at %s: %v", m.ID, m.Addr, err)
		return
	}
	if err := n.raft.AddVoter(raft.ServerID(m.ID), raft.ServerAddress(m.Addr), 0, 30*time.Second).Error(); err != nil {
		writeErr(w, http.StatusServiceUnavailable, "add %s: %v", m.ID, err)
		return
	}
	n.log.Info("cluster: node added", "node", m.ID, "addr", m.Addr)
	writeJSON(w, http.StatusOK, map[string]string{"added": m.ID})
}

// handleRemove removes a node from the cluster's configuration (on the leader).
func (n *Node) handleRemove(w http.ResponseWriter, r *http.Request) {
	var m membership
	if err := json.NewDecoder(io.LimitReader(r.Body, 1<<16)).Decode(&m); err != nil || m.ID == "" {
		writeErr(w, http.StatusBadRequest, "want {\"id\": ID}")
		return
	}
	if n.relayToLeader(w, r, m) {
		return
	}
	f := n.raft.GetConfiguration()
	if err := f.Error(); err != nil {
		writeErr(w, http.StatusServiceUnavailable, "configuration: %v", err)
		return
	}
	found := false
	for _, s := range f.Configuration().Servers {
		found = found || string(s.ID) == m.ID
	}
	if !found {
		writeErr(w, http.StatusNotFound, "no node %q in the cluster", m.ID)
		return
	}
	if err := n.raft.RemoveServer(raft.ServerID(m.ID), 0, 30*time.Second).Error(); err != nil {
		writeErr(w, http.StatusServiceUnavailable, "remove %s: %v", m.ID, err)
		return
	}
	n.log.Info("cluster: node removed", "node", m.ID)
	writeJSON(w, http.StatusOK, map[string]string{"removed": m.ID})
}

// relayToLeader passes a membership change to the leader when this node is not it, and
// reports whether it answered w.
func (n *Node) relayToLeader(w http.ResponseWriter, r *http.Request, m membership) bool {
	if n.raft.State() == raft.Leader {
		return false
	}
	addr, _ := n.leader()
	if addr == "" {
		writeErr(w, http.StatusServiceUnavailable, "the cluster has no leader now")
		return true
	}
	var answer map[string]string
	err := n.callLong(r.Context(), addr, http.MethodPost, r.URL.Path, m, &answer)
	var pe *peerError
	switch {
	case errors.As(err, &pe):
		writeErr(w, pe.status, "%s", pe.msg)
	case err != nil:
		writeErr(w, http.StatusBadGateway, "the leader at %s: %v", addr, err)
	default:
		writeJSON(w, http.StatusOK, answer)
	}
	return true
}

// peerError is a peer's answer other than 200: its status and its {"error"} message.
type peerError struct {
	status int
	msg    string
}

func (e *peerError) Error() string { return strconv.Itoa(e.status) + ": " + e.msg }

// call makes a request of the peer API at addr with a JSON body (nil for none) and decodes the
// JSON answer into out.
func (n *Node) call(ctx context.Context, addr, method, path string, body, out any) error {
	return callPeer(ctx, n.client, addr, method, path, body, out)
}

// callLong is call without the client's time limit (a copy of the database may take minutes).
func (n *Node) callLong(ctx context.Context, addr, method, path string, body, out any) error {
	return callPeer(ctx, n.long, addr, method, path, body, out)
}

func callPeer(ctx context.Context, c *http.Client, addr, method, path string, body, out any) error {
	var rd io.Reader
	if body != nil {
		b, err := json.Marshal(body)
		if err != nil {
			return err
		}
		rd = bytes.NewReader(b)
	}
	req, err := http.NewRequestWithContext(ctx, method, "http://"+addr+path, rd)
	if err != nil {
		return err
	}
	if body != nil {
		req.Header.Set("Content-Type", "application/json")
	}
	resp, err := c.Do(req)
	if err != nil {
		return err
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		var e struct {
			Error string `json:"error"`
		}
		data, _ := io.ReadAll(io.LimitReader(resp.Body, 1<<16))
		if json.Unmarshal(data, &e) != nil || e.Error == "" {
			e.Error = string(bytes.TrimSpace(data))
		}
		return &peerError{status: resp.StatusCode, msg: e.Error}
	}
	if out == nil {
		return nil
	}
	return json.NewDecoder(resp.Body).Decode(out)
}
