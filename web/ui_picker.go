package web

import (
	"net/http"
	"strings"
	"unicode"

	"switchboard/views"
)

// maxSuggestions bounds the contact picker's list: a short list to choose from, not a search page.
const maxSuggestions = 8

// contactSuggest is GET /contacts/suggest?to=…: the "To" field's suggestion list (an htmx
// fragment), the contacts the contact search finds for what was typed. Empty input or no match
// renders an empty list, and typing a number works without it.
func (h *Handler) contactSuggest(w http.ResponseWriter, r *http.Request, u *ui) {
	q := strings.TrimSpace(r.URL.Query().Get("to"))
	var rows []views.Option
	if q != "" {
		found, err := h.store.SearchContacts(u.ws.ID, q)
		if err != nil {
			h.uiError(w, r, u, err)
			return
		}
		for i := range found {
			if len(rows) == maxSuggestions {
				break
			}
			c := &found[i]
			if c.Phone() == "" {
				continue
			}
			name := contactName(c)
			if name == "" {
				name = "Unnamed contact"
			}
			rows = append(rows, views.Option{Value: u.showPhone(c.Phone()), Label: name})
		}
	}
	// "No contact by that name" only when a name was typed: a number needs no contact.
	named := strings.IndexFunc(q, unicode.IsLetter) >= 0
	h.fragment(w, r, views.ContactSuggestions(rows, named))
}
