package web

import (
	"context"
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"strings"
	"sync"
	"testing"
)

// fakeCluster is a node of a cluster as web sees it: its role, and what it was asked to forward.
type fakeCluster struct {
	mu        sync.Mutex
	role      string
	noLeader  bool
	applying  bool // a new leader still applying its log
	forwarded []string
	admin     []bool
	app       func(w http.ResponseWriter, r *http.Request, client string, admin bool)
}

func (c *fakeCluster) Role() string   { return c.role }
func (c *fakeCluster) IsLeader() bool { return c.role == "leader" }
func (c *fakeCluster) Ready() bool    { return !c.noLeader }
func (c *fakeCluster) Lead() error {
	if c.role != "leader" || c.applying {
		return errors.New("not leading with the whole log applied")
	}
	return nil
}
func (c *fakeCluster) PeerAddr() string { return "10.0.0.1:7000" }
func (c *fakeCluster) ReadBarrier(context.Context) error {
	if c.noLeader {
		return errors.New("no leader")
	}
	return nil
}
func (c *fakeCluster) SetApp(app func(w http.ResponseWriter, r *http.Request, client string, admin bool)) {
	c.app = app
}
func (c *fakeCluster) Forward(w http.ResponseWriter, r *http.Request, admin bool, unavailable func(http.ResponseWriter, *http.Request, bool)) {
	c.mu.Lock()
	c.forwarded = append(c.forwarded, r.Method+" "+r.URL.Path)
	c.admin = append(c.admin, admin)
	c.mu.Unlock()
	if c.noLeader {
		unavailable(w, r, false)
		return
	}
	// Stands for the leader's answer (a status every route may answer).
	w.Header().Set("X-Leader", "answered")
	writeError(w, http.StatusNotFound, "the leader answered")
}

// TestFollowerForwardsAllButItsOwn: a follower passes the API, the UI and carrier callbacks to
// the leader and answers its own health, metrics and static files; /healthz names its role.
func TestFollowerForwardsAllButItsOwn(t *testing.T) {
	fc := &fakeCluster{role: "follower"}
	e := newEnv(t, Config{Cluster: fc})
	for _, path := range []string{"/healthz", "/readyz", "/metrics"} {
		res, err := http.Get(e.srv.URL + path)
		if err != nil {
			t.Fatal(err)
		}
		body, _ := io.ReadAll(res.Body)
		res.Body.Close()
		if res.StatusCode != http.StatusOK {
			t.Errorf("GET %s on a follower: %d %s; want it answered here", path, res.StatusCode, body)
		}
		if path == "/healthz" && !strings.Contains(string(body), `"role":"follower"`) {
			t.Errorf("/healthz: %s; want the role follower", body)
		}
	}
	if r := e.post(t, "create-contact-action", e.body(obj{"phone": "+14155550199", "firstName": "Fwd"})); !strings.Contains(r.String(), "the leader answered") {
		t.Errorf("an API call on a follower: %s; want the leader's answer", r)
	}
	for _, path := range []string{"/inbox", "/login"} {
		res, err := http.Get(e.srv.URL + path)
		if err != nil {
			t.Fatal(err)
		}
		res.Body.Close()
		if res.Header.Get("X-Leader") != "answered" {
			t.Errorf("GET %s on a follower: %d; want the leader's answer", path, res.StatusCode)
		}
	}
	if len(fc.forwarded) != 3 {
		t.Errorf("forwarded %v; want the API call and the two pages", fc.forwarded)
	}
	// A request another node forwarded here, now that this node does not lead, is refused,
	// not served from a file that may miss the leader's writes.
	rec := newRecorder()
	req, _ := http.NewRequest(http.MethodGet, "/inbox", nil)
	fc.app(rec, req, "203.0.113.9:5555", false)
	if rec.status != http.StatusServiceUnavailable {
		t.Errorf("a forwarded request on a node that no longer leads: %d; want 503", rec.status)
	}
}

// TestNoLeaderAnswers503: without a leader the API answers a JSON error, a person the product's
// page, both 503 at once; /readyz says not ready; a leader serves everything itself.
func TestNoLeaderAnswers503(t *testing.T) {
	fc := &fakeCluster{role: "candidate", noLeader: true}
	e := newEnv(t, Config{Cluster: fc})
	r := e.post(t, "create-contact-action", e.body(obj{"phone": "+14155550198", "firstName": "None"}))
	r.want(t, http.StatusServiceUnavailable)
	var body struct{ Error string }
	if json.Unmarshal(r.raw, &body) != nil || !strings.Contains(body.Error, "nothing was changed") {
		t.Errorf("API without a leader: %s; want {\"error\"} saying nothing changed", r.raw)
	}
	res, err := http.Get(e.srv.URL + "/inbox")
	if err != nil {
		t.Fatal(err)
	}
	page, _ := io.ReadAll(res.Body)
	res.Body.Close()
	if res.StatusCode != http.StatusServiceUnavailable || !strings.Contains(string(page), "unavailable for a moment") {
		t.Errorf("UI without a leader: %d %.200s; want 503 and the product's page", res.StatusCode, page)
	}
	if res, _ := http.Get(e.srv.URL + "/readyz"); res.StatusCode != http.StatusServiceUnavailable {
		t.Errorf("/readyz without a leader: %d; want 503", res.StatusCode)
	}

	fc.role, fc.noLeader = "leader", false
	e.post(t, "create-contact-action", e.body(obj{"phone": "+14155550197", "firstName": "Here"})).want(t, http.StatusCreated)
	if len(fc.forwarded) != 2 {
		t.Errorf("the leader forwarded %v; want only the two calls made without a leader", fc.forwarded)
	}
}

// TestNewLeaderAnswersOnceItsLogIsApplied: a node just elected, still applying the log its
// predecessor left, answers reads as it does writes, 503 saying nothing changed (its file may
// miss a write the last leader acknowledged), while it serves its own health; once applied, it
// serves everything itself.
func TestNewLeaderAnswersOnceItsLogIsApplied(t *testing.T) {
	fc := &fakeCluster{role: "leader", applying: true}
	e := newEnv(t, Config{Cluster: fc})
	r := e.post(t, "find-contact-action", e.body(obj{"searchText": "+14155550196"}))
	r.want(t, http.StatusServiceUnavailable)
	if !strings.Contains(r.String(), "nothing was changed") {
		t.Errorf("a read on a leader still applying its log: %s; want the 503 saying nothing changed", r)
	}
	if res, err := http.Get(e.srv.URL + "/healthz"); err != nil || res.StatusCode != http.StatusOK {
		t.Fatalf("/healthz on a leader still applying its log: %v %v; want 200", res, err)
	}
	fc.applying = false
	e.post(t, "create-contact-action", e.body(obj{"phone": "+14155550196", "firstName": "Here"})).want(t, http.StatusCreated)
	e.post(t, "find-contact-action", e.body(obj{"searchText": "+14155550196"})).want(t, http.StatusOK)
	if len(fc.forwarded) != 0 {
		t.Errorf("the leader forwarded %v; want nothing", fc.forwarded)
	}
}
