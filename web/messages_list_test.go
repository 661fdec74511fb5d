package web

import (
	"fmt"
	"net/http"
	"slices"
	"testing"
	"time"

	"switchboard/carrier"
	"switchboard/store"
)

// list-messages-action and the message webhook payloads.

func TestListMessages(t *testing.T) {
	e := newCarrierEnv(t, nil)
	var sent []string
	for i := range 27 {
		to := "+1415555020" + fmt.Sprint(i%3)
		m := e.post(t, "send-message-action", e.body(obj{"from": fromNumber, "to": to, "text": fmt.Sprint("msg ", i)})).want(t, http.StatusAccepted).object(t)
		sent = append(sent, m["id"].(string))
	}
	wantTwiML(t, e.signed(t, "/carrier/twilio/sms", inboundForm("SM0006aaaabbbbccccddddeeeeffff0001", "+14155550200", twilioNumber, "reply")), "<Response></Response>")

	all := e.messages(t, obj{})
	if len(all) != 25 {
		t.Fatalf("default limit: %d messages, want 25", len(all))
	}
	wantKeys(t, all[0], "conversationId", "createdAt", "direction", "error", "from", "id", "media", "segments", "status", "text", "to", "workspaceId")
	wantField(t, all[0], "direction", "inbound")
	for i, m := range all[1:] {
		wantKeys(t, m, "conversationId", "createdAt", "direction", "error", "from", "id", "media", "segments", "status", "text", "to", "workspaceId")
		if want := sent[len(sent)-1-i]; m["id"] != want {
			t.Fatalf("message %d is %v, want %s (newest first)", i+1, m["id"], want)
		}
		wantField(t, m, "direction", "outbound")
		wantField(t, m, "status", "queued")
		wantField(t, m, "error", "")
		wantField(t, m, "segments", float64(1))
		wantField(t, m, "workspaceId", e.ws.ID)
		if _, err := time.Parse("2006-01-02T15:04:05.000Z", m["createdAt"].(string)); err != nil {
			t.Errorf("createdAt %q is not RFC 3339 UTC with milliseconds", m["createdAt"])
		}
	}
	if n := len(e.messages(t, obj{"limit": 100})); n != 28 {
		t.Errorf("limit 100: %d messages, want all 28", n)
	}
	if n := len(e.messages(t, obj{"limit": 1})); n != 1 {
		t.Errorf("limit 1: %d messages", n)
	}
	in := e.messages(t, obj{"direction": "inbound"})
	if len(in) != 1 || in[0]["text"] != "reply" {
		t.Errorf("direction inbound: %v", in)
	}
	out := e.messages(t, obj{"direction": "outbound", "limit": 100})
	if len(out) != 27 {
		t.Errorf("direction outbound: %d messages, want 27", len(out))
	}
	for _, m := range out {
		wantField(t, m, "direction", "outbound")
	}

	// conversationId: only that conversation's messages, newest first.
	conv := all[1]["conversationId"].(string) // msg 26's conversation, to +14155550202
	inConv := e.messages(t, obj{"conversationId": conv, "limit": 100})
	if len(inConv) != 9 {
		t.Fatalf("conversation %s: %d messages, want 9", conv, len(inConv))
	}
	for _, m := range inConv {
		wantField(t, m, "conversationId", conv)
		wantField(t, m, "to", "+14155550202")
	}
	if inConv[0]["text"] != "msg 26" || inConv[8]["text"] != "msg 2" {
		t.Errorf("conversation messages run %v … %v, want msg 26 … msg 2", inConv[0]["text"], inConv[8]["text"])
	}

	for _, c := range []struct {
		name  string
		body  obj
		field string
	}{
		{"limit 0", obj{"limit": 0}, "limit"},
		{"limit 101", obj{"limit": 101}, "limit"},
		{"limit string", obj{"limit": "x"}, "limit"},
		{"limit numeric string", obj{"limit": "10"}, "limit"},
		{"limit fraction", obj{"limit": 2.5}, "limit"},
		{"direction", obj{"direction": "sideways"}, "direction"},
	} {
		t.Run(c.name, func(t *testing.T) {
			if f := e.post(t, "list-messages-action", e.body(c.body)).fields(t); !slices.Equal(f, []string{c.field}) {
				t.Errorf("fields %q, want [%s]", f, c.field)
			}
		})
	}
	// Another workspace's conversation, and one that does not exist: 404.
	otherConv := e.postAs(t, e.otherToken, "create-conversation-action", obj{"developerProvider": "zapier", "id": e.ws2.ID,
		"from": otherNumber, "to": contactPhone}).want(t, http.StatusCreated).object(t)["id"].(string)
	e.post(t, "list-messages-action", e.body(obj{"conversationId": otherConv})).want(t, http.StatusNotFound).errorText(t)
	e.post(t, "list-messages-action", e.body(obj{"conversationId": "01JZZZZZZZZZZZZZZZZZZZZZZZ"})).want(t, http.StatusNotFound).errorText(t)
	// The usual order of checks: a non-member is 403, an unknown workspace 404.
	e.postAs(t, e.otherToken, "list-messages-action", e.body(obj{})).want(t, http.StatusForbidden)
	e.post(t, "list-messages-action", e.body(obj{"id": "01JZZZZZZZZZZZZZZZZZZZZZZZ"})).want(t, http.StatusNotFound)
}

func TestMessageWebhookPayloads(t *testing.T) {
	e := newCarrierEnv(t, map[string]carrier.Carrier{store.ProviderSandbox: carrier.Sandbox{}})
	sentSub := e.subscribe(t, "message.sent")
	delSub := e.subscribe(t, "message.delivered")
	m := e.post(t, "send-message-action", e.body(obj{"from": fromNumber, "to": toNumber, "text": "your table is ready"})).want(t, http.StatusAccepted).object(t)
	id := m["id"].(string)
	e.waitStatus(t, id, "delivered")
	keys := []string{"conversationId", "createdAt", "from", "id", "media", "status", "text", "to", "workspaceId"}
	for _, c := range []struct{ sub, status string }{{sentSub, "sent"}, {delSub, "delivered"}} {
		p := e.emitted(t, c.sub)
		if len(p) != 1 {
			t.Fatalf("%d message.%s events, want 1: %v", len(p), c.status, p)
		}
		wantKeys(t, p[0], keys...)
		wantField(t, p[0], "id", id)
		wantField(t, p[0], "status", c.status)
		wantField(t, p[0], "conversationId", m["conversationId"])
		wantField(t, p[0], "from", fromNumber)
		wantField(t, p[0], "to", toNumber)
		wantField(t, p[0], "text", "your table is ready")
	}
	// message.sent was queued before message.delivered.
	s, _ := e.st.SubscriptionDeliveries(sentSub, 0)
	d, _ := e.st.SubscriptionDeliveries(delSub, 0)
	if s[0].EventID >= d[0].EventID {
		t.Errorf("message.sent event %s is not older than message.delivered %s", s[0].EventID, d[0].EventID)
	}
}
