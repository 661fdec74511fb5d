package cli

import (
	"bytes"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"net/http"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	bolt "go.etcd.io/bbolt"

	"switchboard/internal/testutil"
)

// testCluster is three real `switchboard serve` processes on loopback keeping one database:
// node 0 starts from the fixture's data directory, the others copy it at their first start.
type testCluster struct {
	t     testing.TB
	f     fixture
	key   string // the cluster key file
	nodes []*testNode
}

type testNode struct {
	id, raft, http, data string
	peers                string // its -raft-peers
	srv                  *server
}

func (n *testNode) base() string { return "http://" + n.http }

// newTestCluster makes three nodes; peers gives node i's -raft-peers from the nodes (nil: the
// nodes' own addresses, every node dialling the others directly).
func newTestCluster(t testing.TB, peers func(c *testCluster, i int) string) *testCluster {
	t.Helper()
	testutil.SkipIfShort(t, "the three-node cluster test")
	c := &testCluster{t: t, f: newFixture(t)}
	raw := make([]byte, 32)
	_, _ = rand.Read(raw)
	c.key = filepath.Join(t.TempDir(), "cluster.key")
	if err := os.WriteFile(c.key, []byte(hex.EncodeToString(raw)+"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	for i := range 3 {
		n := &testNode{id: fmt.Sprintf("n%d", i+1), raft: "127.0.0.1:" + testutil.FreePort(t), http: "127.0.0.1:" + testutil.FreePort(t),
			data: filepath.Join(t.TempDir(), fmt.Sprintf("n%d", i+1))}
		if i == 0 {
			n.data = c.f.data
		}
		c.nodes = append(c.nodes, n)
	}
	for i, n := range c.nodes {
		if peers != nil {
			n.peers = peers(c, i)
		} else {
			var list []string
			for _, m := range c.nodes {
				list = append(list, m.id+"="+m.raft)
			}
			n.peers = strings.Join(list, ",")
		}
	}
	return c
}

// start starts node i and waits for its /healthz.
func (c *testCluster) start(i int) {
	c.t.Helper()
	n := c.nodes[i]
	n.srv = startServer(c.t, n.http, nil, "-data", n.data, "-addr", n.http, "-node-id", n.id,
		"-raft-addr", n.raft, "-raft-peers", n.peers, "-cluster-key-file", c.key, "-log-requests=false",
		"-rate-limit", "0", "-base-url", "http://lb.example")
}

// startAll starts the nodes in order (the first must serve before the others can copy it).
func (c *testCluster) startAll() {
	for i := range c.nodes {
		c.start(i)
	}
}

// running is the nodes whose process runs.
func (c *testCluster) running() []*testNode {
	var out []*testNode
	for _, n := range c.nodes {
		if n.srv == nil {
			continue
		}
		select {
		case <-n.srv.done:
		default:
			out = append(out, n)
		}
	}
	return out
}

// role asks a node's /healthz for its role ("" when it does not answer).
func role(n *testNode) string {
	cl := http.Client{Timeout: time.Second}
	res, err := cl.Get(n.base() + "/healthz")
	if err != nil {
		return ""
	}
	defer res.Body.Close()
	var h struct{ Role string }
	_ = json.NewDecoder(res.Body).Decode(&h)
	return h.Role
}

// waitLeader waits for exactly one running node to say it leads, and returns it.
func (c *testCluster) waitLeader(within time.Duration) *testNode {
	c.t.Helper()
	deadline := time.Now().Add(within)
	for {
		var leaders []*testNode
		for _, n := range c.running() {
			if role(n) == "leader" {
				leaders = append(leaders, n)
			}
		}
		if len(leaders) == 1 {
			return leaders[0]
		}
		if time.Now().After(deadline) {
			c.t.Fatalf("no single leader within %s (%d say they lead)", within, len(leaders))
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// statusLine is a line of `switchboard cluster status`.
type statusLine struct {
	id, addr, role string
	applied        uint64
}

func (c *testCluster) status(via *testNode) []statusLine {
	c.t.Helper()
	r := sb(c.t, nil, "cluster", "status", "-addr", via.raft, "-cluster-key-file", c.key)
	if r.code != 0 {
		c.t.Fatalf("cluster status: exit %d: %s", r.code, r.stderr)
	}
	var out []statusLine
	for _, line := range strings.Split(strings.TrimSpace(r.stdout), "\n") {
		f := strings.Split(line, "\t")
		if len(f) != 4 {
			c.t.Fatalf("cluster status line %q: want id, address, role, applied index", line)
		}
		applied, _ := strconv.ParseUint(f[3], 10, 64)
		out = append(out, statusLine{id: f[0], addr: f[1], role: f[2], applied: applied})
	}
	return out
}

// waitCaughtUp waits until every node of want reports the same applied index, twice in a row
// 300 ms apart (no write in between), within the time given.
func (c *testCluster) waitCaughtUp(via *testNode, want []string, within time.Duration) uint64 {
	c.t.Helper()
	deadline := time.Now().Add(within)
	var last uint64
	for {
		lines := c.status(via)
		idx, same := uint64(0), true
		seen := 0
		for _, l := range lines {
			for _, id := range want {
				if l.id != id {
					continue
				}
				if seen == 0 {
					idx = l.applied
				}
				seen++
				same = same && l.applied == idx && l.role != "unreachable"
			}
		}
		if same && seen == len(want) && idx > 0 && idx == last {
			return idx
		}
		last = idx
		if !same {
			last = 0
		}
		if time.Now().After(deadline) {
			c.t.Fatalf("nodes %v did not catch up within %s: %+v", want, within, lines)
		}
		time.Sleep(300 * time.Millisecond)
	}
}

// dumpDB lists every bucket, key, value and sequence of the database file at path, nested
// buckets included, in order: two nodes hold the same data when their dumps are equal.
func dumpDB(t testing.TB, path string) []string {
	t.Helper()
	db, err := bolt.Open(path, 0o600, &bolt.Options{ReadOnly: true, Timeout: 5 * time.Second})
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	var out []string
	var walk func(prefix string, b *bolt.Bucket)
	walk = func(prefix string, b *bolt.Bucket) {
		out = append(out, fmt.Sprintf("%s seq=%d", prefix, b.Sequence()))
		_ = b.ForEach(func(k, v []byte) error {
			if v == nil {
				walk(fmt.Sprintf("%s/%x", prefix, k), b.Bucket(k))
				return nil
			}
			out = append(out, fmt.Sprintf("%s %x=%x", prefix, k, v))
			return nil
		})
	}
	_ = db.View(func(tx *bolt.Tx) error {
		return tx.ForEach(func(name []byte, b *bolt.Bucket) error {
			walk(string(name), b)
			return nil
		})
	})
	return out
}

// sameData fails unless the database files of the nodes hold the same buckets, keys and values.
func sameData(t testing.TB, nodes ...*testNode) {
	t.Helper()
	first := dumpDB(t, dbPath(nodes[0].data))
	for _, n := range nodes[1:] {
		other := dumpDB(t, dbPath(n.data))
		if len(first) != len(other) {
			t.Errorf("%s holds %d entries, %s %d", nodes[0].id, len(first), n.id, len(other))
		}
		for i := range min(len(first), len(other)) {
			if first[i] != other[i] {
				t.Errorf("%s and %s differ at entry %d:\n  %.300s\n  %.300s", nodes[0].id, n.id, i, first[i], other[i])
				break
			}
		}
	}
}

// sameKeys fails unless every key file a cluster shares (clusterKeyFiles) is on every node and
// the same on each: a session, a push, a carrier account or a sealed secret of one node opens on
// any other that leads.
func sameKeys(t testing.TB, nodes ...*testNode) {
	t.Helper()
	for _, name := range clusterKeyFiles {
		first, err := os.ReadFile(filepath.Join(nodes[0].data, name))
		if err != nil {
			t.Errorf("%s: %v", nodes[0].id, err)
			continue
		}
		for _, n := range nodes[1:] {
			other, err := os.ReadFile(filepath.Join(n.data, name))
			if err != nil || !bytes.Equal(first, other) {
				t.Errorf("%s's %s differs from %s's (%v)", n.id, name, nodes[0].id, err)
			}
		}
	}
}

// acks collects the writes the cluster acknowledged, by kind.
type acks struct {
	mu   sync.Mutex
	sets map[string][]string
}

func (a *acks) add(kind, v string) {
	a.mu.Lock()
	defer a.mu.Unlock()
	if a.sets == nil {
		a.sets = map[string][]string{}
	}
	a.sets[kind] = append(a.sets[kind], v)
}

func (a *acks) get(kind string) []string {
	a.mu.Lock()
	defer a.mu.Unlock()
	out := append([]string(nil), a.sets[kind]...)
	sort.Strings(out)
	return out
}
