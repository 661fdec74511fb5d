// Package cluster is the Raft glue (DESIGN §26): three (or more) nodes keep one database on
// hashicorp/raft. The replicated state is the store's bbolt file: a write's set of changes is a
// log entry (store.Replicate), every node applies committed entries (the fsm), snapshots are
// the store's consistent copy. Peers talk over TLS pinned to the cluster key (Key); the same
// channel carries raft's RPCs, the cluster's own small API (status, add, remove, the keys
// beside the database, a copy of the database for a new node, the read index) and the HTTP
// requests a follower forwards to the leader.
package cluster

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/hashicorp/go-hclog"
	"github.com/hashicorp/raft"
	raftboltdb "github.com/hashicorp/raft-boltdb/v2"
	bolt "go.etcd.io/bbolt"

	"switchboard/store"
)

// Peer is a node of the cluster: its id and the address the others dial (its -raft-addr, or
// what a proxy between them makes of it).
type Peer struct{ ID, Addr string }

// ParsePeers reads -raft-peers: ID=HOST:PORT entries separated by commas.
func ParsePeers(s string) ([]Peer, error) {
	var out []Peer
	seen := map[string]bool{}
	for _, part := range strings.Split(s, ",") {
		part = strings.TrimSpace(part)
		if part == "" {
			continue
		}
		id, addr, ok := strings.Cut(part, "=")
		if !ok || id == "" || addr == "" {
			return nil, fmt.Errorf("-raft-peers: %q is not ID=HOST:PORT", part)
		}
		if _, _, err := net.SplitHostPort(addr); err != nil {
			return nil, fmt.Errorf("-raft-peers: %q: %v", part, err)
		}
		if seen[id] {
			return nil, fmt.Errorf("-raft-peers: node %q is listed twice", id)
		}
		seen[id] = true
		out = append(out, Peer{ID: id, Addr: addr})
	}
	return out, nil
}

// Config is a node's configuration.
type Config struct {
	ID    string // -node-id
	Bind  string // -raft-addr: where the peer channel listens
	Peers []Peer // -raft-peers: every node, this one included; empty when joining
	Join  string // -join: a running node's peer address; "" with Peers, or to wait for `cluster add`
	Key   *Key
	// DataDir is the data directory: the database is the store's, raft's log, stable store
	// and snapshots are in DataDir/raft, and KeyFiles (names) are the keys kept beside the
	// database that every node must share.
	DataDir  string
	KeyFiles []string
	Store    *store.Store
	Logger   *slog.Logger
	// Timing, zero for the defaults: raft's heartbeat and election timeouts.
	Heartbeat time.Duration
}

// applyTimeout bounds how long a write waits for its entry to commit before it answers 503.
const applyTimeout = 5 * time.Second

// Node is this process's place in the cluster.
type Node struct {
	cfg     Config
	log     *slog.Logger
	mux     *mux
	raft    *raft.Raft
	trans   *raft.NetworkTransport
	logs    *raftboltdb.BoltStore
	client  *http.Client // the peer channel's HTTP protocol
	long    *http.Client // the same, for copies of the database
	self    string       // the address the others dial
	peerSrv *http.Server

	app     atomic.Pointer[PeerApp] // serves requests forwarded by other nodes
	proxy   *forwarder
	ready   chan struct{} // closed once this node's keys are in place (KeysReady)
	readyMu sync.Once
	join    joining

	// leading is this node's current time as the leader, nil while it follows.
	leading       atomic.Pointer[leadTerm]
	leaderChanges atomic.Int64
	leadMu        sync.Mutex // serialises the calls of onLeader
	onLeader      func(bool)
	stopObserve   chan struct{}
	observed      sync.WaitGroup
}

// PeerApp serves a request another node forwarded: client is the client's address as the
// forwarding node saw it, admin whether that node checked the request's admin token.
type PeerApp = func(w http.ResponseWriter, r *http.Request, client string, admin bool)

