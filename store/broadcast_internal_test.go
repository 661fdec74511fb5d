package store

import (
	"fmt"
	"path/filepath"
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
