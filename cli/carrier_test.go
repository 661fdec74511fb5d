package cli

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"switchboard/carrier"
	"switchboard/internal/testutil"
	"switchboard/store"
)

// The carrier through the real binary (DESIGN §7): a Twilio-format fake stands in for
// api.twilio.com, and the tests look at what a user sees: what reached the carrier, and the
// statuses list-messages-action reports.

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

// apiCall posts an integration API action and returns the status and body.
func apiCall(t testing.TB, base, token, action string, body any) (int, []byte) {
	t.Helper()
	data, err := json.Marshal(body)
	if err != nil {
		t.Fatal(err)
	}
	req, _ := http.NewRequest(http.MethodPost, base+"/v1/integrations/developer/zapier/"+action, bytes.NewReader(data))
	req.Header.Set("Authorization", "Bearer "+token)
	req.Header.Set("Content-Type", "application/json")
	res, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatalf("%s: %v", action, err)
	}
	defer res.Body.Close()
	raw, _ := io.ReadAll(res.Body)
	return res.StatusCode, raw
}

// apiOK posts an action that must answer want and decodes its JSON answer into out.
func apiOK(t testing.TB, base, token, action string, body any, want int, out any) {
	t.Helper()
	code, raw := apiCall(t, base, token, action, body)
	if code != want {
		t.Fatalf("%s: %d %s, want %d", action, code, raw, want)
	}
	if out != nil {
		if err := json.Unmarshal(raw, out); err != nil {
			t.Fatalf("%s: %v in %s", action, err, raw)
		}
	}
}

type listedMessage struct {
	ID, Status, Error, Direction, To, From, Text string
}

func listMessages(t testing.TB, base string, f fixture, limit int) []listedMessage {
	t.Helper()
	var out []listedMessage
	apiOK(t, base, f.token, "list-messages-action", map[string]any{"developerProvider": "zapier", "id": f.ws, "limit": limit}, http.StatusOK, &out)
	return out
}

// sendMessage sends a 1:1 text and returns the message id.
func sendMessage(t testing.TB, base string, f fixture, from, to, text string) string {
	t.Helper()
	var m struct{ ID string }
	apiOK(t, base, f.token, "send-message-action", map[string]any{"developerProvider": "zapier", "id": f.ws, "from": from, "to": to, "text": text}, http.StatusAccepted, &m)
	return m.ID
}

// sendBroadcast sends one broadcast call to recipients.
func sendBroadcast(t testing.TB, base string, f fixture, from string, recipients []string, text string) {
	t.Helper()
	var b struct{ Recipients []string }
	apiOK(t, base, f.token, "send-broadcast-action", map[string]any{"developerProvider": "zapier", "id": f.ws, "from": from,
		"recipients": recipients, "text": text}, http.StatusAccepted, &b)
	if len(b.Recipients) != len(recipients) {
		t.Fatalf("broadcast queued %d recipients, want %d", len(b.Recipients), len(recipients))
	}
}

func phones(prefix string, from, n int) []string {
	out := make([]string, n)
	for i := range out {
		out[i] = fmt.Sprintf("%s%06d", prefix, from+i)
	}
	return out
}

// waitStatus polls list-messages-action until message id has status.
func waitStatus(t testing.TB, base string, f fixture, id, status string, d time.Duration) listedMessage {
	t.Helper()
	deadline := time.Now().Add(d)
	var last listedMessage
	for {
		for _, m := range listMessages(t, base, f, 100) {
			if m.ID == id {
				last = m
			}
		}
		if last.Status == status {
			return last
		}
		if time.Now().After(deadline) {
			t.Fatalf("message %s is %+v after %v, want status %s", id, last, d, status)
		}
		time.Sleep(10 * time.Millisecond)
	}
}