// Start opens raft's files, listens on the peer channel and joins the cluster. A node that
// starts for the first time takes a copy of the database and of the keys beside it from
// another node (the first of -raft-peers, or the node it joins) before its log starts, so that
// every node starts from the same file; a node whose keys differ from the cluster's refuses to
// start.
func Start(ctx context.Context, cfg Config) (*Node, error) {
	if cfg.Logger == nil {
		cfg.Logger = slog.Default()
	}
	if cfg.Heartbeat == 0 {
		cfg.Heartbeat = time.Second
	}
	n := &Node{cfg: cfg, log: cfg.Logger, ready: make(chan struct{}), stopObserve: make(chan struct{})}
	n.self = cfg.Bind
	for _, p := range cfg.Peers {
		if p.ID == cfg.ID {
			n.self = p.Addr
		}
	}
	if len(cfg.Peers) > 0 && !slices.ContainsFunc(cfg.Peers, func(p Peer) bool { return p.ID == cfg.ID }) {
		return nil, fmt.Errorf("-raft-peers must list this node (-node-id %s) too", cfg.ID)
	}
	dir := filepath.Join(cfg.DataDir, "raft")
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return nil, err
	}
	logs, err := raftboltdb.New(raftboltdb.Options{Path: filepath.Join(dir, "raft.db"),
		BoltOptions: &bolt.Options{Timeout: time.Second, FreelistType: bolt.FreelistMapType}})
	if err != nil {
		return nil, fmt.Errorf("raft log %s: %w", filepath.Join(dir, "raft.db"), err)
	}
	n.logs = logs
	hlog := hclog.New(&hclog.LoggerOptions{Name: "raft", Level: hclog.Warn, Output: os.Stderr})
	snaps, err := raft.NewFileSnapshotStoreWithLogger(dir, 2, hlog)
	if err != nil {
		logs.Close()
		return nil, err
	}
	n.mux, err = listenMux(cfg.Bind, cfg.Key)
	if err != nil {
		logs.Close()
		return nil, fmt.Errorf("listen on -raft-addr %s: %w", cfg.Bind, err)
	}
	n.client = peerClient(cfg.Key, 30*time.Second)
	n.long = peerClient(cfg.Key, 0)
	n.proxy = newForwarder(n)
	n.peerSrv = &http.Server{Handler: n.peerHandler(), ReadHeaderTimeout: 10 * time.Second}
	go n.peerSrv.Serve(n.mux.http)

	fail := func(err error) (*Node, error) {
		n.closeTransport()
		logs.Close()
		return nil, err
	}
	existing, err := raft.HasExistingState(logs, logs, snaps)
	if err != nil {
		return fail(err)
	}
	if !existing {
		if err := n.firstStart(ctx); err != nil {
			return fail(err)
		}
	}
	addr, err := net.ResolveTCPAddr("tcp", n.self)
	if err != nil {
		return fail(fmt.Errorf("the address others dial, %s: %w", n.self, err))
	}
	n.trans = raft.NewNetworkTransportWithConfig(&raft.NetworkTransportConfig{
		Stream:  &raftStream{chanListener: n.mux.raft, key: cfg.Key, advertise: addr},
		MaxPool: 3, Timeout: 10 * time.Second, Logger: hlog,
	})
	rc := raft.DefaultConfig()
	rc.LocalID = raft.ServerID(cfg.ID)
	rc.Logger = hlog
	rc.HeartbeatTimeout = cfg.Heartbeat
	rc.ElectionTimeout = cfg.Heartbeat
	rc.LeaderLeaseTimeout = cfg.Heartbeat / 2
	rc.MaxAppendEntries = 64 // an import's entry holds megabytes: a catching-up batch stays bounded
	rc.BatchApplyCh = true
	rc.SnapshotThreshold = 16384
	rc.TrailingLogs = 16384
	// The file holds every entry it applied (the applied index is written with them), so a
	// restart resumes from it; only a file behind the newest snapshot (restored from an old
	// backup by hand) takes the snapshot again.
	rc.NoSnapshotRestoreOnStart = !fileBehindSnapshot(cfg.Store, snaps)
	logCache, err := raft.NewLogCache(64, logs)
	if err != nil {
		return fail(err)
	}
	n.raft, err = raft.NewRaft(rc, &fsm{s: cfg.Store, log: cfg.Logger}, logCache, logs, snaps, n.trans)
	if err != nil {
		return fail(fmt.Errorf("raft: %w", err))
	}
	cfg.Store.Replicate(n.lead, n.commit)
	n.observed.Go(n.observe)
	n.observed.Go(func() { n.relayPresence(presenceEvery) })
	if !existing && len(cfg.Peers) > 0 {
		servers := make([]raft.Server, len(cfg.Peers))
		for i, p := range cfg.Peers {
			servers[i] = raft.Server{ID: raft.ServerID(p.ID), Address: raft.ServerAddress(p.Addr)}
		}
		if err := n.raft.BootstrapCluster(raft.Configuration{Servers: servers}).Error(); err != nil && !errors.Is(err, raft.ErrCantBootstrap) {
			n.Close()
			return nil, fmt.Errorf("raft bootstrap: %w", err)
		}
	}
	return n, nil
}

// fileBehindSnapshot reports whether the database holds fewer entries than raft's newest
// snapshot.
func fileBehindSnapshot(s *store.Store, snaps raft.SnapshotStore) bool {
	list, err := snaps.List()
	if err != nil || len(list) == 0 {
		return false
	}
	return s.AppliedIndex() < list[0].Index
}

// commit hands a write set to the log and waits until it is committed and applied here
// (store.Replicate).
func (n *Node) commit(entry []byte) error {
	f := n.raft.Apply(entry, applyTimeout)
	if err := f.Error(); err != nil {
		if errors.Is(err, raft.ErrNotLeader) || errors.Is(err, raft.ErrEnqueueTimeout) {
			return fmt.Errorf("%w: %v", store.ErrUnavailable, err) // never in the log
		}
		return fmt.Errorf("%w: %v", store.ErrUncertain, err)
	}
	if err, ok := f.Response().(error); ok && err != nil {
		return err
	}
	return nil
}

