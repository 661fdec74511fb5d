package store

import (
	"bytes"
	"encoding/json"
	"regexp"
	"strings"
	"time"

	"switchboard/store/kv"
)

// Snippet is a workspace's saved reply: a name, the shortcut typed after "/" in the reply box,
// and a text with merge tags filled in from the conversation's contact.
type Snippet struct {
	WorkspaceID string    `json:"workspaceId"`
	Shortcut    string    `json:"shortcut"`
	Name        string    `json:"name"`
	Text        string    `json:"text"`
	CreatedAt   time.Time `json:"createdAt"`
	UpdatedAt   time.Time `json:"updatedAt"`
}

// snippetShortcut is what follows "/" in the reply box: lower-case letters, digits, - and _.
var snippetShortcut = regexp.MustCompile(`^[a-z0-9][a-z0-9_-]{0,31}$`)

// MaxSnippetText bounds a snippet's text, in code points: a few SMS segments.
const MaxSnippetText = 1600

// snippetKey is workspace | shortcut: one snippet per shortcut, listed in shortcut order.
func snippetKey(ws, shortcut string) []byte {
	return append(idKey(ws), shortcut...)
}

// SaveSnippet creates the workspace's snippet with that shortcut, or replaces it. The shortcut
// is folded to lower case; the text's merge tags are checked like a broadcast's (built-in tags
// and the workspace's custom properties).
func (s *Store) SaveSnippet(workspaceID string, in Snippet) (Snippet, error) {
	in.Shortcut = strings.ToLower(strings.TrimPrefix(strings.TrimSpace(in.Shortcut), "/"))
	in.Name = strings.TrimSpace(in.Name)
	in.Text = strings.TrimSpace(in.Text)
	var errs ValidationError
	if in.Name == "" || runeLen(in.Name) > 100 {
		errs = append(errs, FieldError{"name", "is required, at most 100 characters"})
	}
	if !snippetShortcut.MatchString(in.Shortcut) {
		errs = append(errs, FieldError{"shortcut", "must be 1 to 32 lower-case letters, digits, - or _, starting with a letter or digit"})
	}
	if in.Text == "" || runeLen(in.Text) > MaxSnippetText {
		errs = append(errs, FieldError{"text", "is required, at most 1600 characters"})
	}
	if errs != nil {
		sortFieldErrors(errs)
		return Snippet{}, errs
	}
	out := in
	err := s.update(func(tx *wtx) error {
		if _, err := getWorkspace(tx.Tx, workspaceID); err != nil {
			return tx.refuse(err)
		}
		props, err := properties(tx.Tx, workspaceID)
		if err != nil {
			return err
		}
		names := make([]string, len(props))
		for i, p := range props {
			names[i] = p.Name
		}
		if msg := CheckTemplate(in.Text, names); msg != "" {
			return tx.refuse(ValidationError{{"text", msg}})
		}
		b := tx.Bucket(bSnippets)
		out = in
		out.WorkspaceID = workspaceID
		var old Snippet
		if ok, err := getJSON(b, snippetKey(workspaceID, in.Shortcut), &old); err != nil {
			return err
		} else if ok {
			out.CreatedAt = old.CreatedAt
		} else {
			out.CreatedAt = s.Now()
		}
		out.UpdatedAt = s.Now()
		return putJSON(b, snippetKey(workspaceID, out.Shortcut), out)
	})
	return out, err
}

// Snippets lists the workspace's snippets by shortcut.
func (s *Store) Snippets(workspaceID string) ([]Snippet, error) {
	out := []Snippet{}
	prefix := idKey(workspaceID)
	err := s.view(func(tx *kv.Tx) error {
		c := tx.Bucket(bSnippets).Cursor()
		for k, v := c.Seek(prefix); k != nil && bytes.HasPrefix(k, prefix); k, v = c.Next() {
			var sn Snippet
			if err := json.Unmarshal(v, &sn); err != nil {
				return err
			}
			out = append(out, sn)
		}
		return nil
	})
	return out, err
}

// SnippetByShortcut finds the workspace's snippet by its shortcut (with or without the "/",
// any case); ErrNotFound names the shortcut.
func (s *Store) SnippetByShortcut(workspaceID, shortcut string) (Snippet, error) {
	shortcut = strings.ToLower(strings.TrimPrefix(strings.TrimSpace(shortcut), "/"))
	var sn Snippet
	err := s.view(func(tx *kv.Tx) error {
		ok, err := getJSON(tx.Bucket(bSnippets), snippetKey(workspaceID, shortcut), &sn)
		if err == nil && !ok {
			err = errorf(ErrNotFound, "there is no snippet /%s", shortcut)
		}
		return err
	})
	return sn, err
}

// DeleteSnippet removes the workspace's snippet with that shortcut.
func (s *Store) DeleteSnippet(workspaceID, shortcut string) error {
	return s.update(func(tx *wtx) error {
		b := tx.Bucket(bSnippets)
		k := snippetKey(workspaceID, shortcut)
		if b.Get(k) == nil {
			return tx.refuse(errorf(ErrNotFound, "there is no snippet /%s", shortcut))
		}
		return b.Delete(k)
	})
}
