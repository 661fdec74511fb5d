package store_test

import (
	"errors"
	"testing"

	"switchboard/store"
)

func TestSnippets(t *testing.T) {
	s := openStore(t, store.Options{})
	w, err := s.CreateWorkspace("Acme")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := s.AddProperty(w.ID, "plan", "text"); err != nil {
		t.Fatal(err)
	}
	sn, err := s.SaveSnippet(w.ID, store.Snippet{Name: "Hours", Shortcut: "/Hours", Text: "Hi {{firstName|there}}, we open at 9. Your plan: {{plan}}"})
	if err != nil || sn.Shortcut != "hours" {
		t.Fatalf("SaveSnippet = %+v, %v; want shortcut hours", sn, err)
	}
	// Bad input: each field says what is wrong, and nothing is stored.
	for _, c := range []struct {
		in    store.Snippet
		field string
	}{
		{store.Snippet{Name: "", Shortcut: "a", Text: "x"}, "name"},
		{store.Snippet{Name: "A", Shortcut: "has space", Text: "x"}, "shortcut"},
		{store.Snippet{Name: "A", Shortcut: "", Text: "x"}, "shortcut"},
		{store.Snippet{Name: "A", Shortcut: "a", Text: ""}, "text"},
		{store.Snippet{Name: "A", Shortcut: "a", Text: "Hi {{nickname}}"}, "text"},
		{store.Snippet{Name: "A", Shortcut: "a", Text: "Hi {{firstName"}, "text"},
	} {
		_, err := s.SaveSnippet(w.ID, c.in)
		wantFields(t, err, c.field)
	}
	list, err := s.Snippets(w.ID)
	if err != nil || len(list) != 1 || list[0].Name != "Hours" {
		t.Fatalf("Snippets = %+v, %v; want the one snippet", list, err)
	}
	got, err := s.SnippetByShortcut(w.ID, "/HOURS")
	if err != nil || got.Text != sn.Text {
		t.Fatalf("SnippetByShortcut = %+v, %v", got, err)
	}
	if _, err := s.SnippetByShortcut(w.ID, "nope"); !errors.Is(err, store.ErrNotFound) {
		t.Fatalf("an unknown snippet: %v, want ErrNotFound", err)
	}
	other, _ := s.CreateWorkspace("Other")
	if l, _ := s.Snippets(other.ID); len(l) != 0 {
		t.Fatalf("another workspace sees %d snippets", len(l))
	}
	if err := s.DeleteSnippet(w.ID, "hours"); err != nil {
		t.Fatal(err)
	}
	if err := s.DeleteSnippet(w.ID, "hours"); !errors.Is(err, store.ErrNotFound) {
		t.Fatalf("deleting twice: %v, want ErrNotFound", err)
	}
}
