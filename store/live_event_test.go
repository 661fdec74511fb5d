package store_test

import (
	"encoding/json"
	"path/filepath"
	"testing"
	"time"

	"switchboard/internal/testutil"
	"switchboard/store"
)

// liveData decodes an event's data line.
func liveData(t *testing.T, e store.LiveEvent) map[string]any {
	t.Helper()
	var m map[string]any
	if err := json.Unmarshal(e.Data, &m); err != nil {
		t.Fatalf("event %d data %q: %v", e.Seq, e.Data, err)
	}
	return m
}

func inbound(t *testing.T, f *fixture, from, text string) store.Message {
	t.Helper()
	m, err := f.s.RecordInboundMessage(f.ws, store.InboundMessage{From: from, To: f.number, Text: text})
	if err != nil {
		t.Fatalf("RecordInboundMessage: %v", err)
	}
	return m
}

func TestLiveEventsNumberedPerWorkspaceAndSurviveReopen(t *testing.T) {
	path := filepath.Join(t.TempDir(), "sb.db")
	s, err := store.Open(path, store.Options{})
	if err != nil {
		t.Fatal(err)
	}
	f := newFixtureOn(t, s)
	other := newFixtureOn(t, s)
	m := inbound(t, f, "+14155550123", "hello")
	inbound(t, other, "+14155550124", "elsewhere")

	evs, last, tooOld, err := s.LiveEventsAfter(f.ws, 0, 100)
	if err != nil || tooOld {
		t.Fatalf("LiveEventsAfter: %v tooOld=%v", err, tooOld)
	}
	// One message event plus one notification for the member (unassigned conversation).
	if len(evs) != 2 || last != 2 || evs[0].Seq != 1 || evs[1].Seq != 2 {
		t.Fatalf("events = %+v last %d, want seq 1 and 2", evs, last)
	}
	d := liveData(t, evs[0])
	if evs[0].Type != store.LiveMessage || d["type"] != "message" || d["conversationId"] != m.ConversationID || d["messageId"] != m.ID {
		t.Fatalf("first event %s %v, want the message event of %s", evs[0].Type, d, m.ID)
	}
	if evs[1].Type != store.LiveNotification || evs[1].UserID != f.user.ID || !evs[1].For(f.user.ID) || evs[1].For("someone-else") {
		t.Fatalf("second event %+v, want a notification for %s only", evs[1], f.user.ID)
	}
	if n, _ := s.LastLiveEvent(other.ws); n != 2 {
		t.Fatalf("other workspace's last = %d, want its own numbering (2)", n)
	}
	s.Close()

	s2 := openStoreAt(t, path, store.Options{})
	inbound(t, &fixture{s: s2, ws: f.ws, user: f.user, number: f.number}, "+14155550123", "again")
	evs, last, _, err = s2.LiveEventsAfter(f.ws, 2, 100)
	if err != nil || len(evs) == 0 || evs[0].Seq != 3 || last < 3 {
		t.Fatalf("after reopen: %+v last %d err %v, want numbering to continue at 3", evs, last, err)
	}
}

