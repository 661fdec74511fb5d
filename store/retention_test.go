package store_test

import (
	"errors"
	"fmt"
	"testing"
	"time"

	"switchboard/internal/testutil"
	"switchboard/store"
)

// TestRetentionSweep: with a retention of 30 days, settled messages older than that are
// deleted with their conversation index entries, younger ones and those still queued are kept,
// and a workspace without retention keeps everything.
func TestRetentionSweep(t *testing.T) {
	defer store.SetSweepBatch(4)() // several bounded transactions
	clock := testutil.NewClock(time.Date(2026, 1, 1, 9, 0, 0, 0, time.UTC))
	s := openStore(t, store.Options{Now: clock.Now})
	f := newFixtureOn(t, s)
	other := newFixtureOn(t, s)
	inbound := func(fx *fixture, i int) store.Message {
		t.Helper()
		m, err := s.RecordInboundMessage(fx.ws, store.InboundMessage{From: "+14155550123", To: fx.number,
			Text: fmt.Sprint("hello ", i), Provider: store.ProviderSandbox})
		if err != nil {
			t.Fatal(err)
		}
		return m
	}
	var old, kept []store.Message
	for i := range 25 {
		old = append(old, inbound(f, i))
		inbound(other, i)
	}
	queued, err := s.SendMessage(f.ws, store.SendInput{From: f.number, To: []string{"+14155550123"}, Text: "queued"})
	if err != nil {
		t.Fatal(err)
	}
	clock.Advance(40 * 24 * time.Hour)
	for i := range 3 {
		kept = append(kept, inbound(f, 100+i))
	}
	if _, err := s.UpdateWorkspace(f.ws, store.WorkspaceSettings{RetentionDays: ptrInt(-1)}); err == nil {
		t.Error("a negative retention was accepted")
	}
	w, err := s.UpdateWorkspace(f.ws, store.WorkspaceSettings{RetentionDays: ptrInt(30)})
	if err != nil || w.RetentionDays != 30 {
		t.Fatalf("UpdateWorkspace: %+v, %v", w, err)
	}
	n, err := s.SweepRetention()
	if err != nil {
		t.Fatal(err)
	}
	if n != len(old) {
		t.Errorf("swept %d messages, want %d", n, len(old))
	}
	for _, m := range old {
		if _, err := s.Message(f.ws, m.ID); !errors.Is(err, store.ErrNotFound) {
			t.Errorf("old message %s: %v, want not found", m.ID, err)
		}
	}
	for _, m := range append(kept, queued) {
		if _, err := s.Message(f.ws, m.ID); err != nil {
			t.Errorf("message %s (%s) was deleted: %v", m.ID, m.Status, err)
		}
	}
	msgs, err := s.ConversationMessages(f.ws, kept[0].ConversationID)
	if err != nil {
		t.Fatal(err)
	}
	if len(msgs) != len(kept)+1 {
		t.Errorf("conversation lists %d messages, want %d (the kept ones and the queued one)", len(msgs), len(kept)+1)
	}
	otherMsgs, err := s.ConversationMessages(other.ws, mustConv(t, s, other))
	if err != nil || len(otherMsgs) != 25 {
		t.Errorf("the workspace without retention has %d messages, want 25 (%v)", len(otherMsgs), err)
	}
	if n, err := s.SweepRetention(); err != nil || n != 0 {
		t.Errorf("a second sweep deleted %d (%v), want 0", n, err)
	}
}

func ptrInt(v int) *int { return &v }

func mustConv(t *testing.T, s *store.Store, fx *fixture) string {
	t.Helper()
	c, _, err := s.CreateConversation(fx.ws, fx.number, "+14155550123")
	if err != nil {
		t.Fatal(err)
	}
	return c.ID
}
