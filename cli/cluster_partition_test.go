package cli

import (
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"strings"
	"sync"
	"testing"
	"time"
)

// dropProxy is a TCP proxy between two nodes that can drop all traffic: while dropped it cuts
// the connections it carries and holds new ones open without passing a byte (a network that
// loses packets, not one that refuses).
type dropProxy struct {
	ln      net.Listener
	target  string
	mu      sync.Mutex
	dropped bool
	conns   map[net.Conn]bool
}

func newDropProxy(t *testing.T, target string) *dropProxy {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	p := &dropProxy{ln: ln, target: target, conns: map[net.Conn]bool{}}
	t.Cleanup(func() { ln.Close(); p.closeAll() })
	go p.serve()
	return p
}

func (p *dropProxy) addr() string { return p.ln.Addr().String() }

func (p *dropProxy) track(c net.Conn) bool {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.conns[c] = true
	return !p.dropped
}

func (p *dropProxy) serve() {
	for {
		c, err := p.ln.Accept()
		if err != nil {
			return
		}
		if !p.track(c) {
			continue // held open, never answered, until healed
		}
		go func() {
			up, err := net.DialTimeout("tcp", p.target, 2*time.Second)
			if err != nil || !p.track(up) {
				c.Close()
				if up != nil {
					up.Close()
				}
				return
			}
			go func() { io.Copy(up, c); up.Close() }()
			io.Copy(c, up)
			c.Close()
		}()
	}
}

func (p *dropProxy) closeAll() {
	p.mu.Lock()
	defer p.mu.Unlock()
	for c := range p.conns {
		c.Close()
	}
	p.conns = map[net.Conn]bool{}
}

// drop cuts the link; heal restores it (the held connections are closed so the nodes dial again).
func (p *dropProxy) drop() {
	p.mu.Lock()
	p.dropped = true
	p.mu.Unlock()
	p.closeAll()
}

func (p *dropProxy) heal() {
	p.mu.Lock()
	p.dropped = false
	p.mu.Unlock()
	p.closeAll()
}

