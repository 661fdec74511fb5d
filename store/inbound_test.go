package store_test

import (
	"encoding/json"
	"testing"
	"time"

	"switchboard/store"
)

func TestRecordInboundMessageCreatesContactAndConversation(t *testing.T) {
	h := newHookFixture(t)
	sub, err := h.s.Subscribe(h.ws, h.user.ID, store.EventMessageReceived, "https://hooks.example.com/rx")
	if err != nil {
		t.Fatal(err)
	}
	m, err := h.s.RecordInboundMessage(h.ws, store.InboundMessage{From: "+14155550199", To: testFrom, Text: "hi there",
		Provider: store.ProviderSandbox, ProviderID: "SM1"})
	if err != nil {
		t.Fatalf("RecordInboundMessage: %v", err)
	}
	if m.Outbound || m.Status != store.MessageReceived || m.From != "+14155550199" || m.To != testFrom || m.ProviderID != "SM1" {
		t.Fatalf("message = %+v, want inbound, received, from the contact to our number", m)
	}
	c, err := h.s.ContactByPhone(h.ws, "+14155550199")
	if err != nil || c.Source != store.SourceInbound || c.LastInboundMessageTime == nil {
		t.Fatalf("contact = %+v, %v; want a new inbound contact with its last inbound time", c, err)
	}
	conv, err := h.s.Conversation(h.ws, m.ConversationID)
	if err != nil || conv.Status != store.ConversationOpen || conv.From != testFrom || conv.InboundChannelAddresses != "+14155550199" {
		t.Fatalf("conversation = %+v, %v; want the open 1:1 conversation", conv, err)
	}
	if msgs, _ := h.s.ConversationMessages(h.ws, conv.ID); len(msgs) != 1 || msgs[0].ID != m.ID {
		t.Fatalf("conversation messages = %+v, want the inbound message", msgs)
	}
	// message.received went out in the same transaction, to its subscription only.
	events, deliveries, err := store.RecordedEvents(h.s, h.ws, store.EventMessageReceived)
	if err != nil || len(events) != 1 || len(deliveries) != 1 || deliveries[0].SubscriptionID != sub.ID {
		t.Fatalf("message.received events %d, deliveries %+v, %v; want 1 to %s", len(events), deliveries, err, sub.ID)
	}
	var p map[string]any
	if err := json.Unmarshal(events[0].Payload, &p); err != nil {
		t.Fatal(err)
	}
	want := map[string]any{"conversationId": conv.ID, "createdAt": store.FormatTime(m.CreatedAt), "from": "+14155550199",
		"id": m.ID, "status": store.MessageReceived, "text": "hi there", "to": testFrom, "workspaceId": h.ws}
	if media, ok := p["media"].([]any); !ok || len(media) != 0 {
		t.Errorf("payload media = %#v, want []", p["media"])
	}
	delete(p, "media")
	if len(p) != len(want) {
		t.Fatalf("payload = %v, want exactly %v", p, want)
	}
	for k, v := range want {
		if p[k] != v {
			t.Fatalf("payload[%s] = %v, want %v (payload %v)", k, p[k], v, p)
		}
	}
	// The new contact's contact.created fanned out to the fixture's subscription.
	if created, _, _ := store.RecordedEvents(h.s, h.ws, store.EventContactCreated); len(created) != 1 {
		t.Fatalf("contact.created events = %d, want 1", len(created))
	}
}

func TestRecordInboundMessageReopensTheConversation(t *testing.T) {
	h := newHookFixture(t)
	c := h.contact(t, "+14155550101", "Ada", "")
	conv, _, err := h.s.CreateConversation(h.ws, testFrom, "+14155550101")
	if err != nil {
		t.Fatal(err)
	}
	if err := store.SetConversationStatus(h.s, h.ws, conv.ID, store.ConversationClosed); err != nil {
		t.Fatal(err)
	}
	h.clock.Advance(time.Minute)
	m, err := h.s.RecordInboundMessage(h.ws, store.InboundMessage{From: "+14155550101", To: testFrom, Text: "back"})
	if err != nil {
		t.Fatal(err)
	}
	if m.ConversationID != conv.ID {
		t.Fatalf("message went to conversation %s, want the existing %s", m.ConversationID, conv.ID)
	}
	got, _ := h.s.Conversation(h.ws, conv.ID)
	if got.Status != store.ConversationOpen || got.LastMessageTime == nil || !got.LastMessageTime.Equal(h.clock.Now()) {
		t.Fatalf("conversation = %+v, want reopened with the message time", got)
	}
	after, _ := h.s.ContactByPhone(h.ws, "+14155550101")
	if after.ID != c.ID || after.Source != store.SourceAPI || after.FirstName != "Ada" {
		t.Fatalf("contact = %+v, want the existing one unchanged but for its inbound time", after)
	}
	if n, _ := h.s.CountConversations(h.ws); n != 1 {
		t.Fatalf("conversations = %d, want 1", n)
	}
}

func TestRecordInboundRefusals(t *testing.T) {
	h := newHookFixture(t)
	_, err := h.s.RecordInboundMessage(h.ws, store.InboundMessage{From: "+14155550101", To: "+14155559999", Text: "x"})
	wantKind(t, err, store.ErrNotFound, "number +14155559999 is not an active number of this workspace")
	_, err = h.s.RecordInboundMessage(h.ws, store.InboundMessage{From: "4155550101", To: testFrom, Text: "x"})
	wantFields(t, err, "from")
	_, err = h.s.RecordInboundMessage("01JZZZZZZZZZZZZZZZZZZZZZZZ", store.InboundMessage{From: "+14155550101", To: testFrom})
	wantKind(t, err, store.ErrNotFound, "workspace not found")
	_, _, err = h.s.RecordInboundCall(h.ws, "+14155550101", "+14155559999")
	wantKind(t, err, store.ErrNotFound, "")
	if n, _ := h.s.QueueDepth(); n != 0 {
		t.Fatalf("refused inbound traffic queued %d deliveries", n)
	}
}

func TestRecordInboundCallEmitsCallReceived(t *testing.T) {
	h := newHookFixture(t)
	if _, err := h.s.Subscribe(h.ws, h.user.ID, store.EventCallReceived, "https://hooks.example.com/calls"); err != nil {
		t.Fatal(err)
	}
	p, _, err := h.s.RecordInboundCall(h.ws, "+14155550101", testFrom)
	if err != nil {
		t.Fatal(err)
	}
	want := store.CallPayload{CreatedAt: store.FormatTime(h.clock.Now()), From: "+14155550101", To: testFrom, WorkspaceID: h.ws}
	if p != want {
		t.Fatalf("payload = %+v, want %+v", p, want)
	}
	events, deliveries, err := store.RecordedEvents(h.s, h.ws, store.EventCallReceived)
	if err != nil || len(events) != 1 || len(deliveries) != 1 {
		t.Fatalf("call.received events %d deliveries %d (%v), want 1 and 1", len(events), len(deliveries), err)
	}
	var got store.CallPayload
	if err := json.Unmarshal(events[0].Payload, &got); err != nil || got != want {
		t.Fatalf("stored payload = %s, want %+v", events[0].Payload, want)
	}
	// The caller is not made a contact.
	if _, err := h.s.ContactByPhone(h.ws, "+14155550101"); err == nil {
		t.Fatal("a call created a contact")
	}
}
