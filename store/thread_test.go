package store_test

import (
	"fmt"
	"testing"
	"time"

	"switchboard/internal/testutil"
	"switchboard/store"
)

func itemTexts(w store.ThreadWindow) []string {
	var out []string
	for _, it := range w.Items {
		switch {
		case it.Message != nil:
			out = append(out, it.Message.Text)
		case it.Comment != nil:
			out = append(out, "comment:"+it.Comment.Text)
		case it.Entry != nil:
			out = append(out, "entry:"+it.Entry.Kind)
		}
	}
	return out
}

// TestThreadWindowOpensAtTheNewest: 120 items open at the newest 50, oldest first; "Show
// earlier" walks back 50 at a time to the first; messages, comments and entries interleave.
func TestThreadWindowOpensAtTheNewest(t *testing.T) {
	f := newFixture(t)
	const to = "+14155550123"
	var conv string
	for i := range 118 {
		switch {
		case i == 60:
			c, err := f.s.CreateComment(f.ws, store.CommentInput{From: f.number, To: to, Text: "note", AuthorID: f.user.ID})
			if err != nil {
				t.Fatal(err)
			}
			conv = c.ConversationID
		case i%2 == 0:
			conv = send(t, f, to, fmt.Sprintf("m%03d", i)).ConversationID
		default:
			receive(t, f, to, fmt.Sprintf("m%03d", i))
		}
	}
	closed := store.ConversationClosed
	if _, err := f.s.UpdateConversation(f.ws, conv, store.ConversationUpdate{Status: &closed, ActorID: f.user.ID}); err != nil {
		t.Fatal(err)
	}
	send(t, f, to, "m118")

	w, err := f.s.Thread(f.ws, conv, store.ThreadQuery{})
	if err != nil {
		t.Fatal(err)
	}
	got := itemTexts(w)
	if len(got) != 50 || got[49] != "m118" || got[48] != "entry:status" || got[47] != "m117" || got[0] != "m070" {
		t.Fatalf("the first window = %d items %v…%v, want 50 from m070 to m118 with the close entry", len(got), got[:2], got[47:])
	}
	if w.Earlier == "" {
		t.Fatal("the first window has no Earlier cursor")
	}
	w2, err := f.s.Thread(f.ws, conv, store.ThreadQuery{Before: w.Earlier})
	if err != nil {
		t.Fatal(err)
	}
	got2 := itemTexts(w2)
	if len(got2) != 50 || got2[49] != "m069" || got2[0] != "m020" || !contains(got2, "comment:note") {
		t.Fatalf("the second window = %v, want m020…m069 with the comment", got2)
	}
	w3, _ := f.s.Thread(f.ws, conv, store.ThreadQuery{Before: w2.Earlier})
	if got3 := itemTexts(w3); len(got3) != 20 || got3[0] != "m000" || w3.Earlier != "" {
		t.Fatalf("the last window = %d items from %v, earlier %q; want the first 20, no earlier", len(got3), got3[:1], w3.Earlier)
	}
	// From an anchor: everything since, never more than ThreadMax.
	wf, _ := f.s.Thread(f.ws, conv, store.ThreadQuery{From: w.Items[0].ID})
	if len(wf.Items) != 50 || wf.Earlier != "" {
		t.Errorf("from the first window's anchor: %d items, earlier %q; want the same 50", len(wf.Items), wf.Earlier)
	}
	wa, _ := f.s.Thread(f.ws, conv, store.ThreadQuery{From: w3.Items[0].ID})
	if len(wa.Items) != store.ThreadPage || wa.Earlier == "" {
		t.Errorf("from the first item of 120: %d items, earlier %q; want the newest window instead", len(wa.Items), wa.Earlier)
	}
	if wl, _ := f.s.Thread(f.ws, conv, store.ThreadQuery{Limit: 1000}); len(wl.Items) != store.ThreadMax {
		t.Errorf("a window asked for 1000 items has %d, want at most %d", len(wl.Items), store.ThreadMax)
	}
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}

// TestBroadcastCopiesStartClosed: a copy's new conversation is closed, a copy to an existing
// conversation leaves its status, and the contact's reply opens it.
func TestBroadcastCopiesStartClosed(t *testing.T) {
	f := newFixture(t)
	existing := send(t, f, "+14155550201", "hello")
	snoozed := store.ConversationSnoozed
	if _, err := f.s.UpdateConversation(f.ws, existing.ConversationID, store.ConversationUpdate{Status: &snoozed}); err != nil {
		t.Fatal(err)
	}
	if _, err := f.s.SendBroadcast(f.ws, store.BroadcastInput{From: f.number, Recipients: []string{"+14155550201", "+14155550202"}, Text: "sale"}); err != nil {
		t.Fatal(err)
	}
	if got := searchPhones(t, f, store.InboxFilter{Status: store.ConversationOpen}); len(got) != 0 {
		t.Errorf("open conversations after a broadcast: %v, want none", got)
	}
	if c, _ := f.s.Conversation(f.ws, existing.ConversationID); c.Status != store.ConversationSnoozed {
		t.Errorf("a copy to a snoozed conversation made it %s", c.Status)
	}
	receive(t, f, "+14155550202", "what sale?")
	if got := searchPhones(t, f, store.InboxFilter{Status: store.ConversationOpen}); len(got) != 1 || got[0] != "+14155550202" {
		t.Errorf("after the reply the open ones are %v, want the replier's", got)
	}
}

