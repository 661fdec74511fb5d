package store_test

import (
	"strings"
	"testing"

	"switchboard/store"
)

// TestMergeTagCeiling: a text whose merge tags, filled in, come to more than 1,600 code points
// is refused on a single send (400 on text, nothing written) and fails as a broadcast copy,
// counted in totalFailed; a recipient whose copy fits still gets it.
func TestMergeTagCeiling(t *testing.T) {
	f := newFixture(t)
	long := strings.Repeat("é", 250)
	f.contact(t, "+14155550001", long, "")
	f.contact(t, "+14155550003", "Bo", "")
	text := strings.Repeat("{{firstName}} ", 7) // 98 characters; 1,757 for the first contact
	_, err := f.s.SendMessage(f.ws, store.SendInput{From: f.number, To: []string{"+14155550001"}, Text: text, AuthorID: f.user.ID})
	verrs := wantFields(t, err, "text")
	if !strings.Contains(verrs[0].Message, "longer than 1600 characters once merge tags are filled in") {
		t.Fatalf("message %q", verrs[0].Message)
	}
	if convs, _ := f.s.Inbox(f.ws, store.InboxFilter{}); len(convs) != 0 {
		t.Fatalf("a refused send wrote %d conversations", len(convs))
	}
	b, err := f.s.SendBroadcast(f.ws, store.BroadcastInput{From: f.number, Text: text, AuthorID: f.user.ID,
		Recipients: []string{"+14155550001", "+14155550003"}})
	if err != nil {
		t.Fatal(err)
	}
	b, _ = f.s.Broadcast(f.ws, b.ID)
	if b.TotalFailed != 1 || b.TotalQueued != 1 {
		t.Fatalf("broadcast counters %+v: want 1 failed (too long once filled in), 1 queued", b)
	}
	box, _ := f.s.Outbox(10)
	if len(box) != 1 {
		t.Fatalf("outbox holds %d copies, want 1", len(box))
	}
}
