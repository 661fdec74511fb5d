package store_test

import (
	"fmt"
	"slices"
	"testing"
	"time"

	"switchboard/store"
)

func TestGroupsAreUniqueByNameAndAddingIsIdempotent(t *testing.T) {
	f := newFixture(t)
	g, err := f.s.CreateGroup(f.ws, "VIP")
	if err != nil {
		t.Fatal(err)
	}
	_, err = f.s.CreateGroup(f.ws, "vip")
	wantKind(t, err, store.ErrConflict, `a group named "vip" already exists`)
	_, err = f.s.CreateGroup(f.ws, "  ")
	wantFields(t, err, "name")
	c1, g1, err := f.s.AddToGroup(f.ws, "vip", "+14155550123")
	if err != nil || g1.ID != g.ID {
		t.Fatalf("AddToGroup by another case of the name = group %s, %v; want %s", g1.ID, err, g.ID)
	}
	c2, g2, err := f.s.AddToGroup(f.ws, "VIP", "+14155550123")
	if err != nil || c2.ID != c1.ID || g2.Size != 1 {
		t.Errorf("adding twice: contact %s size %d, %v; want the same contact, size 1", c2.ID, g2.Size, err)
	}
	_, g3, err := f.s.AddToGroup(f.ws, "Newsletter", "+14155550124")
	if err != nil || g3.Name != "Newsletter" || g3.Size != 1 {
		t.Errorf("AddToGroup to a new name = %+v, %v; want the group created with 1 member", g3, err)
	}
	list, _ := f.s.Groups(f.ws)
	if len(list) != 2 || list[0].Name != "Newsletter" || list[1].Name != "VIP" {
		t.Errorf("Groups = %+v, want Newsletter, VIP (by name)", list)
	}
	if gs, _ := f.s.ContactGroups(f.ws, c1.ID); len(gs) != 1 || gs[0].ID != g.ID {
		t.Errorf("ContactGroups = %+v, want VIP", gs)
	}
	if removed, err := f.s.RemoveFromGroup(f.ws, g.ID, c1.ID); !removed || err != nil {
		t.Errorf("RemoveFromGroup = %v, %v", removed, err)
	}
	if g, _ := f.s.Group(f.ws, g.ID); g.Size != 0 {
		t.Errorf("size after removal %d, want 0", g.Size)
	}
	other := newFixtureOn(t, f.s)
	_, err = other.s.Group(other.ws, g.ID)
	wantKind(t, err, store.ErrNotFound, "group not found")
	if err := f.s.DeleteGroup(f.ws, g3.ID); err != nil {
		t.Fatal(err)
	}
	if gs, _ := f.s.Groups(f.ws); len(gs) != 1 {
		t.Errorf("after delete %d groups, want 1", len(gs))
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
	clock := &testClock{t: time.Date(2026, 11, 22, 12, 0, 0, 0, time.UTC)}
	f := newFixtureOn(t, openStore(t, store.Options{Now: clock.Now}))
	g, _ := f.s.CreateGroup(f.ws, "Later")
	at := clock.t.Add(time.Hour)
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
	due, next, _ := f.s.DueBroadcasts(clock.t)
	if len(due) != 0 || !next.Equal(at) {
		t.Fatalf("due before the time = %v next %v, want none and %v", due, next, at)
	}
	clock.Advance(time.Hour)
	due, _, _ = f.s.DueBroadcasts(clock.t)
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
	if due, _, _ := f.s.DueBroadcasts(clock.t.Add(time.Hour)); len(due) != 0 {
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

func TestQuietHoursHoldCopiesUntilTheyEnd(t *testing.T) {
	// 03:00 UTC is 22:00 in New York (EST) and 19:00 in Los Angeles.
	clock := &testClock{t: time.Date(2026, 11, 23, 3, 0, 0, 0, time.UTC)}
	f := newFixtureOn(t, openStore(t, store.Options{Now: clock.Now}))
	if _, err := f.s.UpdateWorkspace(f.ws, store.WorkspaceSettings{QuietHours: ptr("21:00-08:00"), TimeZone: ptr("Europe/London")}); err != nil {
		t.Fatal(err)
	}
	b, err := f.s.SendBroadcast(f.ws, store.BroadcastInput{From: f.number, Text: "x",
		Recipients: []string{"+12125550100", "+14155550100"}})
	if err != nil {
		t.Fatal(err)
	}
	msgs, _ := f.s.ListMessages(f.ws, store.MessageFilter{Limit: 10})
	status := map[string]string{}
	for _, m := range msgs {
		status[m.To] = m.Status
	}
	if status["+12125550100"] != store.MessageScheduled || status["+14155550100"] != store.MessageQueued {
		t.Errorf("copy statuses %v, want New York held (scheduled) and Los Angeles queued", status)
	}
	// Only the Los Angeles copy can be claimed now; the held one is not in the ready queue.
	if d := f.s.OutboxDepth(); d != 2 {
		t.Errorf("OutboxDepth = %d, want 2 (one ready, one held)", d)
	}
	cl := claimAll(t, f.s, 10)
	if ids := claimedIDs(cl); len(ids) != 1 || cl[0].Messages[0].To != "+14155550100" {
		t.Fatalf("claimed %v, want only the Los Angeles copy", ids)
	}
	// The New York copy joins the queue at 08:00 New York time (13:00 UTC).
	_, next, _ := f.s.PromoteDue(clock.t, 10)
	if want := time.Date(2026, 11, 23, 13, 0, 0, 0, time.UTC); !next.Equal(want) {
		t.Errorf("held until %v, want %v", next, want)
	}
	clock.t = time.Date(2026, 11, 23, 13, 0, 0, 0, time.UTC)
	if moved, _, _ := f.s.PromoteDue(clock.t, 10); moved != 1 {
		t.Fatalf("PromoteDue at 08:00 New York moved %d, want 1", moved)
	}
	if ids := claimedIDs(claimAll(t, f.s, 10)); len(ids) != 1 {
		t.Errorf("after the quiet hours claimed %v, want the held copy", ids)
	}
	// Single sends are never held.
	m := send(t, f, "+12125550199", "urgent")
	if m.Status != store.MessageQueued {
		t.Errorf("a 1:1 send inside quiet hours is %q, want queued", m.Status)
	}
	_ = b
	_, err = f.s.UpdateWorkspace(f.ws, store.WorkspaceSettings{QuietHours: ptr("25:00-08:00"), TimeZone: ptr("Mars/Olympus")})
	wantFields(t, err, "quietHours", "timeZone")
}

func TestSingleSendRendersMergeTags(t *testing.T) {
	f := newFixture(t)
	f.contact(t, "+14155550123", "Ana", "Lima")
	m := send(t, f, "+14155550123", "Hi {{firstName}} {{lastName}}!")
	if m.Text != "Hi Ana Lima!" || m.Segments != 1 {
		t.Errorf("rendered %q segments %d", m.Text, m.Segments)
	}
	_, err := f.s.SendMessage(f.ws, store.SendInput{From: f.number, To: []string{"+14155550123"}, Text: "{{nope}}"})
	wantFields(t, err, "text")
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

// TestInboxPageScansABoundedNumber: a filter that matches little returns what a bounded walk
// found and a cursor to go on; following the cursors reaches every match.
func TestInboxPageScansABoundedNumber(t *testing.T) {
	f := newFixture(t)
	defer store.SetInboxScan(5)()
	closed, _, err := f.s.CreateConversation(f.ws, f.number, "+14155550300")
	if err != nil {
		t.Fatal(err)
	}
	if err := store.SetConversationStatus(f.s, f.ws, closed.ID, store.ConversationClosed); err != nil {
		t.Fatal(err)
	}
	for i := range 12 {
		send(t, f, fmt.Sprintf("+1415555031%d", i%10)+fmt.Sprint(i/10), "newer")
	}
	var found []string
	cursor, pages := "", 0
	for {
		items, next, err := f.s.InboxPage(f.ws, store.InboxFilter{Status: store.ConversationClosed, Before: cursor})
		if err != nil {
			t.Fatal(err)
		}
		pages++
		for _, it := range items {
			found = append(found, it.Conversation.ID)
		}
		if next == "" {
			break
		}
		if pages > 10 {
			t.Fatal("the cursors never end")
		}
		cursor = next
	}
	if len(found) != 1 || found[0] != closed.ID || pages < 3 {
		t.Errorf("found %v in %d pages, want the closed conversation after several bounded pages", found, pages)
	}
}