func TestServeTwilioSendAndReceipt(t *testing.T) {
	fake := newTwilioFake(t)
	f := newFixture(t)
	addTwilioNumber(t, f, "")
	srv := startTwilioServer(t, f, fake)

	id := sendMessage(t, srv.base, f, twilioPhone, "+14155550142", "Your order has shipped")
	a := fake.waitArrivals(t, 1, 10*time.Second)[0]
	if fake.badCalls.Load() != 0 {
		t.Errorf("the fake refused %d calls (auth, path or form)", fake.badCalls.Load())
	}
	want := twilioArrival{To: "+14155550142", From: twilioPhone, Body: "Your order has shipped", StatusCallback: srv.base + "/carrier/twilio/status"}
	if a.To != want.To || a.From != want.From || a.Body != want.Body || a.StatusCallback != want.StatusCallback {
		t.Errorf("Twilio got To=%q From=%q Body=%q StatusCallback=%q, want %q %q %q %q",
			a.To, a.From, a.Body, a.StatusCallback, want.To, want.From, want.Body, want.StatusCallback)
	}
	m := waitStatus(t, srv.base, f, id, "sent", 10*time.Second)
	if m.Error != "" || m.Direction != "outbound" {
		t.Errorf("sent message %+v, want outbound with no error", m)
	}

	// Twilio's status callback, signed as Twilio signs it, makes it delivered; an unsigned one
	// is refused.
	form := url.Values{"MessageSid": {a.SID}, "MessageStatus": {"delivered"}, "AccountSid": {fakeAccountSID}, "SmsSid": {a.SID}}
	statusURL := srv.base + "/carrier/twilio/status"
	post := func(sig string) int {
		req, _ := http.NewRequest(http.MethodPost, statusURL, strings.NewReader(form.Encode()))
		req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
		if sig != "" {
			req.Header.Set("X-Twilio-Signature", sig)
		}
		res, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		res.Body.Close()
		return res.StatusCode
	}
	if code := post(""); code != http.StatusForbidden {
		t.Errorf("unsigned status callback: %d, want 403", code)
	}
	if code := post(carrier.TwilioSignature("wrong-token", statusURL, form)); code != http.StatusForbidden {
		t.Errorf("wrongly signed status callback: %d, want 403", code)
	}
	if got := waitStatus(t, srv.base, f, id, "sent", time.Second); got.Status != "sent" {
		t.Fatalf("refused callbacks moved the message to %s", got.Status)
	}
	if code := post(carrier.TwilioSignature(fakeAuthToken, statusURL, form)); code != http.StatusOK {
		t.Fatalf("signed status callback: %d, want 200", code)
	}
	waitStatus(t, srv.base, f, id, "delivered", 5*time.Second)

	// The token is a secret: never in the server's output.
	if code := srv.stop(t); code != 0 {
		t.Errorf("exit %d after SIGTERM", code)
	}
	if strings.Contains(srv.stdout.String()+srv.stderr.String(), fakeAuthToken) {
		t.Error("the server printed the Twilio auth token")
	}
}

func TestServeTwilioNeedsCredentials(t *testing.T) {
	f := newFixture(t)
	d := "-data=" + f.data
	fails(t, "credentials", "admin", "add-number", d, "--workspace", f.ws, "--phone", twilioPhone, "--carrier", "twilio")
	// The refused number was not added.
	r := sb(t, nil, "admin", "list-numbers", d)
	if r.code != 0 || strings.Contains(r.stdout, twilioPhone) {
		t.Fatalf("list-numbers after a refused add: exit %d, %q", r.code, r.stdout)
	}
	// SWITCHBOARD_CARRIER=twilio is the default carrier of add-number, and is refused alike.
	r = sb(t, []string{"SWITCHBOARD_CARRIER=twilio"}, "admin", "add-number", d, "--workspace", f.ws, "--phone", twilioPhone)
	if r.code == 0 {
		t.Errorf("add-number with SWITCHBOARD_CARRIER=twilio and no credentials succeeded: %q", r.stdout)
	}

	addTwilioNumber(t, f, "")
	addr := "127.0.0.1:" + testutil.FreePort(t)
	r = sb(t, nil, "serve", "-addr", addr, d)
	if r.code == 0 || r.took > 10*time.Second {
		t.Fatalf("serve with a twilio number and no credentials: exit %d after %v", r.code, r.took)
	}
	for _, want := range []string{twilioPhone, "twilio", "SWITCHBOARD_TWILIO_ACCOUNT_SID", "SWITCHBOARD_TWILIO_AUTH_TOKEN"} {
		if !strings.Contains(r.stderr, want) {
			t.Errorf("serve's refusal %q does not mention %q", r.stderr, want)
		}
	}
	// Half the credentials is no better.
	r = sb(t, []string{"SWITCHBOARD_TWILIO_ACCOUNT_SID=" + fakeAccountSID}, "serve", "-addr", addr, d)
	if r.code == 0 || !strings.Contains(r.stderr, "twilio") {
		t.Errorf("serve with only the account sid: exit %d, stderr %q", r.code, r.stderr)
	}
	// With them (from the environment) it starts.
	srv := startServer(t, addr, twilioEnv, "-addr", addr, d, "-log-requests=false")
	if code := srv.stop(t); code != 0 {
		t.Errorf("exit %d after SIGTERM", code)
	}
}

