package store

import (
	"fmt"
	"path/filepath"
	"sync"
	"testing"

	"switchboard/store/internal/index"
	"switchboard/store/kv"
)

// TestSharedTransactionSendsAreSearchable: sends that share one group-commit transaction (their
// postings written together before its commit) are each found by the inbox search, by a word
// they share and by their own.
func TestSharedTransactionSendsAreSearchable(t *testing.T) {
	s, err := Open(filepath.Join(t.TempDir(), "words.db"), Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	w, err := s.CreateWorkspace("Words")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := s.AddNumber(w.ID, "+12025550100", "Main"); err != nil {
		t.Fatal(err)
	}
	// One earlier send, written alone, so the batch appends to existing chunks.
	if _, err := s.SendMessage(w.ID, SendInput{From: "+12025550100", To: []string{"+14155550999"}, Text: "parcel shipped early"}); err != nil {
		t.Fatal(err)
	}
	release := make(chan struct{})
	block(&s.group, release)
	const n = 8
	var wg sync.WaitGroup
	for i := range n {
		wg.Go(func() {
			text := fmt.Sprintf("parcel shipped code%d", i)
			if _, err := s.SendMessage(w.ID, SendInput{From: "+12025550100", To: []string{fmt.Sprintf("+1415555%04d", i)}, Text: text}); err != nil {
				t.Error(err)
			}
		})
	}
	queued(&s.group, n)
	close(release)
	wg.Wait()
	items, err := s.Inbox(w.ID, InboxFilter{Search: "parcel shipped"})
	if err != nil {
		t.Fatal(err)
	}
	if len(items) != n+1 {
		t.Fatalf("search %q found %d conversations; want %d", "parcel shipped", len(items), n+1)
	}
	for i := range n {
		items, err := s.Inbox(w.ID, InboxFilter{Search: fmt.Sprintf("code%d", i)})
		if err != nil {
			t.Fatal(err)
		}
		if len(items) != 1 {
			t.Fatalf("search code%d found %d conversations; want 1", i, len(items))
		}
	}
}

// TestWordBufferDropsMessageDeletedInItsTransaction: a message stored and deleted in the same
// group-commit transaction leaves no postings behind.
func TestWordBufferDropsMessageDeletedInItsTransaction(t *testing.T) {
	g, db := openGroup(t)
	ws := make([]byte, 16)
	ws[0] = 1
	err := g.run(func(tx *wtx) error {
		for _, b := range [][]byte{bMsgWords, bMsgSlots, bMessages} {
			if _, err := tx.CreateBucketIfNotExists(b); err != nil {
				return err
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	conv := "01JC0NV0000000000000000000"
	wsID := "01J0000000000000000000000A"
	copy(ws, idKey(wsID))
	msgs := []Message{
		{ID: "01JMSG00000000000000000001", WorkspaceID: wsID, ConversationID: conv, Text: "kept hello"},
		{ID: "01JMSG00000000000000000002", WorkspaceID: wsID, ConversationID: conv, Text: "gone hello"},
	}
	err = g.run(func(tx *wtx) error {
		for i := range msgs {
			if err := indexMessage(tx, &msgs[i]); err != nil {
				return err
			}
			if err := putJSON(tx.Bucket(bMessages), wsKey(wsID, msgs[i].ID), msgs[i]); err != nil {
				return err
			}
		}
		return unindexMessage(tx, wsKey(wsID, msgs[1].ID))
	})
	if err != nil {
		t.Fatal(err)
	}
	idx := index.New(&indexLayout, setMembers, index.DefaultBounds(ImportBatchSize))
	_ = rawView(db, func(tx *kv.Tx) error {
		for word, want := range map[string]int{"hello": 1, "kept": 1, "gone": 0} {
			got, _, err := idx.MessageMatches(tx, ws, []string{word})
			if err != nil {
				t.Fatal(err)
			}
			if len(got) != want {
				t.Errorf("%q matches %d conversations; want %d", word, len(got), want)
			}
		}
		return nil
	})
}
