package cli

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/cookiejar"
	"net/url"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"switchboard/store"
)

// The workload of the failover test: API sends, inbound sandbox texts and UI comments, each
// round-robin over the running nodes, recording what the cluster acknowledged.
type clusterLoad struct {
	c     *testCluster
	conv  string // the conversation the UI comments go to
	acks  acks
	stop  chan struct{}
	wg    sync.WaitGroup
	seq   atomic.Int64
	ackAt struct {
		sync.Mutex
		times []time.Time
	}
}

// pick is the k-th running node, round-robin (nil when none runs).
func (l *clusterLoad) pick(k int) *testNode {
	nodes := l.c.running()
	if len(nodes) == 0 {
		return nil
	}
	return nodes[k%len(nodes)]
}

func (l *clusterLoad) acked(kind, v string) {
	l.acks.add(kind, v)
	l.ackAt.Lock()
	l.ackAt.times = append(l.ackAt.times, time.Now())
	l.ackAt.Unlock()
}

// firstAckAfter is when the cluster first acknowledged a write after t.
func (l *clusterLoad) firstAckAfter(t time.Time) (time.Time, bool) {
	l.ackAt.Lock()
	defer l.ackAt.Unlock()
	for _, at := range l.ackAt.times {
		if at.After(t) {
			return at, true
		}
	}
	return time.Time{}, false
}

// run starts workers goroutines calling fn with a fresh sequence number until stop.
func (l *clusterLoad) run(workers int, fn func(k int)) {
	for w := range workers {
		l.wg.Go(func() {
			for k := w; ; k++ {
				select {
				case <-l.stop:
					return
				default:
				}
				if l.pick(k) == nil {
					return
				}
				fn(k)
			}
		})
	}
}

var loadClient = &http.Client{Timeout: 10 * time.Second}

// apiSend sends a text through node n; it reports the message's id when acknowledged.
func (l *clusterLoad) apiSend(k int) {
	n := l.pick(k)
	to := fmt.Sprintf("+1415556%04d", l.seq.Add(1)%10000)
	body, _ := json.Marshal(map[string]any{"developerProvider": "zapier", "id": l.c.f.ws, "from": "+14155550100", "to": to, "text": "api " + to})
	req, _ := http.NewRequest(http.MethodPost, n.base()+"/v1/integrations/developer/zapier/send-message-action", bytes.NewReader(body))
	req.Header.Set("Authorization", "Bearer "+l.c.f.token)
	req.Header.Set("Content-Type", "application/json")
	res, err := loadClient.Do(req)
	if err != nil {
		return
	}
	defer res.Body.Close()
	var m struct{ ID string }
	if res.StatusCode >= 200 && res.StatusCode < 300 && json.NewDecoder(res.Body).Decode(&m) == nil && m.ID != "" {
		l.acked("api", m.ID)
	}
}

// inbound posts a text from a new number to the sandbox callback of node n.
func (l *clusterLoad) inbound(k int) {
	n := l.pick(k)
	from := fmt.Sprintf("+1303555%04d", l.seq.Add(1)%10000)
	form := url.Values{"From": {from}, "To": {"+14155550100"}, "Body": {"inbound " + from}, "MessageSid": {"SMcluster" + from[1:]}}
	req, _ := http.NewRequest(http.MethodPost, n.base()+"/carrier/sandbox/sms", strings.NewReader(form.Encode()))
	req.Header.Set("Authorization", "Bearer "+l.c.f.token)
	req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	res, err := loadClient.Do(req)
	if err != nil {
		return
	}
	io.Copy(io.Discard, res.Body)
	res.Body.Close()
	if res.StatusCode == http.StatusOK {
		l.acked("inbound", from)
	}
}

// comment adds a comment in the inbox as a signed-in person would, through node n.
func (l *clusterLoad) comment(ui *http.Client) func(k int) {
	return func(k int) {
		n := l.pick(k)
		text := fmt.Sprintf("comment %d", l.seq.Add(1))
		res, err := ui.PostForm(n.base()+"/inbox/"+l.conv+"/comment", url.Values{"text": {text}})
		if err != nil {
			return
		}
		io.Copy(io.Discard, res.Body)
		res.Body.Close()
		if res.StatusCode == http.StatusSeeOther || res.StatusCode == http.StatusOK {
			l.acked("comment", text)
		}
	}
}

