package store_test

import (
	"errors"
	"fmt"
	"slices"
	"sync"
	"testing"
	"time"

	"switchboard/internal/testutil"
	"switchboard/store"
)

func TestSendBroadcast(t *testing.T) {
	clock := testutil.NewClock(time.Date(2026, 6, 1, 8, 0, 0, 0, time.UTC))
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

func TestBroadcastTargetsUnionMinusExclusions(t *testing.T) {
	f := newFixture(t)
	for _, p := range []string{"+14155550001", "+14155550002", "+14155550003"} {
		if _, _, err := f.s.AddToGroup(f.ws, "A", p); err != nil {
			t.Fatal(err)
		}
	}
	if _, _, err := f.s.AddToGroup(f.ws, "Exclude", "+14155550002"); err != nil {
		t.Fatal(err)
	}
	a, _ := f.s.GroupByName(f.ws, "A")
	ex, _ := f.s.GroupByName(f.ws, "Exclude")
	conv, _, err := f.s.CreateConversation(f.ws, f.number, "+14155550009")
	if err != nil {
		t.Fatal(err)
	}
	exConv, _, _ := f.s.CreateConversation(f.ws, f.number, "+14155550003")
	if _, _, err := f.s.CreateOptOut(f.ws, "", "+14155550001", store.OptOutAPI); err != nil {
		t.Fatal(err)
	}
	b, err := f.s.SendBroadcast(f.ws, store.BroadcastInput{From: f.number, Text: "Hi {{firstName|there}}",
		Recipients: []string{"+14155550100", "+14155550003"},
		GroupIDs:   []string{a.ID}, ConversationIDs: []string{conv.ID},
		ExcludeGroupIDs: []string{ex.ID}, ExcludeConversationIDs: []string{exConv.ID}})
	if err != nil {
		t.Fatal(err)
	}
	// Union: 100, 003, 001, 002, 009; minus 002 (group) and 003 (conversation); 001 opted out.
	if want := []string{"+14155550100", "+14155550009"}; !slices.Equal(b.Recipients, want) {
		t.Errorf("recipients = %v, want %v (pasted first, then the others)", b.Recipients, want)
	}
	if b.TotalOptedOut != 1 || b.Status != store.BroadcastSending || b.TotalQueued != 2 {
		t.Errorf("broadcast opted out %d queued %d status %q, want 1, 2, sending", b.TotalOptedOut, b.TotalQueued, b.Status)
	}
	msgs, _ := f.s.ListMessages(f.ws, store.MessageFilter{Limit: 10})
	for _, m := range msgs {
		if m.BroadcastID == b.ID && m.Text != "Hi there" {
			t.Errorf("copy text %q, want the fallback rendered", m.Text)
		}
	}
	// Unknown and foreign ids are refused naming the field; nothing is stored.
	other := newFixtureOn(t, f.s)
	theirs, _ := other.s.CreateGroup(other.ws, "Theirs")
	_, err = f.s.SendBroadcast(f.ws, store.BroadcastInput{From: f.number, Text: "x",
		GroupIDs: []string{theirs.ID}, ExcludeConversationIDs: []string{"01JZZZZZZZZZZZZZZZZZZZZZZZ"}})
	wantFields(t, err, "excludeConversationIds", "groupIds")
	_, err = f.s.SendBroadcast(f.ws, store.BroadcastInput{From: f.number, Text: "Hi {{nickname}}", Recipients: []string{"+14155550100"}})
	wantFields(t, err, "text")
	if list, _ := f.s.Broadcasts(f.ws, 10); len(list) != 1 {
		t.Errorf("refused broadcasts stored: %d broadcasts, want 1", len(list))
	}
}

func TestScheduledBroadcastResolvesAtItsTime(t *testing.T) {
	clock := testutil.NewClock(time.Date(2026, 11, 22, 12, 0, 0, 0, time.UTC))
	f := newFixtureOn(t, openStore(t, store.Options{Now: clock.Now}))
	g, _ := f.s.CreateGroup(f.ws, "Later")
	at := clock.Now().Add(time.Hour)
	b, err := f.s.SendBroadcast(f.ws, store.BroadcastInput{From: f.number, Text: "x", SendAt: &at,
		GroupIDs: []string{g.ID}})
	if err != nil || b.Status != store.BroadcastScheduled || len(b.Recipients) != 0 || b.Recipients == nil {
		t.Fatalf("scheduled = %+v, %v; want scheduled with recipients []", b, err)
	}
	if d := f.s.OutboxDepth(); d != 0 {
		t.Errorf("a scheduled broadcast queued %d messages", d)
	}
	// Members added before the time are reached: recipients are resolved then.
	for i := range 3 {
		if _, _, err := f.s.AddToGroup(f.ws, "Later", fmt.Sprintf("+1415555020%d", i)); err != nil {
			t.Fatal(err)
		}
	}
	due, next, _ := f.s.DueBroadcasts(clock.Now())
	if len(due) != 0 || !next.Equal(at) {
		t.Fatalf("due before the time = %v next %v, want none and %v", due, next, at)
	}
	clock.Advance(time.Hour)
	due, _, _ = f.s.DueBroadcasts(clock.Now())
	if len(due) != 1 || due[0].ID != b.ID {
		t.Fatalf("due at the time = %v, want %s", due, b.ID)
	}
	if err := f.s.StartScheduledBroadcast(due[0]); err != nil {
		t.Fatal(err)
	}
	got, _ := f.s.Broadcast(f.ws, b.ID)
	if got.Status != store.BroadcastSending || got.TotalQueued != 3 {
		t.Errorf("started broadcast status %q queued %d, want sending 3", got.Status, got.TotalQueued)
	}
	if due, _, _ := f.s.DueBroadcasts(clock.Now().Add(time.Hour)); len(due) != 0 {
		t.Errorf("a started broadcast is still due: %v", due)
	}
}

func TestCancelBroadcast(t *testing.T) {
	f := newFixture(t)
	var recipients []string
	for i := range 50 {
		recipients = append(recipients, fmt.Sprintf("+1415666%04d", i))
	}
	b, err := f.s.SendBroadcast(f.ws, store.BroadcastInput{From: f.number, Text: "x", Recipients: recipients})
	if err != nil {
		t.Fatal(err)
	}
	one := send(t, f, "+14155550123", "not a copy")
	// Ten copies reach the carrier first: they keep their state.
	cl, _ := f.s.ClaimOutbound(10, 10, "", func(*store.PhoneNumber) int { return 10 })
	sending := claimedIDs(cl)
	got, err := f.s.CancelBroadcast(f.ws, b.ID)
	if err != nil || got.Status != store.BroadcastCancelled || got.CancelledAt == nil {
		t.Fatalf("CancelBroadcast = %+v, %v", got, err)
	}
	msgs, _ := f.s.ListMessages(f.ws, store.MessageFilter{Limit: 100})
	counts := map[string]int{}
	for _, m := range msgs {
		if m.BroadcastID == b.ID {
			counts[m.Status]++
		}
	}
	inFlight := 0
	for _, id := range sending {
		if id != one.ID {
			inFlight++
		}
	}
	if counts[store.MessageCancelled] != 50-inFlight || counts[store.MessageSending] != inFlight {
		t.Errorf("copy statuses %v, want %d cancelled and %d still sending", counts, 50-inFlight, inFlight)
	}
	if m, _ := f.s.Message(f.ws, one.ID); m.Status == store.MessageCancelled {
		t.Error("cancelling a broadcast cancelled a 1:1 send")
	}
	if d := f.s.OutboxDepth(); d != int64(len(sending)+1-boolInt(slices.Contains(sending, one.ID))) {
		t.Errorf("OutboxDepth after cancel = %d", d)
	}
	_, err = f.s.CancelBroadcast(f.ws, b.ID)
	wantKind(t, err, store.ErrConflict, "broadcast is cancelled: it can no longer be cancelled")
	_, err = f.s.CancelBroadcast(f.ws, "01JZZZZZZZZZZZZZZZZZZZZZZZ")
	wantKind(t, err, store.ErrNotFound, "broadcast not found")
	// A scheduled broadcast cancelled never starts.
	clockAt := f.s.Now().Add(time.Hour)
	s2, _ := f.s.SendBroadcast(f.ws, store.BroadcastInput{From: f.number, Text: "x", SendAt: &clockAt, Recipients: recipients[:2]})
	if _, err := f.s.CancelBroadcast(f.ws, s2.ID); err != nil {
		t.Fatal(err)
	}
	if due, _, _ := f.s.DueBroadcasts(clockAt.Add(time.Minute)); len(due) != 0 {
		t.Errorf("a cancelled scheduled broadcast is still due")
	}
}

func boolInt(b bool) int {
	if b {
		return 1
	}
	return 0
}

func TestResumeBroadcastsFinishesACutOffFanOut(t *testing.T) {
	path := t.TempDir() + "/sb.db"
	s := openStoreAt(t, path, store.Options{})
	f := newFixtureOn(t, s)
	b, err := s.SendBroadcast(f.ws, store.BroadcastInput{From: f.number, Text: "x", Recipients: []string{"+14155550301"}})
	if err != nil {
		t.Fatal(err)
	}
	if err := store.LeavePending(s, f.ws, b.ID, []string{"+14155550302", "+14155550303"}); err != nil {
		t.Fatal(err)
	}
	s.Close()
	s = openStoreAt(t, path, store.Options{})
	n, err := s.ResumeBroadcasts()
	if err != nil || n != 1 {
		t.Fatalf("ResumeBroadcasts = %d, %v; want 1", n, err)
	}
	got, _ := s.Broadcast(f.ws, b.ID)
	if got.TotalQueued != 3 || got.Fanout || got.Outstanding != 3 {
		t.Errorf("after resume queued %d fanout %v outstanding %d, want 3 false 3", got.TotalQueued, got.Fanout, got.Outstanding)
	}
	if n, _ := s.ResumeBroadcasts(); n != 0 {
		t.Errorf("a second resume found %d broadcasts, want 0", n)
	}
}
