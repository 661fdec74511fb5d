package store_test

import (
	"testing"
	"time"

	"switchboard/internal/testutil"
	"switchboard/store"
)

// TestThreadAfter: an open thread asks for what it has not shown: messages, comments and
// activity entries after its newest item, oldest first, at most ThreadMax; nothing when nothing
// arrived.
func TestThreadAfter(t *testing.T) {
	f := newFixture(t)
	first := receive(t, f, "+14155550601", "hello")
	conv := first.ConversationID
	items, err := f.s.ThreadAfter(f.ws, conv, first.ID)
	if err != nil || len(items) != 0 {
		t.Fatalf("after the newest item: %+v %v, want nothing", items, err)
	}
	cm, err := f.s.CreateComment(f.ws, store.CommentInput{From: f.number, To: "+14155550601", Text: "call her back", AuthorID: f.user.ID})
	if err != nil {
		t.Fatal(err)
	}
	closed := store.ConversationClosed
	if _, err := f.s.UpdateConversation(f.ws, conv, store.ConversationUpdate{Status: &closed, ActorID: f.user.ID}); err != nil {
		t.Fatal(err)
	}
	reply := send(t, f, "+14155550601", "on my way")
	items, err = f.s.ThreadAfter(f.ws, conv, first.ID)
	if err != nil || len(items) != 3 {
		t.Fatalf("after the first: %d items %v, want the comment, the close entry and the reply", len(items), err)
	}
	if items[0].Comment == nil || items[0].ID != cm.ID || items[1].Entry == nil || items[1].Entry.Status != closed ||
		items[2].Message == nil || items[2].ID != reply.ID {
		t.Errorf("items out of order or of the wrong kind: %+v", items)
	}
	if all, _ := f.s.ThreadAfter(f.ws, conv, ""); len(all) != 4 || all[0].ID != first.ID {
		t.Errorf("from the start: %d items, want 4 from the first", len(all))
	}
	for range store.ThreadMax + 5 {
		receive(t, f, "+14155550601", "more")
	}
	if many, _ := f.s.ThreadAfter(f.ws, conv, reply.ID); len(many) != store.ThreadMax || many[0].Message.Text != "more" {
		t.Errorf("a long run: %d items, want the oldest %d", len(many), store.ThreadMax)
	}
}

// TestEntriesAreLiveEvents: every activity entry is one conversation event naming it, whatever
// wrote it: an update, a block, the end of a snooze.
func TestEntriesAreLiveEvents(t *testing.T) {
	clock := testutil.NewClock(mustTime(t, "2026-03-02T10:00:00Z"))
	f := newFixtureOn(t, openStore(t, store.Options{Now: clock.Now}))
	conv := receive(t, f, "+14155550602", "hi").ConversationID
	entryEvents := func() map[string]string {
		evs, _, _, err := f.s.LiveEventsAfter(f.ws, 0, 1000)
		if err != nil {
			t.Fatal(err)
		}
		out := map[string]string{}
		for _, e := range evs {
			if d := liveData(t, e); d["entryId"] != nil {
				out[d["entryId"].(string)] = d["change"].(string)
			}
		}
		return out
	}
	snoozed := store.ConversationSnoozed
	until := clock.Now().Add(time.Hour)
	labels := []string{"vip"}
	if _, err := f.s.UpdateConversation(f.ws, conv, store.ConversationUpdate{Status: &snoozed, SnoozeUntil: &until, Labels: &labels, ActorID: f.user.ID}); err != nil {
		t.Fatal(err)
	}
	if err := f.s.SetBlocked(f.ws, f.user.ID, "+14155550602", true); err != nil {
		t.Fatal(err)
	}
	clock.Advance(2 * time.Hour)
	if n, _, err := f.s.WakeSnoozed(clock.Now(), 10); err != nil || n != 1 {
		t.Fatalf("woke %d, %v", n, err)
	}
	entries, err := f.s.ConversationEntries(f.ws, conv)
	if err != nil || len(entries) != 4 {
		t.Fatalf("entries %+v %v, want snooze, labels, block, snooze end", entries, err)
	}
	got := entryEvents()
	want := []string{"status", "labels", "block", "status"}
	for i, e := range entries {
		if got[e.ID] != want[i] {
			t.Errorf("entry %s (%s): event change %q, want %q", e.ID, e.Kind, got[e.ID], want[i])
		}
	}
	if len(got) != len(entries) {
		t.Errorf("%d entry events for %d entries", len(got), len(entries))
	}
}
