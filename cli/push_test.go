package cli

import (
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/cookiejar"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"switchboard/internal/testutil"
	"switchboard/store"
)

// startPushServer serves f's data with the test's push service admitted (-hook-allow-cidrs:
// it listens on 127.0.0.1 over plain http).
func startPushServer(t testing.TB, f fixture) *server {
	t.Helper()
	return startPushServerAt(t, f, "127.0.0.1:"+testutil.FreePort(t))
}

// startPushServerAt is startPushServer on addr (a restart on the same origin).
func startPushServerAt(t testing.TB, f fixture, addr string) *server {
	t.Helper()
	return startServer(t, addr, nil, "-addr", addr, "-data", f.data, "-base-url", "http://"+addr, "-hook-allow-cidrs", "127.0.0.0/8")
}

// browserSignIn signs in as the fixture's user through /login and returns the cookie-keeping
// client.
func browserSignIn(t testing.TB, base string) *http.Client {
	t.Helper()
	return browserSignInAs(t, base, "ana@example.com")
}

// browserSignInAs is browserSignIn as another user with the fixture's password.
func browserSignInAs(t testing.TB, base, email string) *http.Client {
	t.Helper()
	jar, _ := cookiejar.New(nil)
	c := &http.Client{Jar: jar, CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
	res, err := c.PostForm(base+"/login", url.Values{"email": {email}, "password": {"correct horse"}})
	if err != nil {
		t.Fatal(err)
	}
	res.Body.Close()
	if res.StatusCode != http.StatusSeeOther {
		t.Fatalf("sign in: %d", res.StatusCode)
	}
	return c
}

// subscribeDevice posts the device's subscription as the signed-in browser's script does.
func subscribeDevice(t testing.TB, c *http.Client, base string, d *testutil.PushDevice) {
	t.Helper()
	req, _ := http.NewRequest("POST", base+"/push/subscriptions", strings.NewReader(d.JSON()))
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Sec-Fetch-Site", "same-origin")
	res, err := c.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	body, _ := io.ReadAll(res.Body)
	res.Body.Close()
	if res.StatusCode != http.StatusCreated {
		t.Fatalf("POST /push/subscriptions: %d %s", res.StatusCode, body)
	}
}

// textIn posts an inbound text to the sandbox number, as a carrier would.
func textIn(t testing.TB, base, token, from, text string) {
	t.Helper()
	form := url.Values{"From": {from}, "To": {"+14155550100"}, "Body": {text}, "MessageSid": {"SM" + store.RandomToken("")[:30]}}
	req, _ := http.NewRequest("POST", base+"/carrier/sandbox/sms", strings.NewReader(form.Encode()))
	req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	req.Header.Set("Authorization", "Bearer "+token)
	res, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	res.Body.Close()
	if res.StatusCode != http.StatusOK {
		t.Fatalf("inbound text: %d", res.StatusCode)
	}
}

func pushTexts(t testing.TB, pushes []testutil.Push) map[string]int {
	t.Helper()
	out := map[string]int{}
	for _, p := range pushes {
		var pl store.PushPayload
		if err := json.Unmarshal(p.Payload, &pl); err != nil {
			t.Fatalf("push payload %q: %v", p.Payload, err)
		}
		out[pl.Body]++
	}
	return out
}

// The real binary: a customer's text reaches the phone's push service encrypted and signed
// with the key in push.key (0600, made at the first start, kept across restarts); after
// sign-out nothing more does.
func TestServePushesInboundTextsToThePhone(t *testing.T) {
	f := newFixture(t)
	ps := testutil.StartPushService(t)
	srv := startPushServer(t, f)
	keyFile := filepath.Join(f.data, "push.key")
	info, err := os.Stat(keyFile)
	if err != nil || info.Mode().Perm() != 0o600 {
		t.Fatalf("push.key: %v, mode %v; want a 0600 file beside the database", err, info.Mode().Perm())
	}
	res, err := http.Get(srv.base + "/push/key")
	if err != nil {
		t.Fatal(err)
	}
	key, _ := io.ReadAll(res.Body)
	res.Body.Close()
	ps.ExpectKey(string(key))
	c := browserSignIn(t, srv.base)
	dev := ps.NewDevice()
	subscribeDevice(t, c, srv.base, dev)
	textIn(t, srv.base, f.token, "+14155550123", "Running 10 minutes late, sorry!")
	got := ps.WaitFor(1, 10*time.Second)
	if texts := pushTexts(t, got); texts["Running 10 minutes late, sorry!"] != 1 {
		t.Fatalf("the phone got %v", texts)
	}
	if h := got[0].Header; h.Get("TTL") != "86400" || h.Get("Urgency") != "high" || len(h.Get("Topic")) != 26 {
		t.Fatalf("headers TTL %q Urgency %q Topic %q", h.Get("TTL"), h.Get("Urgency"), h.Get("Topic"))
	}
	// A restart keeps the key: the same browser subscription still works. (The push is
	// recorded sent first: one stopped between the push service's answer and that record is
	// sent again after the start, at least once.)
	deadline := time.Now().Add(10 * time.Second)
	for scrapeMetric(t, srv.base, "switchboard_push_queue_depth") != 0 && time.Now().Before(deadline) {
		time.Sleep(20 * time.Millisecond)
	}
	if code := srv.stop(t); code != 0 {
		t.Fatalf("exit %d", code)
	}
	srv = startPushServer(t, f)
	textIn(t, srv.base, f.token, "+14155550123", "Still coming")
	ps.WaitFor(2, 10*time.Second)
	// Signed out, the phone gets nothing more: the subscription went with the session.
	c = browserSignIn(t, srv.base)
	subscribeDevice(t, c, srv.base, ps.NewDevice())
	res, err = c.PostForm(srv.base+"/logout", url.Values{})
	if err != nil {
		t.Fatal(err)
	}
	res.Body.Close()
	if sent, depth := scrapeMetric(t, srv.base, `switchboard_push_sent_total{outcome="sent"}`), scrapeMetric(t, srv.base, "switchboard_push_queue_depth"); sent != 1 || depth != 0 {
		t.Fatalf("/metrics after the push since the restart: sent %v, queue depth %v; want 1 and 0", sent, depth)
	}
}

// kill -9 between the commit and the push loses no push: the push service hangs, so every
// push is committed in the outbox but none is answered when the binary is killed; after the
// restart each text reaches the phone.
func TestServeKillLosesNoPush(t *testing.T) {
	f := newFixture(t)
	ps := testutil.StartPushService(t)
	srv := startPushServer(t, f)
	c := browserSignIn(t, srv.base)
	subscribeDevice(t, c, srv.base, ps.NewDevice())
	ps.Hold()
	const n = 20
	for i := range n {
		textIn(t, srv.base, f.token, "+14155550123", fmt.Sprintf("text %d", i))
	}
	deadline := time.Now().Add(10 * time.Second)
	for ps.Arrived() == 0 {
		if time.Now().After(deadline) {
			t.Fatal("no push reached the push service within 10 s")
		}
		time.Sleep(20 * time.Millisecond)
	}
	if err := srv.cmd.Process.Kill(); err != nil {
		t.Fatal(err)
	}
	<-srv.done
	if len(ps.Received()) != 0 {
		t.Fatalf("%d pushes were answered before the kill; the test wants none", len(ps.Received()))
	}
	ps.Release()
	srv = startPushServer(t, f)
	texts := map[string]int{}
	deadline = time.Now().Add(20 * time.Second)
	for len(texts) < n && time.Now().Before(deadline) {
		texts = pushTexts(t, ps.Received())
		time.Sleep(50 * time.Millisecond)
	}
	for i := range n {
		if texts[fmt.Sprintf("text %d", i)] == 0 {
			t.Errorf("text %d never reached the phone after the kill", i)
		}
	}
	srv.stop(t)
}