func TestServeCrashResendsEverything(t *testing.T) {
	fake := newTwilioFake(t)
	fake.delay.Store(int64(30 * time.Second)) // the carrier hangs: calls stay in flight
	f := newFixture(t)
	addTwilioNumber(t, f, "0")
	srv := startTwilioServer(t, f, fake)

	var want []string
	for i := range 10 {
		to := fmt.Sprintf("+1202555%04d", i)
		sendMessage(t, srv.base, f, twilioPhone, to, "single")
		want = append(want, to)
	}
	rec := phones("+1303", 5550000, 1500) // more than the dispatcher holds in flight: some stay queued
	sendBroadcast(t, srv.base, f, twilioPhone, rec, "broadcast")
	want = append(want, rec...)
	fake.waitArrivals(t, 20, 10*time.Second) // the singles and some broadcast copies are at the carrier
	time.Sleep(200 * time.Millisecond)

	// SIGKILL with calls in flight and messages queued.
	if err := srv.cmd.Process.Kill(); err != nil {
		t.Fatal(err)
	}
	<-srv.done
	before := len(fake.log())
	// The kill must have caught messages both at the carrier (sending) and still queued, or
	// the test proves nothing.
	st, err := store.Open(filepath.Join(f.data, "switchboard.db"), store.Options{ReadOnly: true})
	if err != nil {
		t.Fatal(err)
	}
	msgs, err := st.ListMessages(f.ws, store.MessageFilter{Direction: "outbound", Limit: 10_000})
	st.Close()
	if err != nil {
		t.Fatal(err)
	}
	states := map[string]int{}
	for _, m := range msgs {
		states[m.Status]++
	}
	if states[store.MessageSending] == 0 || states[store.MessageQueued] == 0 || len(msgs) != len(want) {
		t.Fatalf("at the kill: %d messages by status %v, want %d with some sending and some queued", len(msgs), states, len(want))
	}
	t.Logf("at the kill: %v, %d calls at the carrier", states, before)
	fake.delay.Store(0)

	srv = startTwilioServer(t, f, fake)
	deadline := time.Now().Add(60 * time.Second)
	seen := map[string]int{}
	for {
		clear(seen)
		for _, a := range fake.log() {
			seen[a.To]++
		}
		missing := 0
		for _, to := range want {
			if seen[to] == 0 {
				missing++
			}
		}
		if missing == 0 {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("%d of %d messages never reached the carrier after the restart (%d had before the kill)", missing, len(want), before)
		}
		time.Sleep(50 * time.Millisecond)
	}
	// Nothing is left queued or sending: the newest messages say sent, and so does every one
	// in the file once the server stops.
	deadline = time.Now().Add(20 * time.Second)
	for {
		stuck := 0
		for _, m := range listMessages(t, srv.base, f, 100) {
			if m.Status == "queued" || m.Status == "sending" {
				stuck++
			}
		}
		if stuck == 0 {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("%d of the newest 100 messages stay queued or sending", stuck)
		}
		time.Sleep(50 * time.Millisecond)
	}
	if code := srv.stop(t); code != 0 {
		t.Errorf("exit %d after SIGTERM", code)
	}
	st, err = store.Open(filepath.Join(f.data, "switchboard.db"), store.Options{ReadOnly: true})
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	msgs, err = st.ListMessages(f.ws, store.MessageFilter{Direction: "outbound", Limit: 10_000})
	if err != nil {
		t.Fatal(err)
	}
	if len(msgs) != len(want) {
		t.Fatalf("%d outbound messages stored, want %d", len(msgs), len(want))
	}
	for _, m := range msgs {
		if m.Status != store.MessageSent {
			t.Fatalf("message to %s is %s after the restart, want sent", m.To, m.Status)
		}
	}
	dup := 0
	for _, n := range seen {
		if n > 1 {
			dup++
		}
	}
	t.Logf("%d calls before the kill; %d recipients got their text twice (at least once: the window is the calls in flight)", before, dup)
}

