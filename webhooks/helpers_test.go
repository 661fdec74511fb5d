package webhooks_test

import (
	"io"
	"log/slog"
	"net"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"sync"
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus"

	"switchboard/internal/testutil"
	"switchboard/store"
	"switchboard/webhooks"
)

// newClock is a test clock stopped at the current second.
func newClock() *testutil.Clock {
	return testutil.NewClock(time.Now().UTC().Truncate(time.Second))
}

// loopback is the allow-list the tests use: receivers on httptest.Server live there.
func loopback(t testing.TB) []*net.IPNet {
	t.Helper()
	_, n, err := net.ParseCIDR("127.0.0.0/8")
	if err != nil {
		t.Fatal(err)
	}
	return []*net.IPNet{n}
}

// env is a store with a workspace, a member and a number.
type env struct {
	s     *store.Store
	clock *testutil.Clock // nil: real time
	ws    string
	user  string
	reg   *prometheus.Registry
	w     *webhooks.Worker // the one start ran
	mu    sync.Mutex
	fills []fill // the worker's reads of the queue, as it reports them
	phone int
}

const ourNumber = "+14155550100"

func newEnv(t testing.TB, c *testutil.Clock) *env {
	t.Helper()
	return newEnvAt(t, filepath.Join(t.TempDir(), "switchboard.db"), c)
}

func newEnvAt(t testing.TB, path string, c *testutil.Clock) *env {
	t.Helper()
	opts := store.Options{}
	if c != nil {
		opts.Now = c.Now
	}
	s, err := store.Open(path, opts)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close() })
	w, err := s.CreateWorkspace("Acme")
	if err != nil {
		t.Fatal(err)
	}
	u, err := s.CreateUser(store.NewUser{Email: "ana@example.com", Name: "Ana"})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := s.AddMember(w.ID, u.ID, ""); err != nil {
		t.Fatal(err)
	}
	if _, err := s.AddNumber(w.ID, ourNumber, "Main"); err != nil {
		t.Fatal(err)
	}
	return &env{s: s, clock: c, ws: w.ID, user: u.ID, reg: prometheus.NewRegistry(), phone: 1000}
}

func (e *env) subscribe(t testing.TB, event, url string) store.Subscription {
	t.Helper()
	sub, err := e.s.Subscribe(e.ws, e.user, event, url)
	if err != nil {
		t.Fatal(err)
	}
	return sub
}

// contact creates a contact with a fresh phone, which emits contact.created.
func (e *env) contact(t testing.TB) store.Contact {
	t.Helper()
	e.phone++
	c, err := e.s.CreateContact(e.ws, store.ContactInput{Phone: "+1415555" + itoa4(e.phone)})
	if err != nil {
		t.Fatal(err)
	}
	return c
}

func itoa4(n int) string {
	b := []byte{'0', '0', '0', '0'}
	for i := 3; i >= 0; i-- {
		b[i] = byte('0' + n%10)
		n /= 10
	}
	return string(b)
}

// start runs a worker on the env's store, woken by its commits, stopped when the test ends.
func (e *env) start(t testing.TB, o webhooks.Options) *webhooks.Worker {
	t.Helper()
	if o.Guard == nil {
		o.Guard = webhooks.NewGuard(loopback(t))
	}
	if o.Now == nil && e.clock != nil {
		o.Now = e.clock.Now
	}
	if o.Registry == nil {
		o.Registry = e.reg
	}
	if o.Logger == nil {
		o.Logger = slog.New(slog.DiscardHandler) // the store's delivery log is what tests read
	}
	w := webhooks.New(e.s, o)
	webhooks.OnFill(w, func(now time.Time, claimed int) {
		e.mu.Lock()
		e.fills = append(e.fills, fill{now, claimed})
		e.mu.Unlock()
	})
	e.s.SetHooks(store.Hooks{Events: w.Wake})
	w.Start()
	t.Cleanup(w.Stop)
	e.w = w
	return w
}

// fill is one read of the delivery queue by the worker: the clock it read and what it claimed.
type fill struct {
	now     time.Time
	claimed int
}

// settle wakes the worker until it reads the queue at the clock's current time and claims
// nothing, and returns how many deliveries its reads at this time claimed before that one:
// from then on, what the test checks is what the worker decided at this time. (Waiting for
// that read replaces sleeping and hoping the worker has looked.)
func (e *env) settle(t testing.TB) (claimed int) {
	t.Helper()
	now := e.clock.Now()
	waitFor(t, "a read of the queue that claims nothing at "+now.Format(time.RFC3339Nano), func() bool {
		e.w.Wake()
		e.mu.Lock()
		defer e.mu.Unlock()
		claimed = 0
		for _, f := range e.fills {
			if f.now.Before(now) {
				continue
			}
			if f.claimed == 0 {
				return true
			}
			claimed += f.claimed
		}
		return false
	})
	return claimed
}

func (e *env) delivery(t testing.TB, id string) store.Delivery {
	t.Helper()
	d, err := e.s.Delivery(id)
	if err != nil {
		t.Fatal(err)
	}
	return d
}

// waitFor polls cond until it holds (the worker is asynchronous); it never stands in for a
// retry delay, which the injected clock provides.
func waitFor(t testing.TB, what string, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(15 * time.Second)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("timed out waiting for %s", what)
		}
		time.Sleep(2 * time.Millisecond)
	}
}

// request is what a receiver saw.
type request struct {
	header http.Header
	body   []byte
	at     time.Time
}

// receiver is an httptest.Server whose answer to the n-th request (0-based) is decided by
// respond; it records every request.
type receiver struct {
	srv     *httptest.Server
	mu      sync.Mutex
	reqs    []request
	respond func(w http.ResponseWriter, r *http.Request, n int)
}

func newReceiver(t testing.TB, respond func(w http.ResponseWriter, r *http.Request, n int)) *receiver {
	t.Helper()
	rc := &receiver{respond: respond}
	rc.srv = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(r.Body)
		rc.mu.Lock()
		n := len(rc.reqs)
		rc.reqs = append(rc.reqs, request{header: r.Header.Clone(), body: body, at: time.Now()})
		rc.mu.Unlock()
		if rc.respond != nil {
			rc.respond(w, r, n)
		}
	}))
	t.Cleanup(rc.srv.Close)
	return rc
}

func (rc *receiver) count() int { rc.mu.Lock(); defer rc.mu.Unlock(); return len(rc.reqs) }

func (rc *receiver) get(n int) request { rc.mu.Lock(); defer rc.mu.Unlock(); return rc.reqs[n] }

// hang answers nothing until the client gives up.
func hang(_ http.ResponseWriter, r *http.Request) {
	<-r.Context().Done()
}
