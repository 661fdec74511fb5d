package store_test

import (
	"encoding/json"
	"math"
	"path/filepath"
	"slices"
	"testing"
	"time"

	bolt "go.etcd.io/bbolt"

	"switchboard/internal/testutil"
	"switchboard/store"
	"switchboard/store/kv"
)

// claimAll claims with no rate limit.
func claimAll(t *testing.T, s *store.Store, max int) []store.Claim {
	t.Helper()
	cl, err := s.ClaimOutbound(max, max, "", func(*store.PhoneNumber) int { return math.MaxInt32 })
	if err != nil {
		t.Fatalf("ClaimOutbound: %v", err)
	}
	return cl
}

func claimedIDs(cl []store.Claim) []string {
	var ids []string
	for _, c := range cl {
		for _, m := range c.Messages {
			ids = append(ids, m.ID)
		}
	}
	return ids
}

func send(t *testing.T, f *fixture, to, text string) store.Message {
	t.Helper()
	m, err := f.s.SendMessage(f.ws, store.SendInput{From: f.number, To: []string{to}, Text: text, AuthorID: f.user.ID})
	if err != nil {
		t.Fatalf("SendMessage: %v", err)
	}
	return m
}

func TestClaimTakesPriorityThenAgeAndMarksSending(t *testing.T) {
	f := newFixture(t)
	b, err := f.s.SendBroadcast(f.ws, store.BroadcastInput{From: f.number, Recipients: []string{"+14155550301", "+14155550302"}, Text: "sale"})
	if err != nil {
		t.Fatal(err)
	}
	normal := send(t, f, "+14155550123", "hi")
	// A STOP queues a high-priority reply.
	r, err := f.s.ReceiveMessage(f.ws, store.InboundMessage{From: "+14155550124", To: f.number, Text: "STOP", Keyword: store.KeywordStop})
	if err != nil || r.Reply == nil {
		t.Fatalf("ReceiveMessage STOP = %+v, %v; want a reply queued", r, err)
	}
	if d := f.s.OutboxDepth(); d != 4 {
		t.Errorf("OutboxDepth = %d, want 4 (2 copies, 1 send, 1 reply)", d)
	}
	got := claimedIDs(claimAll(t, f.s, 10))
	if len(got) != 4 || got[0] != r.Reply.ID || got[1] != normal.ID {
		t.Fatalf("claim order = %v, want the keyword reply %s, then the send %s, then the broadcast copies", got, r.Reply.ID, normal.ID)
	}
	m, _ := f.s.Message(f.ws, normal.ID)
	if m.Status != store.MessageSending || m.Attempts != 1 {
		t.Errorf("claimed message status %q attempts %d, want sending 1", m.Status, m.Attempts)
	}
	if again := claimAll(t, f.s, 10); len(again) != 0 {
		t.Errorf("a second claim took %v, want nothing (all are at the carrier)", claimedIDs(again))
	}
	if d := f.s.OutboxDepth(); d != 4 {
		t.Errorf("OutboxDepth while sending = %d, want 4", d)
	}
	bb, _ := f.s.Broadcast(f.ws, b.ID)
	if bb.Status != store.BroadcastSending || bb.Outstanding != 2 {
		t.Errorf("broadcast %q outstanding %d, want sending 2", bb.Status, bb.Outstanding)
	}
}

func TestClaimHoldsEachNumberToItsQuotaAndTakesTurns(t *testing.T) {
	f := newFixture(t)
	second, err := f.s.AddNumber(f.ws, "+14155550200", "Second")
	if err != nil {
		t.Fatal(err)
	}
	for i := range 5 {
		send(t, f, "+1415555030"+string(rune('0'+i)), "a")
	}
	m2, err := f.s.SendMessage(f.ws, store.SendInput{From: second.Phone, To: []string{"+14155550400"}, Text: "b"})
	if err != nil {
		t.Fatal(err)
	}
	// The first number may send 2 now, the second as many as it likes.
	cl, err := f.s.ClaimOutbound(100, 100, "", func(n *store.PhoneNumber) int {
		if n.Phone == f.number {
			return 2
		}
		return 100
	})
	if err != nil {
		t.Fatal(err)
	}
	got := claimedIDs(cl)
	if len(got) != 3 || !slices.Contains(got, m2.ID) {
		t.Fatalf("claimed %v, want 2 of the first number and the second number's %s", got, m2.ID)
	}
	// perNumber bounds one number's share; after names the number served last.
	cl, _ = f.s.ClaimOutbound(100, 1, cl[len(cl)-1].Number.ID, func(*store.PhoneNumber) int { return 100 })
	if len(claimedIDs(cl)) != 1 {
		t.Errorf("perNumber 1 claimed %d, want 1", len(claimedIDs(cl)))
	}
}

