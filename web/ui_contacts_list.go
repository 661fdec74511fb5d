package web

import (
	"errors"
	"net/http"
	"net/url"
	"strings"

	"switchboard/store"
	"switchboard/views"
)

// contacts is GET /contacts: the contacts matching the search (q, the API's search words) and
// the filters, counted, in pages of 100 after the cursor "after", sorted by name or newest.
// A search is a filter like the others: every match is counted, paged and acted on.
func (h *Handler) contacts(w http.ResponseWriter, r *http.Request, u *ui) {
	u.section = "contacts"
	q := r.URL.Query()
	v, err := h.contactsView(u, q)
	if err != nil {
		h.uiError(w, r, u, err)
		return
	}
	v.Notice = contactNotices[q.Get("done")]
	if n := q.Get("bulk"); n != "" {
		v.Notice = n
	}
	h.render(w, r, u, http.StatusOK, "Contacts", views.Contacts(v))
}

// contactsView loads the page of the list that q asks for (its search, filters, sort and
// cursor, with the trail of the pages before for "Previous page").
func (h *Handler) contactsView(u *ui, q url.Values) (views.ContactsView, error) {
	f, form, errText := contactFilter(q, workspaceLocation(u.ws))
	v := views.ContactsView{Q: strings.TrimSpace(q.Get("q")), Filter: form, Error: errText,
		After: q.Get("after"), Back: q["back"]}
	groups, err := h.store.Groups(u.ws.ID)
	if err != nil {
		return v, err
	}
	for _, g := range groups {
		v.Groups = append(v.Groups, views.Option{Value: g.ID, Label: g.Name})
	}
	if errText != "" {
		return v, nil
	}
	page, err := h.store.ListContacts(u.ws.ID, f, v.After, contactPageSize)
	if err != nil {
		var verr store.ValidationError
		if !errors.As(err, &verr) && !errors.Is(err, store.ErrNotFound) {
			return v, err
		}
		v.Error = "These filters do not apply here (an unknown group or an old page link): showing none."
	}
	v.Total = page.Total
	list := form.Values(v.Q)
	if v.After != "" {
		list.Set("after", v.After)
	}
	list["back"] = v.Back
	v.NextURL, v.PrevURL = pageLinks("/contacts", list, "after", page.Next)
	for _, c := range page.Contacts {
		out, err := h.store.IsOptedOut(u.ws.ID, c.Phone())
		if err != nil {
			return v, err
		}
		v.Rows = append(v.Rows, views.ContactRow{ID: c.ID, Name: contactName(&c), Phone: u.showPhone(c.Phone()), Email: c.Email, Company: c.Company, OptedOut: out})
	}
	return v, nil
}
