package cli

import (
	"net/http"
	"slices"
	"strings"
	"testing"
	"time"

	"switchboard/internal/fakecarrier"
	"switchboard/internal/testutil"
)

// recoveryServer serves the fixture with the Twilio and Telnyx flags pointing at the fakes.
func recoveryServer(t *testing.T, f fixture, tw *fakecarrier.Twilio, tx *fakecarrier.Telnyx, key testutil.TelnyxKey) *server {
	t.Helper()
	addr := "127.0.0.1:" + testutil.FreePort(t)
	return startServer(t, addr, []string{"SWITCHBOARD_TELNYX_API_KEY=" + fakeTelnyxAK, "SWITCHBOARD_TELNYX_PUBLIC_KEY=" + key.PublicBase64()},
		"-addr", addr, "-data", f.data, "-base-url", "http://"+addr, "-log-requests=false", "-rate-limit", "0",
		"-twilio-base-url", tw.URL(), "-twilio-account-sid", fakeAccountSID, "-twilio-auth-token", fakeAuthToken,
		"-telnyx-base-url", tx.URL())
}

// waitRecovered waits until both carriers' checks since started succeeded, by the server's
// /metrics.
func waitRecovered(t *testing.T, srv *server, started time.Time) {
	t.Helper()
	deadline := time.Now().Add(20 * time.Second)
	for _, c := range []string{"twilio", "telnyx"} {
		series := `switchboard_inbound_recovery_last_success_timestamp_seconds{carrier="` + c + `"}`
		for scrapeMetric(t, srv.base, series) < float64(started.Unix()) {
			if time.Now().After(deadline) {
				t.Fatalf("no %s check succeeded since %v; stderr:\n%s", c, started, srv.stderr)
			}
			time.Sleep(20 * time.Millisecond)
		}
	}
}

// inbound is the workspace's inbound texts as "from: text", oldest first.
func inbound(t *testing.T, base string, f fixture) []string {
	t.Helper()
	var out []string
	for _, m := range listMessages(t, base, f, 100) {
		if m.Direction == "inbound" {
			out = append(out, m.From+": "+m.Text)
		}
	}
	slices.Reverse(out)
	return out
}

// TestServeRecoversWhatArrivedWhileStopped: texts that reach the fake Twilio and the fake Telnyx
// while the server is stopped appear in the inbox once after it starts (a STOP among them opting
// its sender out), sends that were sent when it stopped become delivered or failed, and a
// second restart stores nothing again.
func TestServeRecoversWhatArrivedWhileStopped(t *testing.T) {
	key := testutil.NewTelnyxKey(t)
	tw := fakecarrier.NewTwilio(t, fakeAccountSID, fakeAuthToken)
	tx := fakecarrier.NewTelnyx(t, fakeTelnyxAK)
	f := newFixture(t)
	addTwilioNumber(t, f, "")
	r := sb(t, []string{"SWITCHBOARD_TELNYX_API_KEY=" + fakeTelnyxAK}, "admin", "add-number", "-data="+f.data, "--workspace", f.ws,
		"--phone", telnyxPhone, "--carrier", "telnyx")
	if r.code != 0 {
		t.Fatalf("add-number --carrier telnyx: exit %d, %q", r.code, r.stderr)
	}

	srv := recoveryServer(t, f, tw, tx, key)
	viaTwilio := sendMessage(t, srv.base, f, twilioPhone, "+14155550142", "Your crown is ready")
	viaTelnyx := sendMessage(t, srv.base, f, telnyxPhone, "+14155550143", "Your crown is ready")
	waitStatus(t, srv.base, f, viaTwilio, "sent", 10*time.Second)
	waitStatus(t, srv.base, f, viaTelnyx, "sent", 10*time.Second)
	if code := srv.stop(t); code != 0 {
		t.Fatalf("serve exited %d", code)
	}

	// While it is stopped: three texts, and the outcomes of both sends.
	tw.Receive("+14155550111", twilioPhone, "Can I come at 4 instead?")
	tw.Receive("+14155550122", twilioPhone, "STOP")
	tx.Receive("+14155550133", telnyxPhone, "Is parking free?")
	for _, m := range tw.Messages() {
		if m.Direction == "outbound-api" {
			tw.SetStatus(m.SID, "delivered", 0)
		}
	}
	for _, m := range tx.Messages() {
		if m.Direction == "outbound" {
			tx.SetStatus(m.ID, "delivery_failed", "40002")
		}
	}

	started := time.Now().Add(-time.Second)
	srv = recoveryServer(t, f, tw, tx, key)
	waitRecovered(t, srv, started)
	want := []string{"+14155550111: Can I come at 4 instead?", "+14155550122: STOP", "+14155550133: Is parking free?"}
	if got := inbound(t, srv.base, f); !slices.Equal(got, want) {
		t.Fatalf("inbox after the start: %q, want %q", got, want)
	}
	waitStatus(t, srv.base, f, viaTwilio, "delivered", 10*time.Second)
	if m := waitStatus(t, srv.base, f, viaTelnyx, "failed", 10*time.Second); m.Error != "telnyx 40002" {
		t.Fatalf("the Telnyx send failed with %q, want telnyx 40002", m.Error)
	}
	code, raw := apiCall(t, srv.base, f.token, "send-message-action", map[string]any{"developerProvider": "zapier", "id": f.ws,
		"from": twilioPhone, "to": "+14155550122", "text": "We miss you"})
	if code != http.StatusUnprocessableEntity {
		t.Fatalf("a send to the number that texted STOP while the server was down: %d %s, want 422", code, raw)
	}
	for _, series := range []string{`switchboard_inbound_recovered_total{carrier="twilio"}`, `switchboard_inbound_recovered_total{carrier="telnyx"}`} {
		want := map[bool]float64{true: 2, false: 1}[strings.Contains(series, "twilio")]
		if v := scrapeMetric(t, srv.base, series); v != want {
			t.Fatalf("%s = %v, want %v", series, v, want)
		}
	}
	if code := srv.stop(t); code != 0 {
		t.Fatalf("serve exited %d", code)
	}

	// A second restart: the check runs, and stores nothing again.
	started = time.Now().Add(-time.Second)
	srv = recoveryServer(t, f, tw, tx, key)
	waitRecovered(t, srv, started)
	if got := inbound(t, srv.base, f); !slices.Equal(got, want) {
		t.Fatalf("inbox after a second restart: %q, want %q", got, want)
	}
	if v := scrapeMetric(t, srv.base, `switchboard_inbound_recovered_total{carrier="twilio"}`); v != 0 {
		t.Fatalf("the second restart recovered %v Twilio texts, want 0", v)
	}
	for _, secret := range []string{fakeAuthToken, fakeTelnyxAK} {
		if strings.Contains(srv.stdout.String()+srv.stderr.String(), secret) {
			t.Fatal("the server printed a carrier secret")
		}
	}
}