// TestSnoozeWakesAtItsTime: a snooze in the past is refused; a snoozed conversation reopens
// when the (injected) clock passes its time, with an entry; the contact's text wakes it early.
func TestSnoozeWakesAtItsTime(t *testing.T) {
	clock := testutil.NewClock(mustTime(t, "2026-03-02T10:00:00Z"))
	f := newFixtureOn(t, openStore(t, store.Options{Now: clock.Now}))
	a := send(t, f, "+14155550301", "a").ConversationID
	b := send(t, f, "+14155550302", "b").ConversationID
	snoozed := store.ConversationSnoozed
	past := clock.Now().Add(-time.Minute)
	_, err := f.s.UpdateConversation(f.ws, a, store.ConversationUpdate{Status: &snoozed, SnoozeUntil: &past})
	wantFields(t, err, "snoozeUntil")
	if c, _ := f.s.Conversation(f.ws, a); c.Status != store.ConversationOpen || c.SnoozedUntil != nil {
		t.Fatalf("a refused snooze stored %s until %v", c.Status, c.SnoozedUntil)
	}
	until := clock.Now().Add(time.Hour)
	for _, id := range []string{a, b} {
		if _, err := f.s.UpdateConversation(f.ws, id, store.ConversationUpdate{Status: &snoozed, SnoozeUntil: &until, ActorID: f.user.ID}); err != nil {
			t.Fatal(err)
		}
	}
	receive(t, f, "+14155550302", "are you there?") // b wakes now
	if n, next, err := f.s.WakeSnoozed(clock.Now(), 100); err != nil || n != 0 || !next.Equal(until) {
		t.Fatalf("before the time: woke %d, next %v, %v; want 0 and %v", n, next, err, until)
	}
	if c, _ := f.s.Conversation(f.ws, a); c.Status != store.ConversationSnoozed {
		t.Fatalf("a is %s before its time", c.Status)
	}
	clock.Advance(time.Hour)
	if n, next, err := f.s.WakeSnoozed(clock.Now(), 100); err != nil || n != 1 || !next.IsZero() {
		t.Fatalf("at the time: woke %d, next %v, %v; want 1 and none left", n, next, err)
	}
	c, _ := f.s.Conversation(f.ws, a)
	if c.Status != store.ConversationOpen || c.SnoozedUntil != nil {
		t.Errorf("after its time a is %s until %v, want open", c.Status, c.SnoozedUntil)
	}
	entries, _ := f.s.ConversationEntries(f.ws, a)
	if len(entries) != 2 || entries[0].Kind != store.EntryStatus || entries[0].UserID != f.user.ID ||
		!entries[0].SnoozeUntil.Equal(until) || entries[1].Kind != store.EntrySnoozeUp {
		t.Errorf("a's entries = %+v, want the snooze by the user then its end", entries)
	}
	if cb, _ := f.s.Conversation(f.ws, b); cb.Status != store.ConversationOpen || cb.SnoozedUntil != nil {
		t.Errorf("b after the contact wrote: %s until %v, want open", cb.Status, cb.SnoozedUntil)
	}
}

