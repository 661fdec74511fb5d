package web

import (
	"errors"
	"fmt"
	"net/http"
	"strings"

	"switchboard/store"
	"switchboard/views"
)

// contactsBulk is POST /contacts/bulk: an action (add, remove, optout, delete) on the selected
// contacts (id, repeated) or on every contact matching the search and filters (scope=all), chunk
// by chunk. Zero contacts change nothing, and the page says so. A form that cannot be acted on
// (no action, no group, a delete not confirmed) comes back as the page it was sent from, the
// ticked rows and the choices still as they were.
func (h *Handler) contactsBulk(w http.ResponseWriter, r *http.Request, u *ui) {
	if !h.readUIForm(w, r, u) {
		return
	}
	pf := r.PostForm
	f, form, errText := contactFilter(pf, workspaceLocation(u.ws))
	back := func(msg string) {
		http.Redirect(w, r, "/contacts?"+withBulk(form.Values(strings.TrimSpace(pf.Get("q"))), msg).Encode(), http.StatusSeeOther)
	}
	action, groupID, scope := pf.Get("action"), pf.Get("groupId"), pf.Get("scope")
	refuse := func(msg string) {
		v, err := h.contactsView(u, pf)
		if err != nil {
			h.uiError(w, r, u, err)
			return
		}
		v.Error, v.Bulk = msg, views.BulkForm{Action: action, Group: groupID, Scope: scope, Selected: map[string]bool{}}
		for _, id := range pf["id"] {
			v.Bulk.Selected[id] = true
		}
		u.section = "contacts"
		h.render(w, r, u, http.StatusUnprocessableEntity, "Contacts", views.Contacts(v))
	}
	switch _, known := bulkNotices[action]; {
	case !known:
		refuse("Choose an action.")
		return
	case errText != "":
		refuse(errText)
		return
	case (action == "add" || action == "remove") && groupID == "":
		refuse("Choose a group (create one on the Groups page first).")
		return
	case action == "delete" && pf.Get("confirm") != "yes":
		refuse("Nothing deleted: tick “Yes, delete” to confirm. Your selection is kept.")
		return
	}
	apply := func(ids []string) (int, error) {
		switch action {
		case "add":
			return h.store.BulkAddToGroup(u.ws.ID, groupID, ids)
		case "remove":
			return h.store.BulkRemoveFromGroup(u.ws.ID, groupID, ids)
		case "optout":
			return h.store.BulkOptOut(u.ws.ID, u.user.ID, store.OptOutAdmin, ids)
		default:
			return h.store.BulkDeleteContacts(u.ws.ID, ids)
		}
	}
	total, seen := 0, 0
	var err error
	if scope == "all" {
		// Every match of the search and the filters, however many: the list's own walk.
		err = h.store.ContactIDs(u.ws.ID, f, bulkChunk, func(ids []string) error {
			seen += len(ids)
			n, err := apply(ids)
			total += n
			return err
		})
	} else {
		ids := pf["id"]
		seen = len(ids)
		for len(ids) > 0 && err == nil {
			chunk := ids[:min(len(ids), bulkChunk)]
			ids = ids[len(chunk):]
			var n int
			n, err = apply(chunk)
			total += n
		}
	}
	switch {
	case errors.Is(err, store.ErrNotFound):
		back("That group no longer exists: nothing was changed.")
		return
	case err != nil:
		h.uiError(w, r, u, err)
		return
	case seen == 0:
		refuse("No contacts selected: nothing was done. Tick some rows, or choose “All matching contacts”.")
		return
	}
	back(fmt.Sprintf(bulkNotices[action], thousandsN(total, "contact")))
}
