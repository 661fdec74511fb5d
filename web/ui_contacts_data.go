package web

import (
	"encoding/csv"
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"net/url"
	"slices"
	"strings"
	"time"

	"switchboard/store"
	"switchboard/views"
)

// contactPageSize is how many contacts one page of /contacts shows.
const contactPageSize = 100

// bulkChunk is how many contacts one transaction of a bulk action changes.
const bulkChunk = 1000

var bulkNotices = map[string]string{
	"add":    "Added %s to the group.",
	"remove": "Removed %s from the group.",
	"optout": "Opted out %s.",
	"delete": "Deleted %s.",
}

// contactFilter reads the list's filters from q; errText is a message for a bad one.
func contactFilter(q url.Values, loc *time.Location) (store.ContactFilter, views.ContactFilterForm, string) {
	form := views.ContactFilterForm{Group: q.Get("group"), OptedOut: q.Get("optedOut"), HasConv: q.Get("hasConversation"),
		CreatedAfter: strings.TrimSpace(q.Get("createdAfter")), Sort: q.Get("sort")}
	f := store.ContactFilter{GroupID: form.Group, Newest: form.Sort == "newest"}
	yesNo := func(s string) *bool {
		switch s {
		case "yes":
			b := true
			return &b
		case "no":
			b := false
			return &b
		}
		return nil
	}
	f.OptedOut, f.HasConversation = yesNo(form.OptedOut), yesNo(form.HasConv)
	if form.CreatedAfter != "" {
		d, err := time.ParseInLocation("2006-01-02", form.CreatedAfter, loc)
		if err != nil {
			return f, form, "“Created on or after” must be a date such as 2026-01-31."
		}
		f.CreatedAfter = d
	}
	return f, form, ""
}

// workspaceLocation is the workspace's time zone (dates typed in the UI are its days), else UTC.
func workspaceLocation(ws store.Workspace) *time.Location {
	if ws.TimeZone != "" {
		if loc, err := time.LoadLocation(ws.TimeZone); err == nil {
			return loc
		}
	}
	return time.UTC
}

// contacts is GET /contacts: with q, the search of find-contact-action (at most 100, filtered
// further by the filters); without, every contact matching the filters, counted, in pages of
// 100 after the cursor "after".
func (h *Handler) contacts(w http.ResponseWriter, r *http.Request, u *ui) {
	u.section = "contacts"
	q := r.URL.Query()
	f, form, errText := contactFilter(q, workspaceLocation(u.ws))
	v := views.ContactsView{Q: strings.TrimSpace(q.Get("q")), Filter: form, Notice: contactNotices[q.Get("done")], Error: errText}
	if n := q.Get("bulk"); n != "" {
		v.Notice = n
	}
	groups, err := h.store.Groups(u.ws.ID)
	if err != nil {
		h.uiError(w, r, u, err)
		return
	}
	for _, g := range groups {
		v.Groups = append(v.Groups, views.Option{Value: g.ID, Label: g.Name})
	}
	var list []store.Contact
	if v.Q != "" {
		v.Searchy = true
		found, err := h.store.SearchContacts(u.ws.ID, v.Q)
		if err != nil {
			h.uiError(w, r, u, err)
			return
		}
		keep, err := h.matchIDs(u, f, found)
		if err != nil {
			h.uiError(w, r, u, err)
			return
		}
		for _, c := range found {
			if keep[c.ID] {
				list = append(list, c)
			}
		}
		v.Total = len(list)
	} else if errText == "" {
		page, err := h.store.ListContacts(u.ws.ID, f, q.Get("after"), contactPageSize)
		if err != nil {
			var verr store.ValidationError
			if !errors.As(err, &verr) && !errors.Is(err, store.ErrNotFound) {
				h.uiError(w, r, u, err)
				return
			}
			v.Error = "These filters do not apply here (an unknown group or an old page link): showing none."
		}
		list, v.Total, v.Next = page.Contacts, page.Total, page.Next
	}
	for _, c := range list {
		out, err := h.store.IsOptedOut(u.ws.ID, c.Phone())
		if err != nil {
			h.uiError(w, r, u, err)
			return
		}
		v.Rows = append(v.Rows, views.ContactRow{ID: c.ID, Name: contactName(&c), Phone: u.showPhone(c.Phone()), Email: c.Email, Company: c.Company, OptedOut: out})
	}
	h.render(w, r, u, http.StatusOK, "Contacts", views.Contacts(v))
}