func TestOutcomesSentDeliveredFailedRetry(t *testing.T) {
	h := newHookFixture(t)
	for _, ev := range []string{store.EventMessageSent, store.EventMessageDelivered, store.EventMessageFailed, store.EventOptOutCreated} {
		if _, err := h.s.Subscribe(h.ws, h.user.ID, ev, "https://hooks.example.com/"+ev); err != nil {
			t.Fatal(err)
		}
	}
	b, err := h.s.SendBroadcast(h.ws, store.BroadcastInput{From: h.number, Text: "sale",
		Recipients: []string{"+14155550301", "+14155550302", "+14155550303"}})
	if err != nil {
		t.Fatal(err)
	}
	if ev, _, _ := store.RecordedEvents(h.s, h.ws, store.EventMessageSent); len(ev) != 0 {
		t.Fatalf("message.sent fired %d times at queue time, want only when the carrier accepts", len(ev))
	}
	cl := claimAll(t, h.s, 10)
	msgs := cl[0].Messages
	by := map[string]store.Message{}
	for _, m := range msgs {
		by[m.To] = m
	}
	delivered, failed, retried := by["+14155550301"], by["+14155550302"], by["+14155550303"]
	retryAt := h.clock.Now().Add(5 * time.Second)
	err = h.s.RecordOutcomes([]store.Outcome{
		{WorkspaceID: h.ws, MessageID: delivered.ID, Provider: "sandbox", ProviderIDs: []string{"sandbox-1"}, Delivered: true},
		{WorkspaceID: h.ws, MessageID: failed.ID, Provider: "twilio", Err: "twilio 21610: unsubscribed", Unsubscribed: true},
		{WorkspaceID: h.ws, MessageID: retried.ID, Provider: "twilio", Err: "twilio: 503", RetryAt: retryAt},
	})
	if err != nil {
		t.Fatal(err)
	}
	m, _ := h.s.Message(h.ws, delivered.ID)
	if m.Status != store.MessageDelivered || m.ProviderID != "sandbox-1" || m.DeliveredAt == nil || m.SentAt == nil {
		t.Errorf("accepted+delivered message = %+v", m)
	}
	m, _ = h.s.Message(h.ws, failed.ID)
	if m.Status != store.MessageFailed || m.ProviderErr != "twilio 21610: unsubscribed" {
		t.Errorf("failed message status %q err %q", m.Status, m.ProviderErr)
	}
	if out, _ := h.s.IsOptedOut(h.ws, "+14155550302"); !out {
		t.Error("a carrier unsubscribe recorded no opt-out")
	}
	if oo, _ := h.s.OptOuts(h.ws); len(oo) != 1 || oo[0].Reason != store.OptOutCarrier {
		t.Errorf("opt-outs = %+v, want one with reason carrier", oo)
	}
	m, _ = h.s.Message(h.ws, retried.ID)
	if m.Status != store.MessageQueued || m.Attempts != 1 {
		t.Errorf("retried message status %q attempts %d, want queued 1", m.Status, m.Attempts)
	}
	bb, _ := h.s.Broadcast(h.ws, b.ID)
	if bb.TotalSent != 1 || bb.TotalDelivered != 1 || bb.TotalFailed != 1 || bb.Outstanding != 1 || bb.Status != store.BroadcastSending {
		t.Errorf("broadcast counters sent %d delivered %d failed %d outstanding %d status %q; want 1 1 1 1 sending",
			bb.TotalSent, bb.TotalDelivered, bb.TotalFailed, bb.Outstanding, bb.Status)
	}
	for ev, want := range map[string]int{store.EventMessageSent: 1, store.EventMessageDelivered: 1, store.EventMessageFailed: 1, store.EventOptOutCreated: 1} {
		events, _, _ := store.RecordedEvents(h.s, h.ws, ev)
		if len(events) != want {
			t.Errorf("%s fired %d times, want %d", ev, len(events), want)
		}
	}
	var p map[string]any
	events, _, _ := store.RecordedEvents(h.s, h.ws, store.EventMessageDelivered)
	if err := json.Unmarshal(events[0].Payload, &p); err != nil || p["id"] != delivered.ID || p["status"] != "delivered" {
		t.Errorf("message.delivered payload = %v, want its id and status delivered", p)
	}

	// The retry waits for its time, then goes back to the queue.
	if moved, next, _ := h.s.PromoteDue(h.clock.Now(), 10); moved != 0 || !next.Equal(retryAt) {
		t.Errorf("PromoteDue before the time moved %d, next %v; want 0, %v", moved, next, retryAt)
	}
	if cl := claimAll(t, h.s, 10); len(cl) != 0 {
		t.Fatalf("a retry was claimed before its time")
	}
	h.clock.Advance(5 * time.Second)
	if moved, _, _ := h.s.PromoteDue(h.clock.Now(), 10); moved != 1 {
		t.Fatalf("PromoteDue at the time moved %d, want 1", moved)
	}
	cl = claimAll(t, h.s, 10)
	if ids := claimedIDs(cl); len(ids) != 1 || ids[0] != retried.ID || cl[0].Messages[0].Attempts != 2 {
		t.Fatalf("claim after the retry time = %v, want %s on its second attempt", ids, retried.ID)
	}
	if err := h.s.RecordOutcomes([]store.Outcome{{WorkspaceID: h.ws, MessageID: retried.ID, Provider: "twilio", ProviderIDs: []string{"SM3"}}}); err != nil {
		t.Fatal(err)
	}
	bb, _ = h.s.Broadcast(h.ws, b.ID)
	if bb.Status != store.BroadcastSent || bb.TotalSent != 2 || bb.Outstanding != 0 {
		t.Errorf("broadcast after its last copy left: status %q sent %d outstanding %d, want sent 2 0", bb.Status, bb.TotalSent, bb.Outstanding)
	}
	if d := h.s.OutboxDepth(); d != 0 {
		t.Errorf("OutboxDepth after everything left = %d, want 0", d)
	}

	// Receipts move forward only; repeats and unknown ids change nothing.
	if _, changed, _ := h.s.StatusUpdate("twilio", "SM3", store.MessageSent, ""); changed {
		t.Error("a sent receipt for a sent message changed it")
	}
	if _, changed, _ := h.s.StatusUpdate("twilio", "SM3", store.MessageDelivered, ""); !changed {
		t.Error("a delivered receipt did not deliver the message")
	}
	if m, changed, _ := h.s.StatusUpdate("twilio", "SM3", store.MessageFailed, "twilio 30003"); changed || m.Status != store.MessageDelivered {
		t.Errorf("a failed receipt after delivered changed %v status %q, want unchanged delivered", changed, m.Status)
	}
	if _, changed, _ := h.s.StatusUpdate("twilio", "SM3", store.MessageDelivered, ""); changed {
		t.Error("a repeated delivered receipt changed the message again")
	}
	if _, changed, err := h.s.StatusUpdate("twilio", "SMnope", store.MessageDelivered, ""); changed || err != nil {
		t.Errorf("an unknown id: changed %v, %v", changed, err)
	}
	bb, _ = h.s.Broadcast(h.ws, b.ID)
	if bb.TotalDelivered != 2 {
		t.Errorf("broadcast delivered %d after the receipt, want 2", bb.TotalDelivered)
	}
}

