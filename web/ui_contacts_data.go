package web

import (
	"fmt"
	"log/slog"
	"net/http"
	"net/url"
	"slices"
	"strings"
	"time"

	"switchboard/internal/csvsafe"
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

// contactFilter reads the list's search (q) and filters from q; errText is a message for a bad
// filter.
func contactFilter(q url.Values, loc *time.Location) (store.ContactFilter, views.ContactFilterForm, string) {
	form := views.ContactFilterForm{Group: q.Get("group"), OptedOut: q.Get("optedOut"), HasConv: q.Get("hasConversation"),
		CreatedAfter: strings.TrimSpace(q.Get("createdAfter")), Sort: q.Get("sort")}
	f := store.ContactFilter{Search: strings.TrimSpace(q.Get("q")), GroupID: form.Group, Newest: form.Sort == "newest"}
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
	cw := csvsafe.NewWriter(w) // customers write the texts: no formulas
	_ = cw.Write(MessageExportColumns)
	n := 0
	err := h.store.ExportMessagesFor(u.ws.ID, from, to.AddDate(0, 0, 1), u.user.ID, func(m store.Message) error {
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
	msgs, next, err := h.store.ContactMessagesFor(u.ws.ID, c.Phone(), r.URL.Query().Get("before"), 20, u.user.ID)
	if err != nil {
		return err
	}
	for _, m := range msgs {
		cm := views.ContactMessage{ConversationID: m.ConversationID, Direction: m.Direction(),
			Text: m.Text, Status: m.Status, When: formatWhen(m.CreatedAt, h.now(), workspaceLocation(u.ws)), From: u.showPhone(m.From)}
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