// TestTriageEntries: status, assignment, label and block changes are recorded with who did them.
func TestTriageEntries(t *testing.T) {
	f := newFixture(t)
	conv := send(t, f, "+14155550401", "hi").ConversationID
	closed := store.ConversationClosed
	ids := []string{f.user.ID}
	labels := []string{"vip", "billing"}
	if _, err := f.s.UpdateConversation(f.ws, conv, store.ConversationUpdate{Status: &closed, AssignedUserIDs: &ids, Labels: &labels, ActorID: f.user.ID}); err != nil {
		t.Fatal(err)
	}
	// Saving the same values again records nothing.
	if _, err := f.s.UpdateConversation(f.ws, conv, store.ConversationUpdate{Status: &closed, AssignedUserIDs: &ids, Labels: &labels, ActorID: f.user.ID}); err != nil {
		t.Fatal(err)
	}
	if err := f.s.SetBlocked(f.ws, f.user.ID, "+14155550401", true); err != nil {
		t.Fatal(err)
	}
	entries, err := f.s.ConversationEntries(f.ws, conv)
	if err != nil {
		t.Fatal(err)
	}
	var kinds []string
	for _, e := range entries {
		if e.UserID != f.user.ID {
			t.Errorf("entry %s by %q, want the acting user", e.Kind, e.UserID)
		}
		kinds = append(kinds, e.Kind)
	}
	want := []string{store.EntryStatus, store.EntryAssign, store.EntryLabels, store.EntryBlock}
	if fmt.Sprint(kinds) != fmt.Sprint(want) {
		t.Fatalf("entries %v, want %v", kinds, want)
	}
	if entries[2].Added == nil || fmt.Sprint(entries[2].Added) != "[billing vip]" || entries[1].Added[0] != f.user.ID {
		t.Errorf("label entry %+v / assign entry %+v", entries[2], entries[1])
	}
}

// TestSendLaterCancelledWhenTheContactWritesFirst: a reply sent later waits `scheduled`, the
// contact's text cancels it with the reason; another one is cancelled by hand; bad times are
// refused on sendAt.
func TestSendLaterCancelledWhenTheContactWritesFirst(t *testing.T) {
	clock := testutil.NewClock(mustTime(t, "2026-03-02T10:00:00Z"))
	f := newFixtureOn(t, openStore(t, store.Options{Now: clock.Now}))
	at := clock.Now().Add(2 * time.Hour)
	later, err := f.s.SendMessage(f.ws, store.SendInput{From: f.number, To: []string{"+14155550501"}, Text: "Following up", SendAt: at})
	if err != nil {
		t.Fatal(err)
	}
	if later.Status != store.MessageScheduled || later.SendAt == nil || !later.SendAt.Equal(at) {
		t.Fatalf("sent later: %s at %v, want scheduled at %v", later.Status, later.SendAt, at)
	}
	depth := f.s.OutboxDepth()
	// Nothing is ready to go before its time.
	if claims, err := f.s.ClaimOutbound(10, 10, "", func(*store.PhoneNumber) int { return 10 }); err != nil || len(claims) != 0 {
		t.Fatalf("claimed %v, %v before the time", claims, err)
	}
	receive(t, f, "+14155550501", "I already paid")
	m, _ := f.s.Message(f.ws, later.ID)
	if m.Status != store.MessageCancelled || m.ProviderErr != store.ReplyFirstError {
		t.Errorf("after the contact wrote: %s %q, want cancelled %q", m.Status, m.ProviderErr, store.ReplyFirstError)
	}
	if f.s.OutboxDepth() != depth-1 {
		t.Errorf("outbox depth %d, want %d", f.s.OutboxDepth(), depth-1)
	}
	clock.Advance(3 * time.Hour)
	if moved, _, _ := f.s.PromoteDue(clock.Now(), 10); moved != 0 {
		t.Errorf("a cancelled message was promoted (%d)", moved)
	}

	// Cancelled by hand; a second cancel conflicts.
	other, err := f.s.SendMessage(f.ws, store.SendInput{From: f.number, To: []string{"+14155550502"}, Text: "Tomorrow?", SendAt: clock.Now().Add(time.Hour)})
	if err != nil {
		t.Fatal(err)
	}
	if m, err := f.s.CancelScheduledMessage(f.ws, other.ConversationID, other.ID); err != nil || m.Status != store.MessageCancelled {
		t.Fatalf("cancel = %s, %v", m.Status, err)
	}
	_, err = f.s.CancelScheduledMessage(f.ws, other.ConversationID, other.ID)
	wantKind(t, err, store.ErrConflict, "")

	// One that is not cancelled goes at its time.
	third, _ := f.s.SendMessage(f.ws, store.SendInput{From: f.number, To: []string{"+14155550503"}, Text: "Later", SendAt: clock.Now().Add(time.Minute)})
	clock.Advance(time.Minute)
	if moved, _, _ := f.s.PromoteDue(clock.Now(), 10); moved != 1 {
		t.Fatalf("promoted %d at its time, want 1", moved)
	}
	claims, _ := f.s.ClaimOutbound(10, 10, "", func(*store.PhoneNumber) int { return 10 })
	if len(claims) != 1 || claims[0].Messages[0].ID != third.ID {
		t.Errorf("claimed %v, want the third message", claims)
	}

	for _, bad := range []time.Time{clock.Now().Add(-time.Second), clock.Now().AddDate(1, 0, 1)} {
		_, err := f.s.SendMessage(f.ws, store.SendInput{From: f.number, To: []string{"+14155550504"}, Text: "x", SendAt: bad})
		wantFields(t, err, "sendAt")
	}
}