func TestLiveEventsReplayAndTooOld(t *testing.T) {
	clock := testutil.NewClock(time.Date(2026, 1, 1, 9, 0, 0, 0, time.UTC))
	s := openStore(t, store.Options{Now: clock.Now, LiveKeepEvents: 4, LiveKeepFor: time.Hour})
	f := newFixtureOn(t, s)
	conv, _, err := s.CreateConversation(f.ws, f.number, "+14155550123")
	if err != nil {
		t.Fatal(err)
	}
	label := func(l string) {
		if _, err := s.UpdateConversation(f.ws, conv.ID, store.ConversationUpdate{Labels: &[]string{l}}); err != nil {
			t.Fatal(err)
		}
	}
	for _, l := range []string{"a", "b", "c"} {
		label(l)
	}
	evs, last, tooOld, _ := s.LiveEventsAfter(f.ws, 1, 100)
	if tooOld || len(evs) != 2 || evs[0].Seq != 2 || last != 3 {
		t.Fatalf("replay after 1 = %+v last %d tooOld %v, want 2 and 3", evs, last, tooOld)
	}
	if d := liveData(t, evs[0]); d["type"] != "conversation" || d["change"] != "labels" {
		t.Fatalf("label event data %v", d)
	}
	if evs, _, tooOld, _ := s.LiveEventsAfter(f.ws, 3, 100); tooOld || len(evs) != 0 {
		t.Fatalf("after the last: %v %v, want nothing and not too old", evs, tooOld)
	}
	if _, _, tooOld, _ := s.LiveEventsAfter(f.ws, 99, 100); !tooOld {
		t.Fatal("an id beyond the last must be too old (it came from another log)")
	}
	// Beyond 4 events but younger than an hour: everything is kept.
	for _, l := range []string{"d", "e", "f"} {
		label(l)
	}
	if evs, _, tooOld, _ := s.LiveEventsAfter(f.ws, 0, 100); tooOld || len(evs) != 6 {
		t.Fatalf("young events: %d kept, tooOld %v; want all 6", len(evs), tooOld)
	}
	// Two hours on, a write prunes what is beyond both bounds: the last 4 stay.
	clock.Advance(2 * time.Hour)
	label("g")
	// 7 events: 1–3 are older than an hour and beyond the last 4, so they are gone.
	if evs, _, tooOld, _ := s.LiveEventsAfter(f.ws, 2, 100); !tooOld {
		t.Fatalf("replay from 2 after pruning: %d events, want too old", len(evs))
	}
	evs, last, tooOld, _ = s.LiveEventsAfter(f.ws, 3, 100)
	if tooOld || len(evs) != 4 || evs[0].Seq != 4 || last != 7 {
		t.Fatalf("replay from 3: %d events, last %d, tooOld %v; want 4–7", len(evs), last, tooOld)
	}
}

func TestUnreadAndMentions(t *testing.T) {
	f := newFixture(t)
	bob, err := f.s.CreateUser(store.NewUser{Email: "bob@example.com", Name: "Bob"})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := f.s.AddMember(f.ws, bob.ID, ""); err != nil {
		t.Fatal(err)
	}
	count := func(u string) int {
		t.Helper()
		n, err := f.s.UnreadCount(f.ws, u)
		if err != nil {
			t.Fatal(err)
		}
		return n
	}
	m := inbound(t, f, "+14155550123", "hi")
	inbound(t, f, "+14155550123", "hi again")
	if count(f.user.ID) != 1 || count(bob.ID) != 1 {
		t.Fatalf("after two inbound texts in one conversation: ana %d bob %d, want 1 each", count(f.user.ID), count(bob.ID))
	}
	if err := f.s.MarkRead(f.ws, f.user.ID, m.ConversationID); err != nil {
		t.Fatal(err)
	}
	if count(f.user.ID) != 0 || count(bob.ID) != 1 {
		t.Fatalf("after Ana read it: ana %d bob %d, want 0 and 1", count(f.user.ID), count(bob.ID))
	}
	items, _, err := f.s.UnreadInbox(f.ws, f.user.ID, store.InboxFilter{})
	if err != nil || len(items) != 0 {
		t.Fatalf("Ana's unread list: %v %v, want empty", items, err)
	}
	if items, _, _ := f.s.UnreadInbox(f.ws, bob.ID, store.InboxFilter{}); len(items) != 1 || items[0].Last != "hi again" {
		t.Fatalf("Bob's unread list: %+v", items)
	}
	if err := f.s.MarkUnread(f.ws, f.user.ID, m.ConversationID); err != nil {
		t.Fatal(err)
	}
	if u, _ := f.s.UnreadOf(f.ws, f.user.ID, []string{m.ConversationID}); !u[m.ConversationID] || count(f.user.ID) != 1 {
		t.Fatalf("Mark as unread did not make it unread: %v", u)
	}
	f.s.MarkRead(f.ws, f.user.ID, m.ConversationID)

	// An outbound reply is not unread; a comment is only for whom it mentions.
	if _, err := f.s.SendMessage(f.ws, store.SendInput{From: f.number, To: []string{"+14155550123"}, Text: "hello", AuthorID: bob.ID}); err != nil {
		t.Fatal(err)
	}
	if count(f.user.ID) != 0 {
		t.Fatal("an outbound message made the conversation unread")
	}
	other := inbound(t, f, "+14155550999", "another")
	f.s.MarkRead(f.ws, f.user.ID, other.ConversationID)
	if _, err := f.s.CreateComment(f.ws, store.CommentInput{From: f.number, To: "+14155550123", Text: "look @Ana", Mentions: []string{f.user.ID}, AuthorID: bob.ID}); err != nil {
		t.Fatal(err)
	}
	if count(f.user.ID) != 1 {
		t.Fatalf("a mention: ana unread %d, want 1", count(f.user.ID))
	}
	ment, _, err := f.s.MentionInbox(f.ws, f.user.ID, store.InboxFilter{})
	if err != nil || len(ment) != 1 || ment[0].Conversation.ID != m.ConversationID {
		t.Fatalf("Ana's mentions: %+v %v", ment, err)
	}
	if ment, _, _ := f.s.MentionInbox(f.ws, bob.ID, store.InboxFilter{}); len(ment) != 0 {
		t.Fatalf("Bob is mentioned nowhere, got %d", len(ment))
	}
	// The mention notified Ana; the author, Bob, got nothing for his own comment.
	last, _ := f.s.LastLiveEvent(f.ws)
	evs, _, _, _ := f.s.LiveEventsAfter(f.ws, last-2, 10)
	if len(evs) != 2 || evs[0].Type != store.LiveComment || evs[1].Type != store.LiveNotification || evs[1].UserID != f.user.ID {
		t.Fatalf("comment events: %+v", evs)
	}
	if d := liveData(t, evs[1]); d["reason"] != "mention" || d["title"] != "Bob mentioned you" {
		t.Fatalf("mention notification %v", d)
	}
}