func TestBroadcastWhoseEveryCopyFailsIsFailed(t *testing.T) {
	f := newFixture(t)
	b, err := f.s.SendBroadcast(f.ws, store.BroadcastInput{From: f.number, Recipients: []string{"+14155550301", "+14155550302"}, Text: "x"})
	if err != nil {
		t.Fatal(err)
	}
	var outs []store.Outcome
	for _, id := range claimedIDs(claimAll(t, f.s, 10)) {
		outs = append(outs, store.Outcome{WorkspaceID: f.ws, MessageID: id, Provider: "sandbox", Err: "refused"})
	}
	if err := f.s.RecordOutcomes(outs); err != nil {
		t.Fatal(err)
	}
	bb, _ := f.s.Broadcast(f.ws, b.ID)
	if bb.Status != store.BroadcastFailed || bb.TotalFailed != 2 {
		t.Errorf("broadcast status %q failed %d, want failed 2", bb.Status, bb.TotalFailed)
	}
}

func TestRequeueSendingAfterACrash(t *testing.T) {
	path := filepath.Join(t.TempDir(), "sb.db")
	s := openStoreAt(t, path, store.Options{})
	f := newFixtureOn(t, s)
	m := send(t, f, "+14155550123", "hi")
	claimAll(t, s, 10)
	s.Close() // the process dies with the message at the carrier

	s = openStoreAt(t, path, store.Options{})
	if d := s.OutboxDepth(); d != 1 {
		t.Errorf("OutboxDepth after reopen = %d, want 1 (counted at open)", d)
	}
	n, err := s.RequeueSending()
	if err != nil || n != 1 {
		t.Fatalf("RequeueSending = %d, %v; want 1", n, err)
	}
	got, _ := s.Message(f.ws, m.ID)
	if got.Status != store.MessageQueued {
		t.Errorf("status after requeue %q, want queued", got.Status)
	}
	if ids := claimedIDs(claimAll(t, s, 10)); len(ids) != 1 || ids[0] != m.ID {
		t.Errorf("claim after requeue = %v, want %s", ids, m.ID)
	}
}

