package store_test

import (
	"strings"
	"testing"

	"switchboard/store"
)

// The compose preview counts segments on the copy as it goes out: merge tags filled in for each
// recipient, the opt-out footer appended, and the worst recipient decides. A short text with an
// en dash fits one UCS-2 segment on its own, but with the footer and a long name it takes two,
// and every copy the broadcast then queues takes at most what the preview said.
func TestPreviewBroadcastIsTheWorstCopy(t *testing.T) {
	f := newFixture(t)
	f.contact(t, "+14155550001", "Ada", "Li")
	f.contact(t, "+14155550002", "Maximiliana-Josefina", "Vandenberghe-Oyelaran")
	f.contact(t, "+14155550003", "Bo", "Stopper") // opted out below: gets no copy
	g, err := f.s.CreateGroup(f.ws, "Tuesday patients")
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range []string{"+14155550001", "+14155550002", "+14155550003"} {
		if _, _, err := f.s.AddToGroup(f.ws, g.Name, p); err != nil {
			t.Fatal(err)
		}
	}
	if _, _, err := f.s.CreateOptOut(f.ws, f.user.ID, "+14155550003", store.OptOutAPI); err != nil {
		t.Fatal(err)
	}
	text := "Hi {{firstName}} – your cleaning is on Tuesday at 9."
	if n := store.Segments(strings.ReplaceAll(text, "{{firstName}}", "Ada")); n != 1 {
		t.Fatalf("the text alone for Ada takes %d segments; the test needs 1", n)
	}
	targets := store.BroadcastTargets{GroupIDs: []string{g.ID}, Recipients: []string{"+14155550009"}}
	p, err := f.s.PreviewBroadcast(f.ws, text, true, targets)
	if err != nil {
		t.Fatal(err)
	}
	want := "Hi Maximiliana-Josefina – your cleaning is on Tuesday at 9. Reply STOP to opt out."
	if p.Recipients != 3 || p.Text != want || p.Segments != 2 || p.Encoding != store.EncodingUCS2 ||
		p.Phone != "+14155550002" || p.Name != "Maximiliana-Josefina Vandenberghe-Oyelaran" {
		t.Fatalf("preview = %+v, want 3 recipients and the longest copy %q: 2 segments (UCS-2) to Maximiliana", p, want)
	}
	// Without the footer the same recipients fit one segment each.
	if p, err := f.s.PreviewBroadcast(f.ws, text, false, targets); err != nil || p.Segments != 1 {
		t.Fatalf("preview without the footer = %+v, %v; want 1 segment", p, err)
	}
	// A text that mentions STOP gets no footer, as the copies do.
	if p, err := f.s.PreviewBroadcast(f.ws, "Reply stop to end", true, targets); err != nil || p.Text != "Reply stop to end" {
		t.Fatalf("preview of a text with stop = %+v, %v", p, err)
	}

	b, err := f.s.SendBroadcast(f.ws, store.BroadcastInput{From: f.number, Text: text, AuthorID: f.user.ID,
		OptOutInstructions: true, GroupIDs: targets.GroupIDs, Recipients: targets.Recipients})
	if err != nil {
		t.Fatal(err)
	}
	box, err := f.s.Outbox(100)
	if err != nil {
		t.Fatal(err)
	}
	worst := 0
	for _, e := range box {
		m, err := f.s.Message(f.ws, e.MessageID)
		if err != nil {
			t.Fatal(err)
		}
		if m.BroadcastID == b.ID {
			worst = max(worst, m.Segments)
		}
	}
	if len(box) != p.Recipients || worst != p.Segments {
		t.Errorf("the broadcast queued %d copies of at most %d segments; the preview said %d copies of at most %d", len(box), worst, p.Recipients, p.Segments)
	}
}