func TestServeTwilioNumberRate(t *testing.T) {
	fake := newTwilioFake(t)
	f := newFixture(t)
	addTwilioNumber(t, f, "2")
	srv := startTwilioServer(t, f, fake)

	// One call queues all six at once, so only the number's rate spaces them.
	rec := phones("+1202", 5550000, 6)
	sendBroadcast(t, srv.base, f, twilioPhone, rec, "rate me")
	log := fake.waitArrivals(t, 6, 20*time.Second)
	first := log[0].At
	early := 0
	for _, a := range log {
		if a.At.Sub(first) < 500*time.Millisecond {
			early++
		}
	}
	// At 2 per second (a bucket of 2), at most 3 can arrive in the first half second, and the
	// six need at least 2 s; slowness only makes either bound easier to meet.
	if early > 3 {
		t.Errorf("%d of 6 arrived within 500 ms of the first, want at most 3 at 2/s", early)
	}
	if span := log[5].At.Sub(first); span < 1500*time.Millisecond {
		t.Errorf("six sends at 2/s took %v from first to last, want at least 1.5 s", span)
	}
	seen := map[string]bool{}
	for _, a := range log {
		seen[a.To] = true
	}
	if len(seen) != 6 {
		t.Errorf("%d distinct recipients reached the carrier, want 6", len(seen))
	}

	// A sandbox number beside it is not held to the twilio number's rate.
	id := sendMessage(t, srv.base, f, "+14155550100", "+14155550142", "not rate limited here")
	waitStatus(t, srv.base, f, id, "delivered", 5*time.Second)
}

func TestServePriorityOverBroadcast(t *testing.T) {
	fake := newTwilioFake(t)
	f := newFixture(t)
	addTwilioNumber(t, f, "10")
	srv := startTwilioServer(t, f, fake)

	for i := range 5 {
		sendBroadcast(t, srv.base, f, twilioPhone, phones("+1303", 5550000+400*i, 400), "big sale")
	}
	behind := len(fake.log())
	sendStart := time.Now()
	sendMessage(t, srv.base, f, twilioPhone, "+14155550142", "your appointment is at 3pm")
	// Copies that arrive while the send call itself runs are not the queue's fault.
	allowed := 12 + int(10*time.Since(sendStart).Seconds())
	deadline := time.Now().Add(30 * time.Second)
	for {
		log := fake.log()
		pos := -1
		for i, a := range log {
			if a.To == "+14155550142" {
				pos = i
			}
		}
		if pos >= 0 {
			// Sends claimed before it was queued may still land first; at 10/s (a bucket of 10)
			// that is at most a bucketful, never the 2,000-copy backlog.
			if pos-behind > allowed {
				t.Errorf("the 1:1 text was call %d at the carrier, %d after the %d that had arrived when it was queued; want within %d", pos+1, pos-behind, behind, allowed)
			}
			t.Logf("the 1:1 text was call %d; %d broadcast copies had arrived when it was queued", pos+1, behind)
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("the 1:1 text did not reach the carrier within 30 s (%d broadcast copies did)", len(log))
		}
		time.Sleep(10 * time.Millisecond)
	}
}