// matchIDs reports which of found match f (a search narrowed by the list's filters).
func (h *Handler) matchIDs(u *ui, f store.ContactFilter, found []store.Contact) (map[string]bool, error) {
	keep := map[string]bool{}
	if f == (store.ContactFilter{Newest: f.Newest}) {
		for _, c := range found {
			keep[c.ID] = true
		}
		return keep, nil
	}
	want := map[string]bool{}
	for _, c := range found {
		want[c.ID] = true
	}
	err := h.store.ContactIDs(u.ws.ID, f, bulkChunk, func(ids []string) error {
		for _, id := range ids {
			if want[id] {
				keep[id] = true
			}
		}
		return nil
	})
	return keep, err
}

// contactsBulk is POST /contacts/bulk: an action (add, remove, optout, delete) on the selected
// contacts (id, repeated) or on every contact matching the filters (scope=all), chunk by chunk.
// Zero contacts change nothing, and the page says so.
func (h *Handler) contactsBulk(w http.ResponseWriter, r *http.Request, u *ui) {
	if !h.readUIForm(w, r, u) {
		return
	}
	pf := r.PostForm
	f, form, errText := contactFilter(pf, workspaceLocation(u.ws))
	back := func(msg string) {
		http.Redirect(w, r, "/contacts?"+withBulk(form.Values(strings.TrimSpace(pf.Get("q"))), msg).Encode(), http.StatusSeeOther)
	}
	action, groupID := pf.Get("action"), pf.Get("groupId")
	if _, ok := bulkNotices[action]; !ok {
		back("Choose an action.")
		return
	}
	if errText != "" {
		back(errText)
		return
	}
	if (action == "add" || action == "remove") && groupID == "" {
		back("Choose a group (create one on the Groups page first).")
		return
	}
	if action == "delete" && pf.Get("confirm") != "yes" {
		back("Nothing deleted: tick “Yes, delete” to confirm.")
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
	if pf.Get("scope") == "all" {
		if q := strings.TrimSpace(pf.Get("q")); q != "" {
			// A search's matches are its (at most 100) results.
			found, serr := h.store.SearchContacts(u.ws.ID, q)
			keep, kerr := h.matchIDs(u, f, found)
			if err = errors.Join(serr, kerr); err == nil {
				var ids []string
				for _, c := range found {
					if keep[c.ID] {
						ids = append(ids, c.ID)
					}
				}
				seen = len(ids)
				if len(ids) > 0 {
					total, err = apply(ids)
				}
			}
		} else {
			err = h.store.ContactIDs(u.ws.ID, f, bulkChunk, func(ids []string) error {
				seen += len(ids)
				n, err := apply(ids)
				total += n
				return err
			})
		}
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
		back("No contacts selected: nothing was done. Tick some rows, or choose “All matching contacts”.")
		return
	}
	back(fmt.Sprintf(bulkNotices[action], thousandsN(total, "contact")))
}

func withBulk(v url.Values, msg string) url.Values {
	v.Set("bulk", msg)
	return v
}

func thousandsN(n int, word string) string {
	s := fmt.Sprint(n)
	var b strings.Builder
	for i, r := range s {
		if i > 0 && (len(s)-i)%3 == 0 {
			b.WriteByte(',')
		}
		b.WriteRune(r)
	}
	if n != 1 {
		word += "s"
	}
	return b.String() + " " + word
}

// contactsExport is GET /contacts/export: every contact matching the filters as CSV, streamed.
func (h *Handler) contactsExport(w http.ResponseWriter, r *http.Request, u *ui) {
	q := r.URL.Query()
	f, _, errText := contactFilter(q, workspaceLocation(u.ws))
	if errText != "" {
		h.render(w, r, u, http.StatusBadRequest, "Bad request", views.ErrorPage("Bad request", errText))
		return
	}
	w.Header().Set("Content-Type", "text/csv; charset=utf-8")
	w.Header().Set("Content-Disposition", `attachment; filename="contacts-`+h.now().UTC().Format("2006-01-02")+`.csv"`)
	w.Header().Set("Cache-Control", "no-store")
	rc := http.NewResponseController(w)
	if err := h.store.WriteContactsCSV(w, u.ws.ID, f, func() { _ = rc.SetWriteDeadline(time.Now().Add(30 * time.Second)) }); err != nil {
		// The header is sent: the body stops short, and the log says why.
		logUIError(r, err)
	}
}

// inboxExport is GET /inbox/export?from=YYYY-MM-DD&to=YYYY-MM-DD: the workspace's messages of
// those days (both included, in the workspace's time zone) as CSV, streamed.
func (h *Handler) inboxExport(w http.ResponseWriter, r *http.Request, u *ui) {
	loc := workspaceLocation(u.ws)
	q := r.URL.Query()
	from, err1 := time.ParseInLocation("2006-01-02", q.Get("from"), loc)
	to, err2 := time.ParseInLocation("2006-01-02", q.Get("to"), loc)
	if err1 != nil || err2 != nil || to.Before(from) {
		h.render(w, r, u, http.StatusBadRequest, "Bad request", views.ErrorPage("Bad request",
			"Give from and to as dates such as /inbox/export?from=2026-01-01&to=2026-01-31 (to on or after from)."))
		return
	}
	w.Header().Set("Content-Type", "text/csv; charset=utf-8")
	w.Header().Set("Content-Disposition", `attachment; filename="messages-`+q.Get("from")+`-to-`+q.Get("to")+`.csv"`)
	w.Header().Set("Cache-Control", "no-store")
	rc := http.NewResponseController(w)
	cw := csv.NewWriter(w)
	_ = cw.Write(MessageExportColumns)
	n := 0
	err := h.store.ExportMessages(u.ws.ID, from, to.AddDate(0, 0, 1), func(m store.Message) error {
		if n%1000 == 0 {
			_ = rc.SetWriteDeadline(time.Now().Add(30 * time.Second))
		}
		n++
		to := m.To
		if len(m.Group) > 0 {
			to = strings.Join(m.Group, ";")
		}
		if err := cw.Write([]string{m.ConversationID, m.ID, store.FormatTime(m.CreatedAt), m.Direction(), m.From, to,
			m.Text, strings.Join(m.Media, ";"), m.Status, m.ProviderErr}); err != nil {
			return err
		}
		return cw.Error()
	})
	cw.Flush()
	if err != nil {
		logUIError(r, err)
	}
}

// MessageExportColumns is the header of /inbox/export.
var MessageExportColumns = []string{"conversationId", "messageId", "createdAt", "direction", "from", "to", "text", "media", "status", "error"}

// contactDelete is POST /contacts/{contact}/delete: without confirm=yes it shows the
// confirmation (delete, or erase with erase=yes); with it, it deletes and goes to the list.
func (h *Handler) contactDelete(w http.ResponseWriter, r *http.Request, u *ui) {
	c, ok := h.contactOf(w, r, u)
	if !ok || !h.readUIForm(w, r, u) {
		return
	}
	erase := r.PostForm.Get("erase") == "yes"
	if r.PostForm.Get("confirm") != "yes" {
		h.render(w, r, u, http.StatusOK, "Delete "+c.Phone(), views.ContactDeleteConfirm(views.ContactDeleteView{
			ID: c.ID, Name: contactName(&c), Phone: u.showPhone(c.Phone()), Erase: erase}))
		return
	}
	if _, err := h.store.DeleteContact(u.ws.ID, c.Phone(), erase); err != nil {
		h.uiError(w, r, u, err)
		return
	}
	msg := "Deleted " + c.Phone() + "."
	if erase {
		msg = "Erased " + c.Phone() + " with its conversations and messages."
	}
	http.Redirect(w, r, "/contacts?"+url.Values{"bulk": {msg}}.Encode(), http.StatusSeeOther)
}

// contactMessages fills the contact page's message history: the contact's messages across its
// conversations (1:1 and group), newest first, a page of 20 before the message "before".
func (h *Handler) contactMessages(r *http.Request, u *ui, c *store.Contact, v *views.ContactView) error {
	msgs, next, err := h.store.ContactMessages(u.ws.ID, c.Phone(), r.URL.Query().Get("before"), 20)
	if err != nil {
		return err
	}
	for _, m := range msgs {
		cm := views.ContactMessage{ConversationID: m.ConversationID, Direction: m.Direction(),
			Text: m.Text, Status: m.Status, When: m.CreatedAt.In(workspaceLocation(u.ws)).Format("2006-01-02 15:04"), From: u.showPhone(m.From)}
		if len(m.Group) > 1 {
			// A group message says who else is in its thread: the other members.
			cm.Group = u.showPhones(slices.DeleteFunc(slices.Clone(m.Group), func(a string) bool { return a == c.Phone() }))
		}
		v.Messages = append(v.Messages, cm)
	}
	q := url.Values{"before": {r.URL.Query().Get("before")}, "back": r.URL.Query()["back"]}
	if q.Get("before") == "" {
		q.Del("before")
	}
	older, newer := pageLinks("/contacts/"+c.ID, q, "before", next)
	if older != "" {
		v.MessagesOlder = older + "#contact-history-h"
	}
	if newer != "" {
		v.MessagesNewer = newer + "#contact-history-h"
	}
	return nil
}

// logUIError logs a failure after the answer's header went out (a stream cut short).
func logUIError(r *http.Request, err error) {
	slog.ErrorContext(r.Context(), "ui stream", "request_id", requestID(r.Context()), "path", r.URL.Path, "error", err)
}
