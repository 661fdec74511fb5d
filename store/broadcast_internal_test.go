package store

import (
	"fmt"
	"path/filepath"
	"slices"
	"testing"
)

// TestBroadcastFanoutInChunks: a broadcast larger than a fan-out chunk queues every copy over
// several transactions, counted from the first, with opted-out recipients skipped.
func TestBroadcastFanoutInChunks(t *testing.T) {
	prev := fanOutChunk
	fanOutChunk = 3
	t.Cleanup(func() { fanOutChunk = prev })
	s, err := Open(filepath.Join(t.TempDir(), "fanout.db"), Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	w, err := s.CreateWorkspace("Fanout")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := s.AddNumber(w.ID, "+12025550100", "Main"); err != nil {
		t.Fatal(err)
	}
	var recipients []string
	for i := range 11 {
		recipients = append(recipients, fmt.Sprintf("+1415555%04d", i))
	}
	for _, p := range recipients[4:6] {
		if _, _, err := s.CreateOptOut(w.ID, "", p, OptOutAPI); err != nil {
			t.Fatal(err)
		}
	}
	b, err := s.SendBroadcast(w.ID, BroadcastInput{From: "+12025550100", Text: "hi", Recipients: recipients})
	if err != nil {
		t.Fatal(err)
	}
	if b.TotalQueued != 9 || b.TotalOptedOut != 2 || len(b.Recipients) != 9 || b.Status != BroadcastSending {
		t.Fatalf("broadcast = %+v, want 9 queued, 2 opted out, sending", b)
	}
	box, err := s.Outbox(100)
	if err != nil {
		t.Fatal(err)
	}
	got := map[string]bool{}
	for _, e := range box {
		m, err := s.Message(w.ID, e.MessageID)
		if err != nil {
			t.Fatal(err)
		}
		if m.BroadcastID != b.ID || got[m.To] {
			t.Errorf("unexpected copy %+v", m)
		}
		got[m.To] = true
	}
	for _, r := range b.Recipients {
		if !got[r] {
			t.Errorf("no copy queued for %s", r)
		}
	}
	if len(box) != 9 {
		t.Errorf("outbox has %d copies, want 9", len(box))
	}
}

// TestBroadcastCopiesFoundBySearch: a fan-out chunk writes its new contacts' and copies' search
// postings at its end; every copy is still found by its words in the inbox search (in its own
// conversation), every new contact by its number, and messages stored afterwards too.
func TestBroadcastCopiesFoundBySearch(t *testing.T) {
	prev := fanOutChunk
	fanOutChunk = 4
	t.Cleanup(func() { fanOutChunk = prev })
	s, err := Open(filepath.Join(t.TempDir(), "fanout.db"), Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	w, err := s.CreateWorkspace("Fanout")
	if err != nil {
		t.Fatal(err)
	}
	from := "+12025550100"
	if _, err := s.AddNumber(w.ID, from, "Main"); err != nil {
		t.Fatal(err)
	}
	// A message before the broadcast shares a word with it.
	if _, err := s.SendMessage(w.ID, SendInput{From: from, To: []string{"+14155559999"}, Text: "spring is here"}); err != nil {
		t.Fatal(err)
	}
	var recipients []string
	for i := range 11 {
		recipients = append(recipients, fmt.Sprintf("+1415555%04d", i))
	}
	b, err := s.SendBroadcast(w.ID, BroadcastInput{From: from, Text: "Spring sale {{firstName|friend}}", Recipients: recipients})
	if err != nil || b.TotalQueued != 11 {
		t.Fatalf("SendBroadcast = %+v, %v; want 11 queued", b, err)
	}
	if _, err := s.SendMessage(w.ID, SendInput{From: from, To: []string{"+14155558888"}, Text: "spring again, friend"}); err != nil {
		t.Fatal(err)
	}
	phones := func(q string) map[string]bool {
		t.Helper()
		got := map[string]bool{}
		for _, st := range []string{ConversationOpen, ConversationClosed} {
			items, _, err := s.InboxPage(w.ID, InboxFilter{Search: q, Status: st, Limit: 200})
			if err != nil {
				t.Fatal(err)
			}
			for _, it := range items {
				got[it.Conversation.InboundChannelAddresses] = true
			}
		}
		return got
	}
	spring := phones("spring")
	for _, r := range append(slices.Clone(recipients), "+14155559999", "+14155558888") {
		if !spring[r] {
			t.Errorf("inbox search %q misses the conversation with %s", "spring", r)
		}
	}
	if len(spring) != 13 {
		t.Errorf("inbox search %q found %d conversations, want 13", "spring", len(spring))
	}
	if friend := phones("friend"); len(friend) != 12 || !friend["+14155558888"] || !friend[recipients[10]] {
		t.Errorf("inbox search %q found %v, want the 11 copies and the later message", "friend", friend)
	}
	for _, r := range recipients {
		cs, err := s.SearchContacts(w.ID, r[len(r)-7:])
		if err != nil || len(cs) != 1 || cs[0].Phone() != r {
			t.Errorf("SearchContacts(%s) = %v, %v; want the broadcast's new contact", r[len(r)-7:], cs, err)
		}
	}
}
