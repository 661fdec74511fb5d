package store_test

import (
	"errors"
	"fmt"
	"slices"
	"sync"
	"testing"
	"time"

	"switchboard/store"
)

func TestSendBroadcast(t *testing.T) {
	clock := &testClock{time.Date(2026, 6, 1, 8, 0, 0, 0, time.UTC)}
	f := newFixtureOn(t, openStore(t, store.Options{Now: clock.Now}))
	for _, p := range []string{"+14155550002", "+14155550004"} {
		if _, _, err := f.s.CreateOptOut(f.ws, f.user.ID, p, store.OptOutAPI); err != nil {
			t.Fatal(err)
		}
	}
	// +14155550001 already has a conversation: the broadcast uses it.
	existing, _, err := f.s.CreateConversation(f.ws, f.number, "+14155550001")
	if err != nil {
		t.Fatal(err)
	}
	b, err := f.s.SendBroadcast(f.ws, store.BroadcastInput{From: f.number, Text: "sale", AuthorID: f.user.ID,
		Recipients: []string{"+14155550001", "+14155550002", "+14155550003", "+14155550001", "+14155550002", "+14155550004"}})
	if err != nil {
		t.Fatalf("SendBroadcast: %v", err)
	}
	if want := []string{"+14155550001", "+14155550003"}; !slices.Equal(b.Recipients, want) {
		t.Errorf("recipients = %q, want %q (de-duplicated, opted-out skipped)", b.Recipients, want)
	}
	if b.TotalOptedOut != 2 {
		t.Errorf("totalOptedOut = %d, want 2 (a repeated opted-out number counts once)", b.TotalOptedOut)
	}
	if b.TotalQueued != 2 || b.Status != store.BroadcastSending || b.From != f.number || b.CreatedByID != f.user.ID {
		t.Errorf("broadcast = %+v, want 2 queued, status sending", b)
	}
	stored, err := f.s.Broadcast(f.ws, b.ID)
	if err != nil || stored.TotalOptedOut != 2 || stored.TotalQueued != 2 || stored.Outstanding != 2 {
		t.Errorf("Broadcast(id) = %+v, %v", stored, err)
	}

	// Each recipient has its own copy, low priority, in its own 1:1 conversation.
	convs := map[string]string{}
	box, err := f.s.Outbox(100)
	if err != nil {
		t.Fatal(err)
	}
	if len(box) != 2 {
		t.Fatalf("outbox has %d messages, want 2", len(box))
	}
	for _, e := range box {
		m, err := f.s.Message(f.ws, e.MessageID)
		if err != nil {
			t.Fatal(err)
		}
		if e.Priority != store.PriorityLow || m.Priority != store.PriorityLow || m.BroadcastID != b.ID ||
			m.Status != store.MessageQueued || !m.Outbound || m.Text != "sale" {
			t.Errorf("broadcast message = %+v, want a queued low-priority copy of the broadcast", m)
		}
		c, err := f.s.Conversation(f.ws, m.ConversationID)
		if err != nil {
			t.Fatal(err)
		}
		if c.IsGroup() || c.InboundChannelAddresses != m.To {
			t.Errorf("message to %s in conversation %q, want its own 1:1 conversation", m.To, c.InboundChannelAddresses)
		}
		convs[m.To] = c.ID
	}
	if convs["+14155550001"] != existing.ID {
		t.Errorf("copy to +14155550001 in %s, want the existing conversation %s", convs["+14155550001"], existing.ID)
	}
	c3, created, err := f.s.CreateConversation(f.ws, f.number, "+14155550003")
	if err != nil || created || c3.ID != convs["+14155550003"] {
		t.Errorf("CreateConversation after the broadcast = %s created %v, %v; want the broadcast's %s", c3.ID, created, err, convs["+14155550003"])
	}
	// Opted-out recipients got nothing: no conversation, no contact.
	if n, _ := f.s.CountConversations(f.ws); n != 2 {
		t.Errorf("conversations = %d, want 2", n)
	}
	if got := search(t, f.s, f.ws, "0002"); len(got) != 0 {
		t.Errorf("an opted-out recipient got a contact: %q", labels(got))
	}
}

func TestSendBroadcastAllOptedOut(t *testing.T) {
	f := newFixture(t)
	if _, _, err := f.s.CreateOptOut(f.ws, "", "+14155550001", store.OptOutKeyword); err != nil {
		t.Fatal(err)
	}
	b, err := f.s.SendBroadcast(f.ws, store.BroadcastInput{From: f.number, Text: "x",
		Recipients: []string{"+14155550001", "+14155550001"}})
	if err != nil {
		t.Fatal(err)
	}
	if b.Status != store.BroadcastSent || b.Recipients == nil || len(b.Recipients) != 0 || b.TotalOptedOut != 1 || b.TotalQueued != 0 {
		t.Errorf("broadcast = status %q recipients %#v optedOut %d queued %d; want sent, [], 1, 0",
			b.Status, b.Recipients, b.TotalOptedOut, b.TotalQueued)
	}
	if box, _ := f.s.Outbox(10); len(box) != 0 {
		t.Errorf("outbox has %d messages, want none", len(box))
	}
}

func TestSendBroadcastFromMustBeTheWorkspacesNumber(t *testing.T) {
	f := newFixture(t)
	_, err := f.s.SendBroadcast(f.ws, store.BroadcastInput{From: "+14155550999", Text: "x", Recipients: []string{"+14155550001"}})
	wantFields(t, err, "from")
	if box, _ := f.s.Outbox(10); len(box) != 0 {
		t.Errorf("a refused broadcast queued %d messages", len(box))
	}
}

// TestSendBroadcastOptOutFilterAfterReopen checks that opt-outs made before a restart still
// skip recipients (the in-memory filter is rebuilt at Open) and that many recipients go out in
// one call.
func TestSendBroadcastOptOutFilterAfterReopen(t *testing.T) {
	t.Parallel()
	path := t.TempDir() + "/sb.db"
	s, err := store.Open(path, store.Options{})
	if err != nil {
		t.Fatal(err)
	}
	f := newFixtureOn(t, s)
	var recipients []string
	var wg sync.WaitGroup
	errs := make([]error, 500)
	for i := range 500 {
		p := fmt.Sprintf("+1415555%04d", i)
		recipients = append(recipients, p)
		if i%10 == 0 {
			wg.Go(func() { _, _, errs[i] = s.CreateOptOut(f.ws, "", p, store.OptOutKeyword) })
		}
	}
	wg.Wait()
	if err := errors.Join(errs...); err != nil {
		t.Fatal(err)
	}
	s.Close()
	s = openStoreAt(t, path, store.Options{})
	b, err := s.SendBroadcast(f.ws, store.BroadcastInput{From: f.number, Text: "x", Recipients: recipients})
	if err != nil {
		t.Fatal(err)
	}
	if b.TotalOptedOut != 50 || len(b.Recipients) != 450 {
		t.Errorf("after reopen: %d opted out, %d queued; want 50 and 450", b.TotalOptedOut, len(b.Recipients))
	}
	if slices.Contains(b.Recipients, "+14155550010") {
		t.Error("an opted-out number was queued after reopen")
	}
}
