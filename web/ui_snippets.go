package web

import (
	"errors"
	"net/http"
	"strings"

	"switchboard/store"
	"switchboard/views"
)

// settingsSnippets is GET /settings/snippets: the workspace's snippets and the form to add one.
func (h *Handler) settingsSnippets(w http.ResponseWriter, r *http.Request, u *ui) {
	h.renderSnippets(w, r, u, http.StatusOK, views.SnippetForm{}, snippetNotices[r.URL.Query().Get("done")])
}

var snippetNotices = map[string]string{"saved": "Snippet saved.", "deleted": "Snippet deleted."}

func (h *Handler) renderSnippets(w http.ResponseWriter, r *http.Request, u *ui, status int, f views.SnippetForm, notice string) {
	u.section = "settings"
	list, err := h.store.Snippets(u.ws.ID)
	if err != nil {
		h.uiError(w, r, u, err)
		return
	}
	v := views.SnippetsView{Form: f, Notice: notice}
	for _, s := range list {
		v.Snippets = append(v.Snippets, views.SnippetRow{Shortcut: s.Shortcut, Name: s.Name, Text: s.Text})
	}
	h.render(w, r, u, status, "Snippets", views.Snippets(v))
}

// saveSnippet is POST /settings/snippets: create a snippet, or replace the one with that shortcut.
func (h *Handler) saveSnippet(w http.ResponseWriter, r *http.Request, u *ui) {
	if !h.readUIForm(w, r, u) {
		return
	}
	f := views.SnippetForm{Name: r.PostForm.Get("name"), Shortcut: r.PostForm.Get("shortcut"), Text: r.PostForm.Get("text")}
	_, err := h.store.SaveSnippet(u.ws.ID, store.Snippet{Name: f.Name, Shortcut: f.Shortcut, Text: f.Text})
	if f.Errors = fieldErrors(err, nil); f.Errors != nil {
		h.renderSnippets(w, r, u, http.StatusUnprocessableEntity, f, "")
		return
	}
	http.Redirect(w, r, "/settings/snippets?done=saved", http.StatusSeeOther)
}

// deleteSnippet is POST /settings/snippets/{shortcut}/delete.
func (h *Handler) deleteSnippet(w http.ResponseWriter, r *http.Request, u *ui) {
	if err := h.store.DeleteSnippet(u.ws.ID, r.PathValue("shortcut")); err != nil {
		h.renderSnippets(w, r, u, http.StatusNotFound, views.SnippetForm{Errors: fieldErrors(err, nil)}, "")
		return
	}
	http.Redirect(w, r, "/settings/snippets?done=deleted", http.StatusSeeOther)
}

// fillSnippet renders the snippet with that shortcut for the conversation: its merge tags take
// the values of the conversation's contact (a group conversation, or a number with no contact,
// gets the fallbacks). An unknown shortcut is a *store.Error of kind ErrNotFound.
func (h *Handler) fillSnippet(u *ui, c store.Conversation, shortcut string) (string, error) {
	sn, err := h.store.SnippetByShortcut(u.ws.ID, shortcut)
	if err != nil {
		return "", err
	}
	t, err := store.ParseTemplate(sn.Text)
	if err != nil {
		return sn.Text, nil // checked when saved; a text that no longer parses goes as written
	}
	var contact *store.Contact
	if !c.IsGroup() && len(c.Addresses) == 1 {
		if ct, err := h.store.ContactByPhone(u.ws.ID, c.Addresses[0]); err == nil {
			contact = &ct
		}
	}
	return t.Render(func(name string) string { return store.ContactTagValue(contact, name) }), nil
}

// threadSnippet is GET /inbox/{conversation}/snippet?s=shortcut: the filled text as plain text,
// for the reply box's script; an unknown snippet is a 404 whose body says so.
func (h *Handler) threadSnippet(w http.ResponseWriter, r *http.Request, u *ui) {
	c, ok := h.conversationOf(w, r, u)
	if !ok {
		return
	}
	shortcut := strings.TrimSpace(r.URL.Query().Get("s"))
	text, err := h.fillSnippet(u, c, shortcut)
	w.Header().Set("Content-Type", "text/plain; charset=utf-8")
	w.Header().Set("Cache-Control", "no-store")
	switch {
	case errors.Is(err, store.ErrNotFound):
		w.WriteHeader(http.StatusNotFound)
		_, _ = w.Write([]byte(unknownSnippet(shortcut)))
	case err != nil:
		h.uiError(w, r, u, err)
	default:
		_, _ = w.Write([]byte(text))
	}
}

// unknownSnippet is the message beside the reply box for a shortcut no snippet has.
func unknownSnippet(shortcut string) string {
	return "There is no snippet /" + strings.TrimPrefix(shortcut, "/") + ". Admins add snippets under Settings → Snippets."
}
