package store

import (
	"bytes"
	"path/filepath"
	"slices"
	"testing"

	"switchboard/store/kv"
)

// TestMigrateGroupMembers writes a schema-7 file (group conversations without member entries),
// opens it, and expects each member's history to hold the group's messages, the 1:1 threads
// to stay where they were, and a second upgrade pass to change nothing.
func TestMigrateGroupMembers(t *testing.T) {
	path := filepath.Join(t.TempDir(), "v7.db")
	s, err := Open(path, Options{})
	if err != nil {
		t.Fatal(err)
	}
	w, err := s.CreateWorkspace("Acme")
	if err != nil {
		t.Fatal(err)
	}
	const from, ana, bo, cy = "+14155550100", "+14155550123", "+14155550145", "+14155550167"
	if _, err := s.AddNumber(w.ID, from, "Main"); err != nil {
		t.Fatal(err)
	}
	for _, m := range []struct {
		to   []string
		text string
	}{{[]string{ana}, "ana alone"}, {[]string{ana, bo}, "ana and bo"}, {[]string{bo, cy, ana}, "all three"}, {[]string{cy}, "cy alone"}} {
		if _, err := s.SendMessage(w.ID, SendInput{From: from, To: m.to, Text: m.text}); err != nil {
			t.Fatal(err)
		}
	}
	texts := func(phone string) []string {
		t.Helper()
		msgs, _, err := s.ContactMessages(w.ID, phone, "", 10)
		if err != nil {
			t.Fatal(err)
		}
		var out []string
		for _, m := range msgs {
			out = append(out, m.Text)
		}
		return out
	}
	want := map[string][]string{ana: {"all three", "ana and bo", "ana alone"}, bo: {"all three", "ana and bo"}, cy: {"cy alone", "all three"}}
	for p, w := range want {
		if got := texts(p); !slices.Equal(got, w) {
			t.Fatalf("fixture: %s's history %q, want %q", p, got, w)
		}
	}
	s.Close()

	// Rewrite the file as schema 7 wrote it: no member entries.
	memberKeys := func(tx *kv.Tx) [][]byte {
		var ks [][]byte
		p := append(idKey(w.ID), 0, 'm')
		_ = forEachPrefix(tx.Bucket(bConvKey), p, func(k, _ []byte) error {
			ks = append(ks, bytes.Clone(k))
			return nil
		})
		return ks
	}
	var had [][]byte
	rewriteFile(t, path, func(tx *kv.Tx) error {
		had = memberKeys(tx)
		for _, k := range had {
			if err := tx.Bucket(bConvKey).Delete(k); err != nil {
				return err
			}
		}
		return putSchema(tx, 7)
	})
	if len(had) != 5 {
		t.Fatalf("before the rewrite: %d member entries, want 5 (2 + 3 members of two groups)", len(had))
	}

	s, err = Open(path, Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	if v, err := s.SchemaVersion(); err != nil || v != SchemaVersion {
		t.Fatalf("schema %d (%v), want %d", v, err, SchemaVersion)
	}
	for p, w := range want {
		if got := texts(p); !slices.Equal(got, w) {
			t.Errorf("after the upgrade %s's history is %q, want %q", p, got, w)
		}
	}
	_ = s.view(func(tx *kv.Tx) error {
		if got := memberKeys(tx); !slices.EqualFunc(got, had, bytes.Equal) {
			t.Errorf("after the upgrade: %d member entries, want the %d written at creation", len(got), len(had))
		}
		return nil
	})
	// The step is safe to run again (a crash before its version bump would repeat it).
	if err := rawUpdate(s.DB(), func(tx *kv.Tx) error { return indexGroupMembers(s, tx) }); err != nil {
		t.Fatal(err)
	}
	_ = s.view(func(tx *kv.Tx) error {
		if got := memberKeys(tx); len(got) != len(had) {
			t.Errorf("after a second run: %d member entries, want %d", len(got), len(had))
		}
		return nil
	})
}
