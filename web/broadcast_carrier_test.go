package web

import (
	"net/http"
	"slices"
	"strings"
	"testing"
	"time"

	"switchboard/carrier"
	"switchboard/store"
)

// Broadcasts delivered through the sandbox carrier, seen through the API.

// Broadcast progress on the sandbox (§7): counters follow each copy's outcome, the status ends
// sent (failed when every copy failed), and the sandbox's refusing numbers play failures.
func TestBroadcastProgressOnSandbox(t *testing.T) {
	e := newCarrierEnv(t, map[string]carrier.Carrier{store.ProviderSandbox: carrier.Sandbox{}})
	e.post(t, "create-opt-out-action", e.body(obj{"phone": "+14155550300"})).want(t, http.StatusCreated)
	wait := func(id string) store.Broadcast {
		t.Helper()
		deadline := time.Now().Add(5 * time.Second)
		for {
			b, err := e.st.Broadcast(e.ws.ID, id)
			if err != nil {
				t.Fatal(err)
			}
			if b.Status != store.BroadcastSending || time.Now().After(deadline) {
				return b
			}
			time.Sleep(10 * time.Millisecond)
		}
	}
	r := e.post(t, "send-broadcast-action", e.body(obj{"from": fromNumber, "text": "sale", "recipients": []string{
		"+14155550301", "+14155550302", "+14155550303", "+14155550304", "+15005550001", "+15005550004", "+14155550300"}})).want(t, http.StatusAccepted).object(t)
	wantField(t, r, "totalOptedOut", float64(1))
	b := wait(r["id"].(string))
	if b.Status != store.BroadcastSent || b.TotalQueued != 6 || b.TotalSent != 4 || b.TotalDelivered != 4 || b.TotalFailed != 2 || b.TotalOptedOut != 1 {
		t.Errorf("broadcast %s queued %d sent %d delivered %d failed %d opted out %d; want sent 6/4/4/2/1",
			b.Status, b.TotalQueued, b.TotalSent, b.TotalDelivered, b.TotalFailed, b.TotalOptedOut)
	}
	opts, _ := e.st.OptOuts(e.ws.ID)
	reasons := map[string]string{}
	for _, o := range opts {
		reasons[o.Phone] = o.Reason
	}
	if reasons["+15005550004"] != store.OptOutCarrier {
		t.Errorf("the recipient the carrier reported unsubscribed has opt-out reason %q, want carrier", reasons["+15005550004"])
	}
	for _, m := range e.messages(t, obj{"limit": 100}) {
		if m["to"] == "+15005550001" && (m["status"] != "failed" || !strings.HasPrefix(m["error"].(string), "sandbox 21211")) {
			t.Errorf("copy to the invalid number: %v, want failed with the carrier's reason", m)
		}
	}

	r = e.post(t, "send-broadcast-action", e.body(obj{"from": fromNumber, "text": "sale", "recipients": []string{"+15005550001", "+15005550009"}})).want(t, http.StatusAccepted).object(t)
	b = wait(r["id"].(string))
	if b.Status != store.BroadcastFailed || b.TotalFailed != 2 || b.TotalSent != 0 {
		t.Errorf("all-failing broadcast %s failed %d sent %d, want failed 2/0", b.Status, b.TotalFailed, b.TotalSent)
	}

	// A group message goes to every member and is delivered.
	g := e.post(t, "send-group-message-action", e.body(obj{"from": fromNumber, "group": []string{"+14155550311", "+14155550312"}, "text": "team"})).want(t, http.StatusAccepted).object(t)
	e.waitStatus(t, g["id"].(string), "delivered")
}

// A STOP that arrives while a broadcast's copies wait: the contact's copy is not sent, counts
// as opted out, and the broadcast still finishes sent; the STOP confirmation goes out.
func TestStopWhileBroadcastQueued(t *testing.T) {
	e := newCarrierEnv(t, nil)
	failed := e.subscribe(t, "message.failed")
	r := e.post(t, "send-broadcast-action", e.body(obj{"from": twilioNumber, "text": "promo",
		"recipients": []string{"+14155550321", "+14155550322", contactPhone}})).want(t, http.StatusAccepted).object(t)
	wantTwiML(t, e.signed(t, "/carrier/twilio/sms", inboundForm("SM0011aaaabbbbccccddddeeeeffff0011", contactPhone, twilioNumber, "STOP")), "<Response></Response>")

	stub := &stubTwilio{}
	d := carrier.NewDispatcher(e.st, carrier.Options{Carriers: map[string]carrier.Carrier{store.ProviderTwilio: stub}})
	e.st.SetHooks(store.Hooks{Outbox: d.Wake})
	if err := d.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(d.Stop)
	deadline := time.Now().Add(5 * time.Second)
	var b store.Broadcast
	for {
		var err error
		if b, err = e.st.Broadcast(e.ws.ID, r["id"].(string)); err != nil {
			t.Fatal(err)
		}
		if b.Status != store.BroadcastSending || time.Now().After(deadline) {
			break
		}
		time.Sleep(10 * time.Millisecond)
	}
	if b.Status != store.BroadcastSent || b.TotalSent != 2 || b.TotalOptedOut != 1 || b.TotalFailed != 0 {
		t.Errorf("broadcast %s sent %d opted out %d failed %d, want sent 2/1/0", b.Status, b.TotalSent, b.TotalOptedOut, b.TotalFailed)
	}
	d.Stop()
	var toContact []string
	for _, m := range stub.sent {
		if m.To == contactPhone {
			toContact = append(toContact, m.Text)
		}
	}
	if want := []string{strings.ReplaceAll(store.DefaultStopReply, "%s", "Acme")}; !slices.Equal(toContact, want) {
		t.Errorf("the contact who texted STOP was sent %q, want only %q", toContact, want)
	}
	if p := e.emitted(t, failed); len(p) != 1 || p[0]["to"] != contactPhone || p[0]["status"] != "failed" {
		t.Errorf("message.failed payloads %v, want one for the skipped copy", p)
	}
	if depth := e.st.OutboxDepth(); depth != 0 {
		t.Errorf("outbox depth %d after everything went out, want 0", depth)
	}
}
