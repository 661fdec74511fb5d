package cluster

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"strconv"
	"sync"
	"time"
)

// A node that starts for the first time (no raft state yet) starts from another node's
// database and keys, so that every node's file is the same before the first entry:
//   - with -raft-peers, every node but the first of the list copies the first's;
//   - with -join, the node asks the one it names to add it: that node's leader hands it the keys
//     and a copy (welcome) before adding it as a voter;
//   - with neither, it waits for `switchboard cluster add`, which does the same.
// A node whose own keys differ from the cluster's refuses: its sessions and pushes would not
// work through the others.

// ErrKeysDiffer is returned when this node's keys differ from the cluster's.
var ErrKeysDiffer = errors.New("cluster: this node's keys beside the database differ from the cluster's")

// welcome is what the leader sends a node it adds: the keys, and the peer address to copy the
// database from.
type welcome struct {
	Keys map[string][]byte `json:"keys"`
	From string            `json:"from"`
}

// joining is a first start's wait for welcome.
type joining struct {
	mu       sync.Mutex
	waiting  bool
	welcomed chan struct{}
}

func (n *Node) firstStart(ctx context.Context) error {
	switch {
	case len(n.cfg.Peers) > 0:
		first := n.cfg.Peers[0]
		if first.ID == n.cfg.ID {
			return nil // the others copy this node's file and keys
		}
		n.log.Info("cluster: first start: copying the database and keys of the first node", "from", first.ID, "addr", first.Addr)
		return retry(ctx, func() error { return n.copyFrom(ctx, first.Addr) })
	case n.cfg.Join != "":
		n.startWaiting()
		n.log.Info("cluster: first start: asking to join", "node", n.cfg.Join)
		err := retry(ctx, func() error {
			var answer map[string]string
			return n.callLong(ctx, n.cfg.Join, http.MethodPost, "/cluster/add", membership{ID: n.cfg.ID, Addr: n.self}, &answer)
		})
		if err != nil {
			return err
		}
		return n.waitWelcome(ctx)
	default:
		n.startWaiting()
		n.log.Info("cluster: first start: waiting to be added (switchboard cluster add)", "node", n.cfg.ID, "addr", n.self)
		return n.waitWelcome(ctx)
	}
}

func (n *Node) startWaiting() {
	n.join.mu.Lock()
	n.join.waiting = true
	n.join.welcomed = make(chan struct{})
	n.join.mu.Unlock()
}

func (n *Node) waitWelcome(ctx context.Context) error {
	select {
	case <-n.join.welcomed:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}

// retry runs fn until it succeeds, fails for good (keys that differ, a refusal), or ctx ends:
// at a cluster's first start the other nodes may not listen yet.
func retry(ctx context.Context, fn func() error) error {
	wait := 200 * time.Millisecond
	for {
		err := fn()
		var pe *peerError
		switch {
		case err == nil:
			return nil
		case errors.Is(err, ErrKeysDiffer):
			return err
		case errors.As(err, &pe) && pe.status == http.StatusConflict:
			return fmt.Errorf("%w: %s", ErrKeysDiffer, pe.msg)
		case errors.As(err, &pe) && pe.status == http.StatusBadRequest:
			return err
		}
		select {
		case <-ctx.Done():
			return fmt.Errorf("%w (last: %v)", ctx.Err(), err)
		case <-time.After(wait):
		}
		wait = min(2*wait, 2*time.Second)
	}
}

// handleWelcome takes the keys and a copy of the database from the node adding this one. A
// node already in the cluster only checks that its keys are the cluster's.
func (n *Node) handleWelcome(w http.ResponseWriter, r *http.Request) {
	var wl welcome
	if err := json.NewDecoder(io.LimitReader(r.Body, 1<<20)).Decode(&wl); err != nil {
		writeErr(w, http.StatusBadRequest, "want {\"keys\", \"from\"}")
		return
	}
	n.join.mu.Lock()
	defer n.join.mu.Unlock()
	if err := n.takeKeys(wl.Keys); err != nil {
		writeErr(w, http.StatusConflict, "%v", err)
		return
	}
	if !n.join.waiting {
		writeJSON(w, http.StatusOK, map[string]string{"status": "already a member"})
		return
	}
	if err := n.copyDatabase(r.Context(), wl.From); err != nil {
		writeErr(w, http.StatusBadGateway, "copy the database from %s: %v", wl.From, err)
		return
	}
	n.join.waiting = false
	close(n.join.welcomed)
	writeJSON(w, http.StatusOK, map[string]string{"status": "welcomed"})
}

// copyFrom takes the keys and a copy of the database from the node at addr.
func (n *Node) copyFrom(ctx context.Context, addr string) error {
	var keys map[string][]byte
	if err := n.call(ctx, addr, http.MethodGet, "/cluster/keys", nil, &keys); err != nil {
		return err
	}
	if err := n.takeKeys(keys); err != nil {
		return err
	}
	return n.copyDatabase(ctx, addr)
}

// copyDatabase replaces this node's database with the copy the node at addr sends.
func (n *Node) copyDatabase(ctx context.Context, addr string) error {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, "http://"+addr+"/cluster/copy", nil)
	if err != nil {
		return err
	}
	resp, err := n.long.Do(req)
	if err != nil {
		return err
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		msg, _ := io.ReadAll(io.LimitReader(resp.Body, 1<<12))
		return &peerError{status: resp.StatusCode, msg: string(bytes.TrimSpace(msg))}
	}
	want, _ := strconv.ParseInt(resp.Header.Get("Content-Length"), 10, 64)
	cr := &countReader{r: resp.Body}
	if err := n.cfg.Store.Restore(cr); err != nil {
		return err
	}
	if want > 0 && cr.n != want {
		return fmt.Errorf("the copy was cut off: %d of %d bytes", cr.n, want)
	}
	n.log.Info("cluster: database copied", "from", addr, "bytes", cr.n, "applied", n.cfg.Store.AppliedIndex())
	return nil
}

