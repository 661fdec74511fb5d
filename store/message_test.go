package store_test

import (
	"slices"
	"testing"
	"time"

	"switchboard/internal/testutil"
	"switchboard/store"
)

func TestSendMessage(t *testing.T) {
	clock := testutil.NewClock(time.Date(2026, 5, 1, 12, 0, 0, 0, time.UTC))
	f := newFixtureOn(t, openStore(t, store.Options{Now: clock.Now}))
	conv, _, err := f.s.CreateConversation(f.ws, f.number, "+14155550123")
	if err != nil {
		t.Fatal(err)
	}
	clock.Advance(time.Second)
	m, err := f.s.SendMessage(f.ws, store.SendInput{From: f.number, To: []string{"+14155550123"}, Text: "hi",
		AuthorID: f.user.ID})
	if err != nil {
		t.Fatalf("SendMessage: %v", err)
	}
	if m.ConversationID != conv.ID {
		t.Errorf("message in conversation %s, want create-conversation's %s", m.ConversationID, conv.ID)
	}
	if !m.Outbound || m.Status != store.MessageQueued || m.Priority != store.PriorityNormal {
		t.Errorf("message outbound %v status %q priority %q, want outbound queued normal", m.Outbound, m.Status, m.Priority)
	}
	if m.From != f.number || m.To != "+14155550123" || len(m.Group) != 0 || len(m.Media) != 0 {
		t.Errorf("message from %q to %q group %v media %v, want 1:1 with empty group and media", m.From, m.To, m.Group, m.Media)
	}
	if m.Text != "hi" || m.AuthorID != f.user.ID || !m.CreatedAt.Equal(clock.Now()) {
		t.Errorf("message text %q author %q createdAt %v", m.Text, m.AuthorID, m.CreatedAt)
	}
	stored, err := f.s.Message(f.ws, m.ID)
	if err != nil || stored.ID != m.ID || stored.Status != store.MessageQueued {
		t.Errorf("Message(id) = %+v, %v", stored, err)
	}
	msgs, err := f.s.ConversationMessages(f.ws, conv.ID)
	if err != nil || len(msgs) != 1 || msgs[0].ID != m.ID {
		t.Errorf("ConversationMessages = %d messages, %v; want the one sent", len(msgs), err)
	}
	c, _ := f.s.Conversation(f.ws, conv.ID)
	if c.LastMessageTime == nil || !c.LastMessageTime.Equal(clock.Now()) {
		t.Errorf("conversation lastMessageTime = %v, want %v", c.LastMessageTime, clock.Now())
	}
	box, err := f.s.Outbox(10)
	if err != nil || len(box) != 1 || box[0].MessageID != m.ID || box[0].WorkspaceID != f.ws || box[0].Priority != store.PriorityNormal {
		t.Errorf("Outbox = %+v, %v; want the message at normal priority", box, err)
	}

	// A send to a new number creates the conversation create-conversation then returns.
	m2, err := f.s.SendMessage(f.ws, store.SendInput{From: f.number, To: []string{"+14155550124"}, Media: []string{"https://example.com/a.png"}})
	if err != nil {
		t.Fatal(err)
	}
	conv2, created, err := f.s.CreateConversation(f.ws, f.number, "+14155550124")
	if err != nil || created || conv2.ID != m2.ConversationID {
		t.Errorf("CreateConversation after a send = %s created %v, %v; want the send's %s", conv2.ID, created, err, m2.ConversationID)
	}
}

func TestSendMessageFromMustBeTheWorkspacesNumber(t *testing.T) {
	f := newFixture(t)
	_, err := f.s.SendMessage(f.ws, store.SendInput{From: "+14155550999", To: []string{"+14155550123"}, Text: "hi"})
	wantFields(t, err, "from")
	if box, _ := f.s.Outbox(10); len(box) != 0 {
		t.Errorf("a refused send queued %d messages", len(box))
	}
}

func TestSendMessageToNobodyIsRefused(t *testing.T) {
	f := newFixture(t)
	_, err := f.s.SendMessage(f.ws, store.SendInput{From: f.number, Text: "hi"})
	wantFields(t, err, "to")
}

func TestSendMessageToOptedOutIsRefused(t *testing.T) {
	f := newFixture(t)
	if _, _, err := f.s.CreateOptOut(f.ws, f.user.ID, "+14155550123", store.OptOutAPI); err != nil {
		t.Fatal(err)
	}
	_, err := f.s.SendMessage(f.ws, store.SendInput{From: f.number, To: []string{"+14155550123"}, Text: "hi"})
	wantKind(t, err, store.ErrOptedOut, "recipient +14155550123 has opted out")
	if box, _ := f.s.Outbox(10); len(box) != 0 {
		t.Errorf("a refused send queued %d messages", len(box))
	}
	if n, _ := f.s.CountConversations(f.ws); n != 0 {
		t.Errorf("a refused send stored %d conversations", n)
	}
	if got := search(t, f.s, f.ws, ""); len(got) != 0 {
		t.Errorf("a refused send stored contacts %q", labels(got))
	}

	// The opt-out is per workspace.
	g := newFixtureOn(t, f.s)
	if _, err := g.s.SendMessage(g.ws, store.SendInput{From: g.number, To: []string{"+14155550123"}, Text: "hi"}); err != nil {
		t.Errorf("send in another workspace: %v, want it queued", err)
	}
	// Removing the opt-out allows sends again.
	if removed, err := f.s.RemoveOptOut(f.ws, "+14155550123"); err != nil || !removed {
		t.Fatalf("RemoveOptOut = %v, %v", removed, err)
	}
	if _, err := f.s.SendMessage(f.ws, store.SendInput{From: f.number, To: []string{"+14155550123"}, Text: "hi"}); err != nil {
		t.Errorf("send after the opt-out was removed: %v", err)
	}
}