// TestClusterPartitionMinorityRefusesWrites: the leader is cut off from the two other nodes by
// proxies that drop traffic. The two elect a leader of their own and take writes; the cut-off
// node refuses writes with 503 quickly (JSON on the API, the error page in the UI) and never
// says it leads while the other side does. Healed, it follows, and the three files agree.
func TestClusterPartitionMinorityRefusesWrites(t *testing.T) {
	// proxies[i][j] carries node i's connections to node j.
	var proxies [3][3]*dropProxy
	c := newTestCluster(t, func(c *testCluster, i int) string {
		var list []string
		for j, m := range c.nodes {
			addr := m.raft
			if j != i {
				if proxies[i][j] == nil {
					proxies[i][j] = newDropProxy(t, m.raft)
				}
				addr = proxies[i][j].addr()
			}
			list = append(list, m.id+"="+addr)
		}
		return strings.Join(list, ",")
	})
	c.startAll()
	leader := c.waitLeader(15 * time.Second)
	var cut int
	for i, n := range c.nodes {
		if n == leader {
			cut = i
		}
	}
	create := func(n *testNode, phone string) (int, []byte, time.Duration) {
		start := time.Now()
		code, body := apiCallNoFail(n.base(), c.f.token, "create-contact-action",
			map[string]any{"developerProvider": "zapier", "id": c.f.ws, "phone": phone, "firstName": "Part"})
		return code, body, time.Since(start)
	}
	if code, body, _ := create(leader, "+14155558000"); code != http.StatusCreated {
		t.Fatalf("before the partition: %d %s", code, body)
	}

	for j := range 3 {
		if j != cut {
			proxies[cut][j].drop()
			proxies[j][cut].drop()
		}
	}
	cutAt := time.Now()
	// Right after the cut the node still believes it leads: its write waits for a majority that
	// does not answer, until it steps down (its lease), and is refused then, not left hanging.
	if code, body, took := create(leader, "+14155558001"); code != http.StatusServiceUnavailable || took > 3*time.Second {
		t.Errorf("a write to the leader just cut off: %d %s after %s; want 503 within 3 s", code, body, took.Round(time.Millisecond))
	} else {
		t.Logf("a write to the leader just cut off: 503 after %s", took.Round(time.Millisecond))
	}
	// The majority elects a leader of its own.
	var majority []*testNode
	for i, n := range c.nodes {
		if i != cut {
			majority = append(majority, n)
		}
	}
	var newLeader *testNode
	for newLeader == nil {
		for _, n := range majority {
			if role(n) == "leader" {
				newLeader = n
			}
		}
		if time.Since(cutAt) > 10*time.Second {
			t.Fatal("the majority elected no leader within 10 s of the partition")
		}
		time.Sleep(20 * time.Millisecond)
	}
	t.Logf("the majority's leader %s answered %s after the partition", newLeader.id, time.Since(cutAt).Round(time.Millisecond))
	// Writes on both sides, a few rounds: the majority takes them, the minority refuses quickly.
	for k := range 5 {
		for _, n := range majority {
			code, body, _ := create(n, fmt.Sprintf("+141555581%d%d", k, len(n.id)+int(n.id[1])))
			if code != http.StatusCreated {
				t.Errorf("majority node %s: %d %s; want 201", n.id, code, body)
			}
		}
		code, body, took := create(leader, fmt.Sprintf("+14155558200%d", k))
		var e struct{ Error string }
		if code != http.StatusServiceUnavailable || json.Unmarshal(body, &e) != nil || e.Error == "" {
			t.Errorf("the cut-off node took a write: %d %s; want 503 with {\"error\"}", code, body)
		}
		if took > 3*time.Second {
			t.Errorf("the cut-off node answered a write in %s; want a quick 503", took.Round(time.Millisecond))
		}
		if r := role(leader); r == "leader" && time.Since(cutAt) > 2*time.Second {
			t.Errorf("split brain: the cut-off node still says it leads %s after the partition", time.Since(cutAt).Round(time.Millisecond))
		}
	}
	// A person gets the product's page, not a hang or a line of text.
	res, err := http.Get(leader.base() + "/inbox")
	if err != nil {
		t.Fatal(err)
	}
	page, _ := io.ReadAll(res.Body)
	res.Body.Close()
	if res.StatusCode != http.StatusServiceUnavailable || !strings.Contains(string(page), "unavailable for a moment") {
		t.Errorf("GET /inbox on the cut-off node: %d, want 503 with the error page; got %.300s", res.StatusCode, page)
	}

	for j := range 3 {
		if j != cut {
			proxies[cut][j].heal()
			proxies[j][cut].heal()
		}
	}
	ids := []string{c.nodes[0].id, c.nodes[1].id, c.nodes[2].id}
	c.waitCaughtUp(newLeader, ids, 30*time.Second)
	if r := role(leader); r != "follower" {
		t.Errorf("healed, the cut-off node is %q; want follower", r)
	}
	for _, n := range c.nodes {
		if n != newLeader {
			n.srv.stop(t)
		}
	}
	newLeader.srv.stop(t)
	sameData(t, c.nodes...)
}

// apiCallNoFail is apiCall for a request that may fail: a transport error is status 0.
func apiCallNoFail(base, token, action string, body any) (int, []byte) {
	data, _ := json.Marshal(body)
	req, _ := http.NewRequest(http.MethodPost, base+"/v1/integrations/developer/zapier/"+action, strings.NewReader(string(data)))
	req.Header.Set("Authorization", "Bearer "+token)
	req.Header.Set("Content-Type", "application/json")
	res, err := loadClient.Do(req)
	if err != nil {
		return 0, []byte(err.Error())
	}
	defer res.Body.Close()
	raw, _ := io.ReadAll(res.Body)
	return res.StatusCode, raw
}
