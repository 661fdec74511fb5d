package cli

import (
	"net/http"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"switchboard/carrier"
	"switchboard/store"
)

// postTwilioInbound posts a signed inbound text to the server's Twilio webhook.
func postTwilioInbound(t *testing.T, base, sid, from, text string) {
	t.Helper()
	form := url.Values{"MessageSid": {sid}, "From": {from}, "To": {twilioPhone}, "Body": {text}}
	u := base + "/carrier/twilio/sms"
	req, _ := http.NewRequest(http.MethodPost, u, strings.NewReader(form.Encode()))
	req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	req.Header.Set("X-Twilio-Signature", carrier.TwilioSignature(fakeAuthToken, u, form))
	res, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	res.Body.Close()
	if res.StatusCode != http.StatusOK {
		t.Fatalf("inbound %q: %d", text, res.StatusCode)
	}
}

// TestServeKillBetweenInboundAndRuleReply: a rule replies to every text. The server is killed
// with SIGKILL while its reply is at the carrier, unanswered; after the restart the text and
// the reply are both there, once each, the reply goes out (at least once, the crash window of
// §20), and the rule's activity entry is written once: the reply was queued in the text's own
// transaction, so neither is lost.
func TestServeKillBetweenInboundAndRuleReply(t *testing.T) {
	if testing.Short() {
		t.Skip("kills and restarts the binary")
	}
	fake := newTwilioFake(t)
	f := newFixture(t)
	addTwilioNumber(t, f, "")
	rule := filepath.Join(t.TempDir(), "rule.json")
	if err := os.WriteFile(rule, []byte(`{"name":"Acknowledge","trigger":"message.received",
		"actions":[{"type":"reply","text":"Thanks, we got your text"},{"type":"addLabel","label":"acknowledged"}]}`), 0o644); err != nil {
		t.Fatal(err)
	}
	ok(t, "admin", "add-rule", "-data="+f.data, "--workspace", f.ws, "--file", rule)
	fake.delay.Store(int64(time.Hour)) // the carrier holds the reply: the kill comes while it waits
	srv := startTwilioServer(t, f, fake)
	postTwilioInbound(t, srv.base, "SM00000000000000000000000000000001", "+13035550001", "hello, is anyone there?")
	if got := fake.waitArrivals(t, 1, 20*time.Second); got[0].Body != "Thanks, we got your text" || got[0].To != "+13035550001" {
		t.Fatalf("the carrier got %+v", got[0])
	}
	if err := srv.cmd.Process.Kill(); err != nil {
		t.Fatal(err)
	}
	<-srv.done
	fake.delay.Store(0)
	srv = startTwilioServer(t, f, fake)
	// The reply goes out again after the restart, and is recorded sent.
	fake.waitArrivals(t, 2, 20*time.Second)
	deadline := time.Now().Add(20 * time.Second)
	var msgs []listedMessage
	for {
		msgs = listMessages(t, srv.base, f, 100)
		if len(msgs) == 2 && msgs[0].Status == store.MessageSent {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("messages after the restart: %+v", msgs)
		}
		time.Sleep(20 * time.Millisecond)
	}
	if msgs[1].Direction != "inbound" || msgs[1].Text != "hello, is anyone there?" || msgs[0].Text != "Thanks, we got your text" {
		t.Fatalf("messages after the restart: %+v", msgs)
	}
	// The carrier retrying its webhook changes nothing: the text is recorded once, the rule
	// does not fire again.
	postTwilioInbound(t, srv.base, "SM00000000000000000000000000000001", "+13035550001", "hello, is anyone there?")
	if code := srv.stop(t); code != 0 {
		t.Fatalf("exit %d", code)
	}
	s, err := store.Open(dbPath(f.data), store.Options{Timeout: time.Second})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	all, err := s.ListMessages(f.ws, store.MessageFilter{Limit: 100})
	if err != nil || len(all) != 2 {
		t.Fatalf("%d messages in the store (%v), want the text and its reply", len(all), err)
	}
	entries, err := s.ConversationEntries(f.ws, all[0].ConversationID)
	if err != nil {
		t.Fatal(err)
	}
	rules := 0
	for _, e := range entries {
		if e.Kind == store.EntryRule && e.Rule == "Acknowledge" && e.Text == "replied and added the label acknowledged" {
			rules++
		}
	}
	if rules != 1 {
		t.Fatalf("%d rule entries, want 1: %+v", rules, entries)
	}
}