func TestServeTwilioRefusalsAndRetries(t *testing.T) {
	fake := newTwilioFake(t)
	f := newFixture(t)
	addTwilioNumber(t, f, "0")
	srv := startTwilioServer(t, f, fake)
	const (
		unsubscribed = "+14155550161"
		invalid      = "+14155550162"
		flaky        = "+14155550163"
		throttled    = "+14155550164"
	)
	fake.script(unsubscribed, fakeAnswer{status: 400, code: 21610, message: "Attempt to send to unsubscribed recipient"})
	fake.script(invalid, fakeAnswer{status: 400, code: 21211, message: "The 'To' number +14155550162 is not a valid phone number."})
	fake.script(flaky, fakeAnswer{status: 503, code: 20500, message: "Internal Server Error"})
	fake.script(throttled, fakeAnswer{status: 429, code: 20429, message: "Too Many Requests", retryAfter: "3"})

	unsubID := sendMessage(t, srv.base, f, twilioPhone, unsubscribed, "hi")
	invalidID := sendMessage(t, srv.base, f, twilioPhone, invalid, "hi")
	flakyID := sendMessage(t, srv.base, f, twilioPhone, flaky, "hi")
	throttledID := sendMessage(t, srv.base, f, twilioPhone, throttled, "hi")

	// Permanent refusals fail the message with Twilio's reason; 21610 also opts the recipient out.
	m := waitStatus(t, srv.base, f, unsubID, "failed", 10*time.Second)
	if m.Error != "twilio 21610: Attempt to send to unsubscribed recipient" {
		t.Errorf("21610 error %q", m.Error)
	}
	code, raw := apiCall(t, srv.base, f.token, "send-message-action", map[string]any{"developerProvider": "zapier", "id": f.ws,
		"from": twilioPhone, "to": unsubscribed, "text": "again"})
	if code != http.StatusUnprocessableEntity {
		t.Errorf("a send to a number Twilio reported unsubscribed: %d %s, want 422 (opted out)", code, raw)
	}
	var optOut map[string]any
	apiOK(t, srv.base, f.token, "create-opt-out-action", map[string]any{"developerProvider": "zapier", "id": f.ws, "phone": unsubscribed}, http.StatusOK, &optOut)
	m = waitStatus(t, srv.base, f, invalidID, "failed", 10*time.Second)
	if m.Error != "twilio 21211: The 'To' number +14155550162 is not a valid phone number." {
		t.Errorf("21211 error %q", m.Error)
	}

	// Transient refusals are retried until Twilio accepts.
	waitStatus(t, srv.base, f, flakyID, "sent", 15*time.Second)
	waitStatus(t, srv.base, f, throttledID, "sent", 15*time.Second)
	var calls []time.Time
	for _, a := range fake.log() {
		if a.To == throttled {
			calls = append(calls, a.At)
		}
	}
	if len(calls) != 2 {
		t.Fatalf("%d calls for the throttled send, want 2 (refused, then accepted)", len(calls))
	}
	// Retry-After: 3 beats the first retry's 1 s (±20 %); a slow machine only waits longer.
	if gap := calls[1].Sub(calls[0]); gap < 2800*time.Millisecond {
		t.Errorf("the retry came %v after a 429 with Retry-After: 3, want at least 3 s", gap)
	}
	perTo := map[string]int{}
	for _, a := range fake.log() {
		perTo[a.To]++
	}
	if perTo[unsubscribed] != 1 || perTo[invalid] != 1 {
		t.Errorf("permanent refusals were called %d and %d times, want once each (never retried)", perTo[unsubscribed], perTo[invalid])
	}

	// The opt-out Twilio's 21610 caused carries the reason carrier.
	if code := srv.stop(t); code != 0 {
		t.Errorf("exit %d after SIGTERM", code)
	}
	st, err := store.Open(filepath.Join(f.data, "switchboard.db"), store.Options{ReadOnly: true})
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	opts, err := st.OptOuts(f.ws)
	if err != nil {
		t.Fatal(err)
	}
	if len(opts) != 1 || opts[0].Phone != unsubscribed || opts[0].Reason != store.OptOutCarrier {
		t.Errorf("opt-outs %+v, want one for %s with reason carrier", opts, unsubscribed)
	}
}

