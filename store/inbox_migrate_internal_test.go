package store

import (
	"encoding/json"
	"path/filepath"
	"testing"

	"switchboard/store/kv"
)

// TestMigrateInboxSearch: a file of schema 5 (no message words, activity entries without the
// contact's num) is searchable by name and by message text after the migration.
func TestMigrateInboxSearch(t *testing.T) {
	path := filepath.Join(t.TempDir(), "switchboard.db")
	s, err := Open(path, Options{})
	if err != nil {
		t.Fatal(err)
	}
	w, err := s.CreateWorkspace("Acme")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := s.AddNumber(w.ID, "+14155550100", "Main"); err != nil {
		t.Fatal(err)
	}
	first := "José"
	if _, err := s.CreateContact(w.ID, ContactInput{Phone: "+14155550123", FirstName: &first}); err != nil {
		t.Fatal(err)
	}
	for _, text := range []string{"Hello", "Refund please", "Thanks"} {
		if _, err := s.ReceiveMessage(w.ID, InboundMessage{From: "+14155550123", To: "+14155550100", Text: text}); err != nil {
			t.Fatal(err)
		}
	}
	// Batches of two: the migration's resumable walk takes several transactions.
	prev := wordMigrateBatch
	wordMigrateBatch = 2
	defer func() { wordMigrateBatch = prev }()
	// Back to what schema 5 wrote.
	err = rawUpdate(s.DB(), func(tx *kv.Tx) error {
		for _, name := range [][]byte{bMsgWords, bMsgSlots} {
			if err := tx.DeleteBucket(name); err != nil {
				return err
			}
			if _, err := tx.CreateBucket(name); err != nil {
				return err
			}
		}
		msgs := tx.Bucket(bMessages)
		var keys, vals [][]byte
		if err := msgs.ForEach(func(k, v []byte) error {
			var m Message
			if err := jsonUnmarshal(v, &m); err != nil {
				return err
			}
			m.WordNum = 0
			keys = append(keys, append([]byte(nil), k...))
			data, _ := json.Marshal(m)
			vals = append(vals, data)
			return nil
		}); err != nil {
			return err
		}
		for i := range keys {
			if err := msgs.Put(keys[i], vals[i]); err != nil {
				return err
			}
		}
		act := tx.Bucket(bConvActivity)
		keys = nil
		if err := act.ForEach(func(k, _ []byte) error { keys = append(keys, append([]byte(nil), k...)); return nil }); err != nil {
			return err
		}
		for _, k := range keys {
			if err := act.Put(k, nil); err != nil {
				return err
			}
		}
		return tx.Bucket(bMeta).Put([]byte("schema_version"), encodeUint(5))
	})
	if err != nil {
		t.Fatal(err)
	}
	if items, _ := s.Inbox(w.ID, InboxFilter{Search: "jose"}); len(items) != 0 {
		t.Fatalf("before the migration the name search found %d (the test did not undo the index)", len(items))
	}
	s.Close()
	s, err = Open(path, Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	for _, q := range []string{"jose", "refund", "(415) 555-0123", "hello", "thanks"} {
		if items, err := s.Inbox(w.ID, InboxFilter{Search: q}); err != nil || len(items) != 1 {
			t.Errorf("after the migration %q found %d, %v; want the conversation", q, len(items), err)
		}
	}
}
