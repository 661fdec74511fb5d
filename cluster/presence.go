package cluster

import (
	"context"
	"encoding/json"
	"io"
	"net/http"
	"time"
)

// Who has a live stream open (GET /events) is known to the node serving the stream, but
// auto-assignment decides availability where writes run: on the leader. Every other node tells
// the leader, every presenceEvery, which users have a stream open on it; the leader counts each
// as seen then, so a member watching through a follower stays available, as on one node
// (store.OfflineAfter, five minutes, is ten reports).
const presenceEvery = 30 * time.Second

// relayPresence reports this node's stream users to the leader until the node closes.
func (n *Node) relayPresence(every time.Duration) {
	t := time.NewTicker(every)
	defer t.Stop()
	for {
		select {
		case <-n.stopObserve:
			return
		case <-t.C:
		}
		n.reportPresence()
	}
}

// reportPresence sends the users with a stream open on this node to the leader, unless this
// node leads (its own streams count there already) or has none.
func (n *Node) reportPresence() {
	if n.IsLeader() {
		return
	}
	users := n.cfg.Store.StreamUsers()
	addr, _ := n.leader()
	if len(users) == 0 || addr == "" {
		return
	}
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	if err := n.call(ctx, addr, http.MethodPost, "/cluster/presence", users, nil); err != nil {
		n.log.Debug("cluster: report the live streams to the leader", "leader", addr, "err", err)
	}
}

// handlePresence takes another node's report of its stream users.
func (n *Node) handlePresence(w http.ResponseWriter, r *http.Request) {
	var users []string
	if err := json.NewDecoder(io.LimitReader(r.Body, 1<<20)).Decode(&users); err != nil {
		writeErr(w, http.StatusBadRequest, "want a JSON list of user ids")
		return
	}
	n.cfg.Store.SeenElsewhere(users)
	writeJSON(w, http.StatusOK, map[string]int{"seen": len(users)})
}