func TestInboundKeywords(t *testing.T) {
	h := newHookFixture(t)
	if _, err := h.s.Subscribe(h.ws, h.user.ID, store.EventOptOutCreated, "https://hooks.example.com/o"); err != nil {
		t.Fatal(err)
	}
	from := "+14155550199"
	r, err := h.s.ReceiveMessage(h.ws, store.InboundMessage{From: from, To: h.number, Text: "Stop", Keyword: store.KeywordStop, ProviderID: "SM1", Provider: "twilio"})
	if err != nil || r.OptOut == nil || r.Reply == nil {
		t.Fatalf("STOP = %+v, %v; want an opt-out and a reply", r, err)
	}
	if r.OptOut.Reason != store.OptOutKeyword {
		t.Errorf("opt-out reason %q, want keyword", r.OptOut.Reason)
	}
	if r.Reply.Priority != store.PriorityHigh || r.Reply.To != from || r.Reply.Text != "Acme: you are unsubscribed and will get no more messages. Reply START to resubscribe." {
		t.Errorf("reply = priority %q to %q text %q", r.Reply.Priority, r.Reply.To, r.Reply.Text)
	}
	if ev, _, _ := store.RecordedEvents(h.s, h.ws, store.EventOptOutCreated); len(ev) != 1 {
		t.Errorf("opt_out.created fired %d times, want 1", len(ev))
	}
	// Twilio retries: the same MessageSid is recorded once, with no second reply.
	again, err := h.s.ReceiveMessage(h.ws, store.InboundMessage{From: from, To: h.number, Text: "Stop", Keyword: store.KeywordStop, ProviderID: "SM1", Provider: "twilio"})
	if err != nil || !again.Duplicate || again.Message.ID != r.Message.ID || again.Reply != nil {
		t.Errorf("repeated MessageSid = %+v, %v; want the same message, a duplicate, no reply", again, err)
	}
	// A send to the opted-out number is refused; START removes the opt-out.
	if _, err := h.s.SendMessage(h.ws, store.SendInput{From: h.number, To: []string{from}, Text: "x"}); err == nil {
		t.Error("a send after STOP was accepted")
	}
	r, err = h.s.ReceiveMessage(h.ws, store.InboundMessage{From: from, To: h.number, Text: "start", Keyword: store.KeywordStart})
	if err != nil || !r.Removed || r.Reply == nil {
		t.Fatalf("START = %+v, %v; want the opt-out removed and a reply", r, err)
	}
	if out, _ := h.s.IsOptedOut(h.ws, from); out {
		t.Error("still opted out after START")
	}
	// An empty reply setting sends no reply; a set one replaces the default.
	if _, err := h.s.UpdateWorkspace(h.ws, store.WorkspaceSettings{HelpReply: ptr(""), StopReply: ptr("Bye from Acme")}); err != nil {
		t.Fatal(err)
	}
	r, _ = h.s.ReceiveMessage(h.ws, store.InboundMessage{From: from, To: h.number, Text: "help", Keyword: store.KeywordHelp})
	if r.Reply != nil {
		t.Errorf("HELP with an empty reply setting queued %q", r.Reply.Text)
	}
	r, _ = h.s.ReceiveMessage(h.ws, store.InboundMessage{From: from, To: h.number, Text: "quit", Keyword: store.KeywordStop})
	if r.Reply == nil || r.Reply.Text != "Bye from Acme" {
		t.Errorf("STOP reply = %+v, want the workspace's own text", r.Reply)
	}
}