func TestNotificationPreferences(t *testing.T) {
	f := newFixture(t)
	bob, _ := f.s.CreateUser(store.NewUser{Email: "bob@example.com", Name: "Bob"})
	f.s.AddMember(f.ws, bob.ID, "")
	notified := func(after uint64) map[string][]string {
		evs, _, _, err := f.s.LiveEventsAfter(f.ws, after, 100)
		if err != nil {
			t.Fatal(err)
		}
		out := map[string][]string{}
		for _, e := range evs {
			if e.Type == store.LiveNotification {
				out[e.UserID] = append(out[e.UserID], liveData(t, e)["reason"].(string))
			}
		}
		return out
	}
	if err := f.s.SetNotificationPrefs(bob.ID, store.NotificationPrefs{Inbound: "loud"}); err == nil {
		t.Fatal("an unknown choice was saved")
	}
	if err := f.s.SetNotificationPrefs(bob.ID, store.NotificationPrefs{Inbound: store.NotifyMentions, Sound: true}); err != nil {
		t.Fatal(err)
	}
	if p, _ := f.s.NotificationPrefs(bob.ID); p.Inbound != store.NotifyMentions || !p.Sound {
		t.Fatalf("saved prefs read back as %+v", p)
	}
	last, _ := f.s.LastLiveEvent(f.ws)
	m := inbound(t, f, "+14155550123", "hi")
	if n := notified(last); len(n[f.user.ID]) != 1 || len(n[bob.ID]) != 0 {
		t.Fatalf("unassigned inbound notified %v; want Ana (default) and not Bob (mentions only)", n)
	}
	// Assigned to Bob by Ana: Bob is told (assignments always notify); Ana's default now skips
	// inbound texts of Bob's conversation.
	last, _ = f.s.LastLiveEvent(f.ws)
	if _, err := f.s.UpdateConversation(f.ws, m.ConversationID, store.ConversationUpdate{AssignedUserIDs: &[]string{bob.ID}, ActorID: f.user.ID}); err != nil {
		t.Fatal(err)
	}
	inbound(t, f, "+14155550123", "still there?")
	if n := notified(last); len(n[f.user.ID]) != 0 || len(n[bob.ID]) != 1 || n[bob.ID][0] != "assignment" {
		t.Fatalf("after assigning Bob: %v; want only Bob's assignment", n)
	}
	f.s.SetNotificationPrefs(f.user.ID, store.NotificationPrefs{Inbound: store.NotifyAllInbound})
	last, _ = f.s.LastLiveEvent(f.ws)
	inbound(t, f, "+14155550123", "hello?")
	if n := notified(last); len(n[f.user.ID]) != 1 {
		t.Fatalf("with all inbound Ana is told of Bob's conversation: %v", n)
	}
}