func TestSendGroupMessage(t *testing.T) {
	f := newFixture(t)
	m, err := f.s.SendMessage(f.ws, store.SendInput{From: f.number, Text: "hi all",
		To: []string{"+14155550003", "+14155550001", "+14155550003", "+14155550002"}})
	if err != nil {
		t.Fatal(err)
	}
	want := []string{"+14155550001", "+14155550002", "+14155550003"}
	if !slices.Equal(m.Group, want) || m.To != "" {
		t.Errorf("group message to %q group %q, want group %q", m.To, m.Group, want)
	}
	conv, err := f.s.Conversation(f.ws, m.ConversationID)
	if err != nil {
		t.Fatal(err)
	}
	if conv.InboundChannelAddresses != "+14155550001-+14155550002-+14155550003" || !conv.IsGroup() {
		t.Errorf("group key = %q, want the sorted addresses joined with -", conv.InboundChannelAddresses)
	}
	// Any order of the same numbers is the same conversation.
	m2, err := f.s.SendMessage(f.ws, store.SendInput{From: f.number, Text: "again",
		To: []string{"+14155550002", "+14155550003", "+14155550001"}})
	if err != nil || m2.ConversationID != conv.ID {
		t.Errorf("second group send in %s, %v; want %s", m2.ConversationID, err, conv.ID)
	}
	// Every member got a contact.
	if got := search(t, f.s, f.ws, ""); len(got) != 3 {
		t.Errorf("contacts after a group send = %q, want three", labels(got))
	}
	// A group of one number is that number's 1:1 conversation.
	one, err := f.s.SendMessage(f.ws, store.SendInput{From: f.number, Text: "solo", To: []string{"+14155550001", "+14155550001"}})
	if err != nil {
		t.Fatal(err)
	}
	c1, created, _ := f.s.CreateConversation(f.ws, f.number, "+14155550001")
	if created || c1.ID != one.ConversationID || one.To != "+14155550001" {
		t.Errorf("a de-duplicated group of one went to %s (to %q), want the 1:1 conversation %s", one.ConversationID, one.To, c1.ID)
	}
}

func TestSendGroupMessageWithOptedOutMembersIsRefused(t *testing.T) {
	f := newFixture(t)
	for _, p := range []string{"+14155550003", "+14155550001"} {
		if _, _, err := f.s.CreateOptOut(f.ws, "", p, store.OptOutKeyword); err != nil {
			t.Fatal(err)
		}
	}
	_, err := f.s.SendMessage(f.ws, store.SendInput{From: f.number, Text: "hi",
		To: []string{"+14155550002", "+14155550003"}})
	wantKind(t, err, store.ErrOptedOut, "recipient +14155550003 has opted out")
	_, err = f.s.SendMessage(f.ws, store.SendInput{From: f.number, Text: "hi",
		To: []string{"+14155550003", "+14155550002", "+14155550001"}})
	wantKind(t, err, store.ErrOptedOut, "recipients +14155550001, +14155550003 have opted out")
	if n, _ := f.s.CountConversations(f.ws); n != 0 {
		t.Errorf("refused group sends stored %d conversations", n)
	}
}

func TestOutboxOrder(t *testing.T) {
	clock := testutil.NewClock(time.Date(2026, 5, 1, 12, 0, 0, 0, time.UTC))
	f := newFixtureOn(t, openStore(t, store.Options{Now: clock.Now}))
	send := func(to string) string {
		t.Helper()
		clock.Advance(time.Second)
		m, err := f.s.SendMessage(f.ws, store.SendInput{From: f.number, To: []string{to}, Text: "n"})
		if err != nil {
			t.Fatal(err)
		}
		return m.ID
	}
	broadcast := func(to ...string) []string {
		t.Helper()
		clock.Advance(time.Second)
		b, err := f.s.SendBroadcast(f.ws, store.BroadcastInput{From: f.number, Recipients: to, Text: "b"})
		if err != nil {
			t.Fatal(err)
		}
		var out []string
		box, _ := f.s.Outbox(1000)
		for _, e := range box {
			if m, _ := f.s.Message(f.ws, e.MessageID); m.BroadcastID == b.ID {
				out = append(out, m.ID)
			}
		}
		return out
	}
	b1 := broadcast("+14155550001", "+14155550002")
	n1 := send("+14155550003")
	b2 := broadcast("+14155550004")
	n2 := send("+14155550005")

	box, err := f.s.Outbox(100)
	if err != nil {
		t.Fatal(err)
	}
	var got, prios []string
	for _, e := range box {
		got = append(got, e.MessageID)
		prios = append(prios, e.Priority)
	}
	want := append(append([]string{n1, n2}, b1...), b2...)
	if !slices.Equal(got, want) {
		t.Errorf("outbox = %v (%v), want normal sends oldest first, then broadcasts oldest first: %v", got, prios, want)
	}
	if box, _ := f.s.Outbox(2); len(box) != 2 || box[0].MessageID != n1 {
		t.Errorf("Outbox(2) = %+v, want the first two", box)
	}
}
