package store

import (
	"path/filepath"
	"testing"

	"switchboard/store/kv"
)

// TestMigrateOpenAssigned: a file of the schema before its step (no index of open assigned
// conversations) opens at the current version with each member's open assigned conversations
// indexed, closed ones left out.
func TestMigrateOpenAssigned(t *testing.T) {
	path := filepath.Join(t.TempDir(), "old.db")
	s, err := Open(path, Options{})
	if err != nil {
		t.Fatal(err)
	}
	w, _ := s.CreateWorkspace("Old")
	u, _ := s.CreateUser(NewUser{Email: "ana@example.com", Name: "Ana"})
	if _, err := s.AddMember(w.ID, u.ID, "member"); err != nil {
		t.Fatal(err)
	}
	if _, err := s.AddNumber(w.ID, "+14155550100", "Main"); err != nil {
		t.Fatal(err)
	}
	closed := ConversationClosed
	for i, to := range []string{"+14155550101", "+14155550102", "+14155550103"} {
		c, _, err := s.CreateConversation(w.ID, "+14155550100", to)
		if err != nil {
			t.Fatal(err)
		}
		up := ConversationUpdate{AssignedUserIDs: &[]string{u.ID}}
		if i == 2 {
			up.Status = &closed
		}
		if _, err := s.UpdateConversation(w.ID, c.ID, up); err != nil {
			t.Fatal(err)
		}
	}
	// Back to what the schema before the step wrote: no index, its version.
	before := schemaBefore(t, "open assigned conversations by member, for auto-assignment")
	err = rawUpdate(s.DB(), func(tx *kv.Tx) error {
		if err := tx.DeleteBucket(bAssignedOpen); err != nil {
			return err
		}
		return putSchema(tx, before)
	})
	s.Close()
	if err != nil {
		t.Fatal(err)
	}
	if s, err = Open(path, Options{}); err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	if v, _ := s.SchemaVersion(); v != SchemaVersion {
		t.Fatalf("schema %d, binary %d", v, SchemaVersion)
	}
	if n, err := s.OpenAssigned(w.ID, u.ID); err != nil || n != 2 {
		t.Fatalf("open assigned after the migration: %d (%v), want 2", n, err)
	}
}