func TestInboundFromABlockedNumberIsStoredSilently(t *testing.T) {
	h := newHookFixture(t)
	if _, err := h.s.Subscribe(h.ws, h.user.ID, store.EventMessageReceived, "https://hooks.example.com/rx"); err != nil {
		t.Fatal(err)
	}
	from := "+14155550199"
	first, _ := h.s.ReceiveMessage(h.ws, store.InboundMessage{From: from, To: h.number, Text: "hi"})
	if err := store.SetConversationStatus(h.s, h.ws, first.Message.ConversationID, store.ConversationClosed); err != nil {
		t.Fatal(err)
	}
	if err := h.s.SetBlocked(h.ws, h.user.ID, from, true); err != nil {
		t.Fatal(err)
	}
	r, err := h.s.ReceiveMessage(h.ws, store.InboundMessage{From: from, To: h.number, Text: "STOP", Keyword: store.KeywordStop})
	if err != nil || !r.Blocked || r.Reply != nil || r.OptOut != nil {
		t.Fatalf("blocked inbound = %+v, %v; want stored only", r, err)
	}
	if msgs, _ := h.s.ConversationMessages(h.ws, first.Message.ConversationID); len(msgs) != 2 {
		t.Errorf("conversation holds %d messages, want 2 (the blocked one stored)", len(msgs))
	}
	if c, _ := h.s.Conversation(h.ws, first.Message.ConversationID); c.Status != store.ConversationClosed {
		t.Errorf("conversation status %q after a blocked text, want it left closed", c.Status)
	}
	if ev, _, _ := store.RecordedEvents(h.s, h.ws, store.EventMessageReceived); len(ev) != 1 {
		t.Errorf("message.received fired %d times, want 1 (not for the blocked text)", len(ev))
	}
	if err := h.s.SetBlocked(h.ws, h.user.ID, from, false); err != nil {
		t.Fatal(err)
	}
	if r, _ := h.s.ReceiveMessage(h.ws, store.InboundMessage{From: from, To: h.number, Text: "again"}); r.Blocked {
		t.Error("still blocked after unblocking")
	}
}

func TestNumbersAreUniqueAcrossTheInstallation(t *testing.T) {
	f := newFixture(t)
	g := newFixtureOn(t, f.s)
	_, err := g.s.AddNumber(g.ws, f.number, "Mine too")
	wantKind(t, err, store.ErrConflict, "number "+f.number+" already belongs to another workspace")
	n, err := f.s.NumberByPhone(f.number)
	if err != nil || n.WorkspaceID != f.ws {
		t.Errorf("NumberByPhone = %+v, %v; want the first workspace's", n, err)
	}
	off := false
	if _, err := f.s.UpdateNumber(f.ws, n.ID, nil, &off, nil); err != nil {
		t.Fatal(err)
	}
	_, err = f.s.NumberByPhone(f.number)
	wantKind(t, err, store.ErrNotFound, "")
	rate := -1.0
	_, err = f.s.CreateNumber(f.ws, store.NumberInput{Phone: "+14155550777", Carrier: "carrier-pigeon", Rate: &rate})
	wantFields(t, err, "carrier", "rate")
}

func TestListMessagesNewestFirst(t *testing.T) {
	f := newFixture(t)
	a := send(t, f, "+14155550123", "one")
	in, _ := f.s.ReceiveMessage(f.ws, store.InboundMessage{From: "+14155550123", To: f.number, Text: "two"})
	c := send(t, f, "+14155550124", "three")
	all, err := f.s.ListMessages(f.ws, store.MessageFilter{Limit: 10})
	if err != nil || len(all) != 3 || all[0].ID != c.ID || all[2].ID != a.ID {
		t.Fatalf("ListMessages = %d, %v; want 3 newest first", len(all), err)
	}
	inbound, _ := f.s.ListMessages(f.ws, store.MessageFilter{Direction: "inbound", Limit: 10})
	if len(inbound) != 1 || inbound[0].ID != in.Message.ID {
		t.Errorf("inbound = %v, want the one inbound text", inbound)
	}
	conv, _ := f.s.ListMessages(f.ws, store.MessageFilter{ConversationID: a.ConversationID, Limit: 1})
	if len(conv) != 1 || conv[0].ID != in.Message.ID {
		t.Errorf("conversation, limit 1 = %v, want its newest (the inbound text)", conv)
	}
	_, err = f.s.ListMessages(f.ws, store.MessageFilter{ConversationID: "01JZZZZZZZZZZZZZZZZZZZZZZZ", Limit: 1})
	wantKind(t, err, store.ErrNotFound, "conversation not found")
	g := newFixtureOn(t, f.s)
	_, err = g.s.ListMessages(g.ws, store.MessageFilter{ConversationID: a.ConversationID, Limit: 1})
	wantKind(t, err, store.ErrNotFound, "conversation not found")
}

