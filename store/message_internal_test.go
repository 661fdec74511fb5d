package store

import (
	"path/filepath"
	"slices"
	"testing"
)

// TestOutboxPriorityOrder: keyword replies (high) go before single and group sends (normal),
// which go before broadcast copies (low); within a priority, oldest first.
func TestOutboxPriorityOrder(t *testing.T) {
	s, err := Open(filepath.Join(t.TempDir(), "sb.db"), Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	w, err := s.CreateWorkspace("Acme")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := s.AddNumber(w.ID, "+14155550100", ""); err != nil {
		t.Fatal(err)
	}
	conv, _, err := s.CreateConversation(w.ID, "+14155550100", "+14155550123")
	if err != nil {
		t.Fatal(err)
	}
	var want []string
	byPriority := map[string][]string{}
	for _, p := range []string{PriorityLow, PriorityNormal, PriorityHigh, PriorityLow, PriorityHigh, PriorityNormal} {
		err := s.updateNow(func(tx *wtx) error {
			m, err := s.queueMessage(tx, &conv, false, s.Now(), SendInput{Text: p}, p, "")
			byPriority[p] = append(byPriority[p], m.ID)
			return err
		})
		if err != nil {
			t.Fatal(err)
		}
	}
	for _, p := range []string{PriorityHigh, PriorityNormal, PriorityLow} {
		want = append(want, byPriority[p]...)
	}
	box, err := s.Outbox(10)
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, e := range box {
		got = append(got, e.MessageID)
		m, err := s.Message(e.WorkspaceID, e.MessageID)
		if err != nil || m.Priority != e.Priority {
			t.Errorf("outbox entry %+v: message priority %q, %v", e, m.Priority, err)
		}
	}
	if !slices.Equal(got, want) {
		t.Errorf("outbox order = %v, want %v (high, normal, low; oldest first)", got, want)
	}
}
