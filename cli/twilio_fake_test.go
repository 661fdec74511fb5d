package cli

import (
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"switchboard/internal/testutil"
)

// A Twilio-format fake of api.twilio.com for the tests that run the binary with the twilio
// carrier, and the helpers that start such a server.

const (
	fakeAccountSID = "AC00000000000000000000000000000001"
	fakeAuthToken  = "fake-twilio-auth-token-5f2b"
	twilioPhone    = "+14155550177"
)

// twilioArrival is one Messages API call the fake accepted.
type twilioArrival struct {
	To, From, Body, StatusCallback, SID string
	At                                  time.Time
}

// twilioFake speaks Twilio's Messages API: POST /2010-04-01/Accounts/{sid}/Messages.json with
// HTTP Basic auth and a form, answering 201 {"sid":"SM…",…} or Twilio's JSON error.
type twilioFake struct {
	srv      *httptest.Server
	delay    atomic.Int64 // nanoseconds each accepted call waits before answering
	badCalls atomic.Int32 // calls refused for their auth, path or form

	mu       sync.Mutex
	arrivals []twilioArrival
	arrived  chan struct{}           // one value per arrival (buffered)
	scripts  map[string][]fakeAnswer // per To: answers to give before accepting
}

// fakeAnswer is a refusal the fake gives instead of accepting: Twilio's JSON error, an HTTP
// status and an optional Retry-After.
type fakeAnswer struct {
	status     int
	code       int
	message    string
	retryAfter string
}

// script makes the fake answer the next calls for to with answers, in order, then accept.
func (f *twilioFake) script(to string, answers ...fakeAnswer) {
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.scripts == nil {
		f.scripts = map[string][]fakeAnswer{}
	}
	f.scripts[to] = append(f.scripts[to], answers...)
}

func newTwilioFake(t testing.TB) *twilioFake {
	t.Helper()
	f := &twilioFake{arrived: make(chan struct{}, 1<<20)}
	mux := http.NewServeMux()
	mux.HandleFunc("POST /2010-04-01/Accounts/{sid}/Messages.json", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		user, pass, ok := r.BasicAuth()
		if !ok || user != fakeAccountSID || pass != fakeAuthToken || r.PathValue("sid") != fakeAccountSID {
			f.badCalls.Add(1)
			w.WriteHeader(http.StatusUnauthorized)
			io.WriteString(w, `{"code":20003,"message":"Authenticate","more_info":"https://www.twilio.com/docs/errors/20003","status":401}`)
			return
		}
		if !strings.HasPrefix(r.Header.Get("Content-Type"), "application/x-www-form-urlencoded") || r.ParseForm() != nil ||
			r.PostForm.Get("To") == "" || r.PostForm.Get("From") == "" {
			f.badCalls.Add(1)
			w.WriteHeader(http.StatusBadRequest)
			io.WriteString(w, `{"code":21604,"message":"A 'To' phone number is required.","status":400}`)
			return
		}
		f.mu.Lock()
		a := twilioArrival{To: r.PostForm.Get("To"), From: r.PostForm.Get("From"), Body: r.PostForm.Get("Body"),
			StatusCallback: r.PostForm.Get("StatusCallback"), SID: fmt.Sprintf("SM%032x", len(f.arrivals)+1), At: time.Now()}
		f.arrivals = append(f.arrivals, a)
		var refuse *fakeAnswer
		if q := f.scripts[a.To]; len(q) > 0 {
			refuse, f.scripts[a.To] = &q[0], q[1:]
		}
		f.mu.Unlock()
		f.arrived <- struct{}{}
		if refuse != nil {
			if refuse.retryAfter != "" {
				w.Header().Set("Retry-After", refuse.retryAfter)
			}
			w.WriteHeader(refuse.status)
			json.NewEncoder(w).Encode(map[string]any{"code": refuse.code, "message": refuse.message, "status": refuse.status,
				"more_info": fmt.Sprintf("https://www.twilio.com/docs/errors/%d", refuse.code)})
			return
		}
		if d := time.Duration(f.delay.Load()); d > 0 {
			select {
			case <-time.After(d):
			case <-r.Context().Done():
				return
			}
		}
		w.WriteHeader(http.StatusCreated)
		json.NewEncoder(w).Encode(map[string]any{"sid": a.SID, "account_sid": fakeAccountSID, "to": a.To, "from": a.From,
			"body": a.Body, "status": "queued", "num_segments": "1"})
	})
	f.srv = httptest.NewServer(mux)
	t.Cleanup(f.srv.Close)
	return f
}

func (f *twilioFake) log() []twilioArrival {
	f.mu.Lock()
	defer f.mu.Unlock()
	return append([]twilioArrival(nil), f.arrivals...)
}

// waitArrivals waits until at least n calls arrived, or fails after d.
func (f *twilioFake) waitArrivals(t testing.TB, n int, d time.Duration) []twilioArrival {
	t.Helper()
	deadline := time.Now().Add(d)
	for {
		if l := f.log(); len(l) >= n {
			return l
		}
		if time.Now().After(deadline) {
			t.Fatalf("the Twilio fake got %d calls within %v, want %d (refused calls: %d)", len(f.log()), d, n, f.badCalls.Load())
		}
		time.Sleep(5 * time.Millisecond)
	}
}

var twilioEnv = []string{"SWITCHBOARD_TWILIO_ACCOUNT_SID=" + fakeAccountSID, "SWITCHBOARD_TWILIO_AUTH_TOKEN=" + fakeAuthToken}

// addTwilioNumber adds twilioPhone to the fixture's workspace (credentials from the
// environment, as an operator would) with the given --rate ("" for the default).
func addTwilioNumber(t testing.TB, f fixture, rate string) {
	t.Helper()
	args := []string{"admin", "add-number", "-data=" + f.data, "--workspace", f.ws, "--phone", twilioPhone, "--name", "Twilio", "--carrier", "twilio"}
	if rate != "" {
		args = append(args, "--rate", rate)
	}
	r := sb(t, twilioEnv, args...)
	if r.code != 0 {
		t.Fatalf("add-number --carrier twilio: exit %d, stderr %q", r.code, r.stderr)
	}
	wantULID(t, "add-number", strings.TrimSpace(r.stdout))
}

// startTwilioServer serves the fixture's data with the Twilio flags pointing at fake.
func startTwilioServer(t testing.TB, f fixture, fake *twilioFake) *server {
	t.Helper()
	addr := "127.0.0.1:" + testutil.FreePort(t)
	return startServer(t, addr, nil, "-addr", addr, "-data", f.data, "-base-url", "http://"+addr, "-log-requests=false", "-rate-limit", "0",
		"-twilio-base-url", fake.srv.URL, "-twilio-account-sid", fakeAccountSID, "-twilio-auth-token", fakeAuthToken)
}