type countReader struct {
	r io.Reader
	n int64
}

func (c *countReader) Read(p []byte) (int, error) {
	k, err := c.r.Read(p)
	c.n += int64(k)
	return k, err
}

// handleCopy streams a consistent copy of the database, once this node's keys are in place.
func (n *Node) handleCopy(w http.ResponseWriter, r *http.Request) {
	if !n.waitReady(r.Context()) {
		return
	}
	sn, err := n.cfg.Store.Snapshot()
	if err != nil {
		writeErr(w, http.StatusInternalServerError, "copy: %v", err)
		return
	}
	defer sn.Close()
	w.Header().Set("Content-Type", "application/octet-stream")
	w.Header().Set("Content-Length", strconv.FormatInt(sn.Size(), 10))
	_, _ = sn.WriteTo(w)
}

// handleKeys answers the keys beside the database, once they are in place.
func (n *Node) handleKeys(w http.ResponseWriter, r *http.Request) {
	if !n.waitReady(r.Context()) {
		return
	}
	keys, err := n.readKeys()
	if err != nil {
		writeErr(w, http.StatusInternalServerError, "keys: %v", err)
		return
	}
	writeJSON(w, http.StatusOK, keys)
}

// waitReady waits for KeysReady; false (answered 503) when the request ends first.
func (n *Node) waitReady(ctx context.Context) bool {
	select {
	case <-n.ready:
		return true
	case <-ctx.Done():
		return false
	}
}

// readKeys reads the key files this node has.
func (n *Node) readKeys() (map[string][]byte, error) {
	out := map[string][]byte{}
	for _, name := range n.cfg.KeyFiles {
		data, err := os.ReadFile(filepath.Join(n.cfg.DataDir, name))
		if errors.Is(err, os.ErrNotExist) {
			continue
		}
		if err != nil {
			return nil, err
		}
		out[name] = data
	}
	return out, nil
}

// takeKeys writes the cluster's keys this node lacks, and refuses when one it has differs
// from the cluster's or the cluster lacks one it has.
func (n *Node) takeKeys(keys map[string][]byte) error {
	mine, err := n.readKeys()
	if err != nil {
		return err
	}
	for _, name := range n.cfg.KeyFiles {
		have, ok := mine[name]
		theirs, tok := keys[name]
		if ok && (!tok || !bytes.Equal(have, theirs)) {
			return fmt.Errorf("%w: %s (remove this node's key files to take the cluster's, or copy them from another node)", ErrKeysDiffer, name)
		}
	}
	for _, name := range n.cfg.KeyFiles {
		if theirs, ok := keys[name]; ok {
			if _, have := mine[name]; !have {
				if err := os.WriteFile(filepath.Join(n.cfg.DataDir, name), theirs, 0o600); err != nil {
					return err
				}
			}
		}
	}
	return nil
}
