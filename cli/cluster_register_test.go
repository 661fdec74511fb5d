package cli

import (
	"encoding/json"
	"fmt"
	"math"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/anishathalye/porcupine"
)

// The register of the linearizability test: one contact's "plan" property, written with
// create-or-update-contact and read with find-contact, through all three nodes.
type regInput struct {
	write bool
	value string
}

var registerModel = porcupine.Model{
	Init: func() any { return "v0" },
	Step: func(state, input, output any) (bool, any) {
		in := input.(regInput)
		if in.write {
			return true, in.value
		}
		return output.(string) == state.(string), state
	},
	DescribeOperation: func(input, output any) string {
		in := input.(regInput)
		if in.write {
			return "write " + in.value
		}
		return "read → " + output.(string)
	},
}

const registerPhone = "+14155559000"

// The outcomes of a write.
const (
	wrote      = iota
	notWritten // refused before anything was tried: a 503 saying nothing changed, a refused connection
	unknown    // a timeout, a broken connection, a 503 saying the change may have been made
)

// regWrite sets the register through node n.
func regWrite(c *testCluster, n *testNode, v string) int {
	code, body := apiCallNoFail(n.base(), c.f.token, "create-or-update-contact-action", map[string]any{
		"developerProvider": "zapier", "id": c.f.ws, "phone": registerPhone, "properties": map[string]any{"plan": v}})
	switch {
	case code == http.StatusOK || code == http.StatusCreated:
		return wrote
	case code == http.StatusServiceUnavailable && strings.Contains(string(body), "nothing was changed"),
		code == 0 && strings.Contains(string(body), "connection refused"):
		return notWritten
	}
	return unknown
}

// regRead reads the register through node n; ok is false when the read failed.
func regRead(c *testCluster, n *testNode) (string, bool) {
	code, body := apiCallNoFail(n.base(), c.f.token, "find-contact-action", map[string]any{
		"developerProvider": "zapier", "id": c.f.ws, "searchText": registerPhone})
	if code != http.StatusOK {
		return "", false
	}
	var found []struct {
		Phone      string
		Properties map[string]any
	}
	if json.Unmarshal(body, &found) != nil {
		return "", false
	}
	for _, ct := range found {
		if ct.Phone == registerPhone {
			v, _ := ct.Properties["plan"].(string)
			return v, true
		}
	}
	return "", false
}

// TestClusterRegisterIsLinearizable: clients on all three nodes write and read one register
// while the leader is killed; porcupine finds an order of the operations that explains every
// answer (a write whose answer was lost may have happened or not).
func TestClusterRegisterIsLinearizable(t *testing.T) {
	c := newTestCluster(t, nil)
	c.startAll()
	leader := c.waitLeader(15 * time.Second)
	if regWrite(c, leader, "v0") != wrote {
		t.Fatal("the register's first value was not written")
	}
	var (
		mu      sync.Mutex
		history []porcupine.Operation
		stop    atomic.Bool
		next    atomic.Int64
		clients atomic.Int64
		wg      sync.WaitGroup
	)
	record := func(op porcupine.Operation) {
		mu.Lock()
		history = append(history, op)
		mu.Unlock()
	}
	for i := range 3 {
		wg.Go(func() {
			id := int(clients.Add(1))
			for k := i; !stop.Load(); k++ {
				nodes := c.running()
				if len(nodes) == 0 {
					return
				}
				n := nodes[k%len(nodes)]
				call := time.Now().UnixNano()
				if k%2 == 0 {
					v := fmt.Sprintf("v%d", next.Add(1))
					outcome := regWrite(c, n, v)
					ret := time.Now().UnixNano()
					switch outcome {
					case notWritten:
						time.Sleep(20 * time.Millisecond) // while there is no leader
						continue
					case unknown:
						// It may take effect any time after its call: it stays open to the end
						// of the history, and the client goes on as a new one.
						ret = math.MaxInt64 - int64(next.Load())
					}
					record(porcupine.Operation{ClientId: id, Input: regInput{write: true, value: v}, Call: call, Output: "", Return: ret})
					if outcome == unknown {
						id = int(clients.Add(1))
					}
					continue
				}
				v, ok := regRead(c, n)
				if ok {
					record(porcupine.Operation{ClientId: id, Input: regInput{}, Call: call, Output: v, Return: time.Now().UnixNano()})
				}
			}
		})
	}
	time.Sleep(1500 * time.Millisecond)
	if err := leader.srv.cmd.Process.Kill(); err != nil {
		t.Fatal(err)
	}
	<-leader.srv.done
	c.waitLeader(5 * time.Second)
	time.Sleep(2 * time.Second)
	stop.Store(true)
	wg.Wait()
	reads := 0
	for _, op := range history {
		if !op.Input.(regInput).write {
			reads++
		}
	}
	if reads < 20 || len(history)-reads < 20 {
		t.Fatalf("too few operations to check: %d reads, %d writes", reads, len(history)-reads)
	}
	res, info := porcupine.CheckOperationsVerbose(registerModel, history, 60*time.Second)
	switch res {
	case porcupine.Ok:
		t.Logf("linearizable: %d reads and %d writes over a leader kill", reads, len(history)-reads)
	case porcupine.Illegal:
		out := filepath.Join(os.TempDir(), "switchboard-register.html")
		_ = porcupine.VisualizePath(registerModel, info, out)
		t.Fatalf("the register's history is not linearizable (%d operations; see %s)", len(history), out)
	default:
		t.Fatalf("porcupine could not decide within 60 s (%d operations)", len(history))
	}
}

// TestRegisterModelCatchesAStaleRead: the checker of the test above refuses a read that misses
// a write acknowledged before it began (so a pass there means something).
func TestRegisterModelCatchesAStaleRead(t *testing.T) {
	history := []porcupine.Operation{
		{ClientId: 0, Input: regInput{write: true, value: "v1"}, Call: 0, Output: "", Return: 10},
		{ClientId: 1, Input: regInput{}, Call: 20, Output: "v0", Return: 30},
	}
	if porcupine.CheckOperations(registerModel, history) {
		t.Fatal("a read of v0 after the write of v1 was acknowledged passed as linearizable")
	}
	history[1].Call = 5 // the read overlaps the write: v0 is a possible answer
	if !porcupine.CheckOperations(registerModel, history) {
		t.Fatal("a read overlapping the write was refused")
	}
}