// TestClusterSurvivesTheLeaderKilled: three nodes take API sends, inbound sandbox texts and UI
// comments through all of them; the leader is killed (SIGKILL) under that load. A new leader
// answers within 5 s, every write the cluster acknowledged is in every node's file, the killed
// node rejoins and catches up, and the three files then hold the same buckets, keys and values.
func TestClusterSurvivesTheLeaderKilled(t *testing.T) {
	c := newTestCluster(t, nil)
	c.startAll()
	leader := c.waitLeader(15 * time.Second)
	// The admin command works through any node once the cluster runs: a workspace made through
	// one follower is listed through the other.
	var followers []*testNode
	for _, n := range c.nodes {
		if n != leader {
			followers = append(followers, n)
		}
	}
	made := ok(t, "admin", "create-workspace", "-data", followers[0].data, "--name", "Through a follower")
	if r := sb(t, nil, "admin", "list-workspaces", "-data", followers[1].data); r.code != 0 || !strings.Contains(r.stdout, made) {
		t.Errorf("list-workspaces through the other follower: exit %d, %q; want %s listed", r.code, r.stdout, made)
	}
	var conv struct{ ID string }
	apiOK(t, leader.base(), c.f.token, "create-conversation-action",
		map[string]any{"developerProvider": "zapier", "id": c.f.ws, "from": "+14155550100", "to": "+14155557000"}, http.StatusCreated, &conv)
	// Signed in through a follower: the session works on every node (the same session.key).
	follower := c.nodes[0]
	if follower == leader {
		follower = c.nodes[1]
	}
	jar, _ := cookiejar.New(nil)
	ui := &http.Client{Jar: jar, Timeout: 10 * time.Second, CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
	res, err := ui.PostForm(follower.base()+"/login", url.Values{"email": {"ana@example.com"}, "password": {"correct horse"}})
	if err != nil || res.StatusCode != http.StatusSeeOther {
		t.Fatalf("sign in through a follower: %v %v", res, err)
	}
	res.Body.Close()

	l := &clusterLoad{c: c, conv: conv.ID, stop: make(chan struct{})}
	stopLoad := sync.OnceFunc(func() { close(l.stop); l.wg.Wait() })
	t.Cleanup(stopLoad)
	t.Cleanup(func() {
		if t.Failed() {
			for _, n := range c.nodes {
				if n.srv != nil {
					t.Logf("%s stderr:\n%s", n.id, n.srv.stderr)
				}
			}
		}
	})
	l.run(4, l.apiSend)
	l.run(2, l.inbound)
	l.run(2, l.comment(ui))
	time.Sleep(1500 * time.Millisecond) // load before the kill
	if err := leader.srv.cmd.Process.Kill(); err != nil {
		t.Fatal(err)
	}
	<-leader.srv.done
	killedAt := time.Now()
	newLeader := c.waitLeader(5 * time.Second)
	if newLeader == leader {
		t.Fatal("the killed node still leads")
	}
	deadline := killedAt.Add(8 * time.Second)
	for {
		if at, ok := l.firstAckAfter(killedAt); ok {
			if d := at.Sub(killedAt); d > 5*time.Second {
				t.Errorf("the first write after the kill was acknowledged %s after it; want within 5 s", d.Round(time.Millisecond))
			} else {
				t.Logf("failover: first write acknowledged %s after the kill", d.Round(time.Millisecond))
			}
			break
		}
		if time.Now().After(deadline) {
			t.Fatal("no write acknowledged within 8 s of the kill")
		}
		time.Sleep(10 * time.Millisecond)
	}
	time.Sleep(1500 * time.Millisecond) // load after the failover
	stopLoad()
	for _, kind := range []string{"api", "inbound", "comment"} {
		if len(l.acks.get(kind)) == 0 {
			t.Fatalf("no %s write was acknowledged", kind)
		}
	}

	// The killed node restarts from its own file and log and catches up.
	var killed int
	for i, n := range c.nodes {
		if n == leader {
			killed = i
		}
	}
	c.start(killed)
	ids := []string{c.nodes[0].id, c.nodes[1].id, c.nodes[2].id}
	c.waitCaughtUp(newLeader, ids, 30*time.Second)
	// Stop the followers, then the leader: nothing commits after the last follower stops.
	for _, n := range c.nodes {
		if n != newLeader {
			n.srv.stop(t)
		}
	}
	newLeader.srv.stop(t)

	for _, n := range c.nodes {
		s, err := store.Open(dbPath(n.data), store.Options{ReadOnly: true})
		if err != nil {
			t.Fatal(err)
		}
		missing := 0
		for _, id := range l.acks.get("api") {
			if _, err := s.Message(c.f.ws, id); err != nil {
				missing++
			}
		}
		for _, from := range l.acks.get("inbound") {
			if ms, _, err := s.ContactMessages(c.f.ws, from, "", 5); err != nil || len(ms) == 0 {
				missing++
			}
		}
		comments, err := s.ConversationComments(c.f.ws, conv.ID)
		if err != nil {
			t.Fatal(err)
		}
		have := map[string]bool{}
		for _, cm := range comments {
			have[cm.Text] = true
		}
		for _, text := range l.acks.get("comment") {
			if !have[text] {
				missing++
			}
		}
		s.Close()
		if missing > 0 {
			t.Errorf("%s lacks %d acknowledged writes (of %d API sends, %d inbound texts, %d comments)", n.id, missing,
				len(l.acks.get("api")), len(l.acks.get("inbound")), len(l.acks.get("comment")))
		}
	}
	sameData(t, c.nodes...)
	sameKeys(t, c.nodes...)
	for _, n := range c.nodes {
		if strings.Contains(n.srv.stderr.String(), "secret key does not open") {
			t.Errorf("%s's secret key does not open the cluster's secrets:\n%s", n.id, n.srv.stderr)
		}
	}

	t.Logf("acknowledged: %d API sends, %d inbound texts, %d UI comments", len(l.acks.get("api")), len(l.acks.get("inbound")), len(l.acks.get("comment")))
}