// observe follows the leadership: it counts the changes and tells onLeader. Raft's leader
// steps down once it has not heard from a majority for the lease (half the heartbeat timeout),
// before the others' election can begin, so the workers it stops stop before another leader
// starts its own.
func (n *Node) observe() {
	ch := n.raft.LeaderCh()
	obs := make(chan raft.Observation, 16)
	o := raft.NewObserver(obs, false, func(o *raft.Observation) bool {
		_, ok := o.Data.(raft.LeaderObservation)
		return ok
	})
	n.raft.RegisterObserver(o)
	defer n.raft.DeregisterObserver(o)
	for {
		select {
		case <-n.stopObserve:
			return
		case <-obs:
			n.leaderChanges.Add(1)
		case leader := <-ch:
			if leader {
				n.log.Info("cluster: this node is the leader", "node", n.cfg.ID)
				n.startLeading()
			} else {
				n.leading.Store(nil)
				n.log.Info("cluster: this node is no longer the leader", "node", n.cfg.ID)
			}
			n.leadMu.Lock()
			if n.onLeader != nil {
				n.onLeader(leader)
			}
			n.leadMu.Unlock()
		}
	}
}

// leadTerm is a time as the leader: ready closes once the node's file holds every entry its
// log held when it became the leader (raft's barrier).
type leadTerm struct{ ready chan struct{} }

// startLeading opens a time as the leader; writes wait for its barrier.
func (n *Node) startLeading() {
	lt := &leadTerm{ready: make(chan struct{})}
	n.leading.Store(lt)
	go func() {
		for n.leading.Load() == lt {
			err := n.raft.Barrier(applyTimeout).Error()
			if err == nil {
				close(lt.ready)
				return
			}
			n.log.Warn("cluster: the new leader's barrier failed", "err", err)
		}
	}()
}

// lead returns once this node may run a write: it leads, and its file holds every entry of the
// log before the write's (store.Replicate). A follower refuses at once.
func (n *Node) lead() error {
	lt := n.leading.Load()
	if lt == nil {
		return fmt.Errorf("%w: this node does not lead", store.ErrUnavailable)
	}
	t := time.NewTimer(applyTimeout)
	defer t.Stop()
	select {
	case <-lt.ready:
		if n.leading.Load() != lt {
			return fmt.Errorf("%w: this node no longer leads", store.ErrUnavailable)
		}
		return nil
	case <-t.C:
		return fmt.Errorf("%w: the new leader is still applying the log", store.ErrUnavailable)
	}
}

// Lead returns once this node leads and its file holds every entry its log held when it was
// elected (as lead, waiting for the barrier up to applyTimeout): only then may it answer reads,
// since a read before could miss a write the last leader acknowledged. A follower is refused
// at once; the error wraps store.ErrUnavailable.
func (n *Node) Lead() error { return n.lead() }

// OnLeader sets fn to be called with true when the node becomes the leader and with false when
// it stops being one, and calls it at once with whether it leads now. Calls never overlap, and
// fn must bear being told the same twice.
func (n *Node) OnLeader(fn func(leader bool)) {
	n.leadMu.Lock()
	defer n.leadMu.Unlock()
	n.onLeader = fn
	if fn != nil {
		fn(n.IsLeader())
	}
}

// KeysReady tells the node that the keys beside the database are in place (the server made the
// ones it had not): other nodes starting for the first time may copy them now.
func (n *Node) KeysReady() { n.readyMu.Do(func() { close(n.ready) }) }

// SetApp sets what serves the requests other nodes forward.
func (n *Node) SetApp(app PeerApp) { n.app.Store(&app) }

// ID is the node's id.
func (n *Node) ID() string { return n.cfg.ID }

// Role is the node's raft state as §26 names it: leader, follower or candidate.
func (n *Node) Role() string {
	switch n.raft.State() {
	case raft.Leader:
		return "leader"
	case raft.Candidate:
		return "candidate"
	case raft.Follower:
		return "follower"
	}
	return "shutdown"
}

// IsLeader reports whether this node is the leader.
func (n *Node) IsLeader() bool { return n.raft.State() == raft.Leader }

// Ready reports whether the node has caught up: it knows a leader and has applied every entry
// it knows to be committed.
func (n *Node) Ready() bool {
	if _, id := n.raft.LeaderWithID(); id == "" {
		return false
	}
	if n.raft.State() != raft.Leader && time.Since(n.raft.LastContact()) > 3*n.cfg.Heartbeat {
		return false
	}
	return n.raft.AppliedIndex() >= n.raft.CommitIndex()
}

// Close stops the node: the observer, raft (the leader hands no leadership over: the others
// elect one), the peer channel and the log.
func (n *Node) Close() error {
	close(n.stopObserve)
	n.observed.Wait()
	var err error
	if n.raft != nil {
		err = n.raft.Shutdown().Error()
	}
	n.closeTransport()
	if cerr := n.logs.Close(); err == nil {
		err = cerr
	}
	return err
}

func (n *Node) closeTransport() {
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
	defer cancel()
	_ = n.peerSrv.Shutdown(ctx)
	if n.trans != nil {
		_ = n.trans.Close()
	}
	_ = n.mux.Close()
}
