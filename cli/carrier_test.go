package cli

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"switchboard/carrier"
	"switchboard/internal/testutil"
	"switchboard/store"
)

// The carrier through the real binary: a Twilio-format fake stands in for
// api.twilio.com, and the tests look at what a user sees: what reached the carrier, and the
// statuses list-messages-action reports.

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