// TestMigrationFromSchema1 opens a file laid out as schema 1 wrote it: one phone in two
// workspaces, the old outbox (priority|message id → ws|message id), a broadcast left sending.
func TestMigrationFromSchema1(t *testing.T) {
	path := filepath.Join(t.TempDir(), "old.db")
	s := openStoreAt(t, path, store.Options{})
	f := newFixtureOn(t, s)
	g := newFixtureOn(t, s)
	m := send(t, f, "+14155550123", "queued before the upgrade")
	b, err := s.SendBroadcast(f.ws, store.BroadcastInput{From: f.number, Recipients: []string{"+14155550301"}, Text: "x"})
	if err != nil {
		t.Fatal(err)
	}
	var gNumber store.PhoneNumber
	err = s.DB().Update(func(tx *bolt.Tx) error {
		if err := store.DowngradeToSchema1(kv.Wrap(tx, 0, nil)); err != nil {
			return err
		}
		// Schema 1 let the second workspace hold the first one's phone too.
		gNumber = store.PhoneNumber{ID: s.NewID(), WorkspaceID: g.ws, Phone: f.number, Active: true, CreatedAt: s.Now()}
		return store.PutRawNumber(kv.Wrap(tx, 0, nil), gNumber)
	})
	if err != nil {
		t.Fatal(err)
	}
	s.Close()

	s = openStoreAt(t, path, store.Options{})
	if v, _ := s.SchemaVersion(); v != store.SchemaVersion {
		t.Fatalf("schema after open = %d, want %d", v, store.SchemaVersion)
	}
	if n, err := s.NumberByPhone(f.number); err != nil || n.WorkspaceID != f.ws {
		t.Errorf("NumberByPhone after migration = %+v, %v; want the older number's workspace", n, err)
	}
	if n, _ := s.Number(g.ws, gNumber.ID); n.Active {
		t.Error("the younger duplicate number is still active")
	}
	ids := claimedIDs(claimAll(t, s, 10))
	if len(ids) != 2 || ids[0] != m.ID {
		t.Errorf("claim after migration = %v, want the send %s then the broadcast copy", ids, m.ID)
	}
	if bb, _ := s.Broadcast(f.ws, b.ID); bb.Outstanding != 1 {
		t.Errorf("broadcast outstanding after migration = %d, want 1", bb.Outstanding)
	}
}

// TestClaimLeavesItsBroadcastAlone: claiming copies reads their broadcast (is it cancelled?)
// but does not rewrite it; only outcomes change it.
func TestClaimLeavesItsBroadcastAlone(t *testing.T) {
	clock := testutil.NewClock(time.Date(2026, 11, 22, 12, 0, 0, 0, time.UTC))
	f := newFixtureOn(t, openStore(t, store.Options{Now: clock.Now}))
	b, err := f.s.SendBroadcast(f.ws, store.BroadcastInput{From: f.number, Text: "x", Recipients: []string{"+14155550301"}})
	if err != nil {
		t.Fatal(err)
	}
	before, _ := f.s.Broadcast(f.ws, b.ID)
	clock.Advance(time.Minute)
	if ids := claimedIDs(claimAll(t, f.s, 10)); len(ids) != 1 {
		t.Fatalf("claimed %v, want the copy", ids)
	}
	if after, _ := f.s.Broadcast(f.ws, b.ID); !after.UpdatedAt.Equal(before.UpdatedAt) {
		t.Errorf("a claim rewrote the broadcast (updatedAt %v → %v)", before.UpdatedAt, after.UpdatedAt)
	}
}