func TestServeShutdownWaitsForInFlightSends(t *testing.T) {
	fake := newTwilioFake(t)
	fake.delay.Store(int64(1500 * time.Millisecond))
	f := newFixture(t)
	addTwilioNumber(t, f, "0")
	srv := startTwilioServer(t, f, fake)
	var ids []string
	for i := range 3 {
		ids = append(ids, sendMessage(t, srv.base, f, twilioPhone, fmt.Sprintf("+1202555%04d", i), "in flight"))
	}
	fake.waitArrivals(t, 3, 10*time.Second)
	// SIGTERM while Twilio has not answered: serve waits for the answers and records them.
	if code := srv.stop(t); code != 0 {
		t.Fatalf("exit %d after SIGTERM; stderr:\n%s", code, srv.stderr)
	}
	st, err := store.Open(filepath.Join(f.data, "switchboard.db"), store.Options{ReadOnly: true})
	if err != nil {
		t.Fatal(err)
	}
	for _, id := range ids {
		m, err := st.Message(f.ws, id)
		if err != nil {
			t.Fatal(err)
		}
		if m.Status != store.MessageSent || m.ProviderID == "" {
			t.Errorf("message %s is %s (provider id %q) after a graceful stop, want sent with Twilio's sid", id, m.Status, m.ProviderID)
		}
	}
	st.Close()
	// So a restart sends nothing twice.
	fake.delay.Store(0)
	srv = startTwilioServer(t, f, fake)
	time.Sleep(300 * time.Millisecond)
	if n := len(fake.log()); n != 3 {
		t.Errorf("%d calls at the carrier after the restart, want still 3", n)
	}
}

func TestServeStopMidBroadcast(t *testing.T) {
	fake := newTwilioFake(t)
	f := newFixture(t)
	addTwilioNumber(t, f, "10")
	srv := startTwilioServer(t, f, fake)
	rec := phones("+1202", 5550000, 30)
	x := rec[29] // last in the queue: far behind the STOP at 10/s
	sendBroadcast(t, srv.base, f, twilioPhone, rec, "promo")
	form := url.Values{"MessageSid": {"SM00000000000000000000000000000stop"}, "From": {x}, "To": {twilioPhone}, "Body": {"STOP"}}
	u := srv.base + "/carrier/twilio/sms"
	req, _ := http.NewRequest(http.MethodPost, u, strings.NewReader(form.Encode()))
	req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	req.Header.Set("X-Twilio-Signature", carrier.TwilioSignature(fakeAuthToken, u, form))
	res, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	res.Body.Close()
	if res.StatusCode != http.StatusOK {
		t.Fatalf("signed STOP: %d", res.StatusCode)
	}
	// The 29 others and the STOP confirmation reach the carrier; then wait a little longer
	// than the queue needs at 10/s, so a copy to x would have arrived.
	fake.waitArrivals(t, 30, 20*time.Second)
	time.Sleep(500 * time.Millisecond)
	var toX []string
	for _, a := range fake.log() {
		if a.To == x {
			toX = append(toX, a.Body)
		}
	}
	if len(toX) != 1 || !strings.Contains(toX[0], "unsubscribed") {
		t.Errorf("%s texted STOP mid-broadcast and then got %q, want only the STOP confirmation", x, toX)
	}
	if n := len(fake.log()); n != 30 {
		t.Errorf("%d calls at the carrier, want 29 copies and the confirmation", n)
	}
	for _, m := range listMessages(t, srv.base, f, 100) {
		if m.To == x && m.Text == "promo" && (m.Status != "failed" || !strings.Contains(m.Error, "opted out")) {
			t.Errorf("the copy to %s is %s %q, want failed because the recipient opted out", x, m.Status, m.Error)
		}
	}
}
