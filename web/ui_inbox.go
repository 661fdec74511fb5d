package web

import (
	"net/http"
	"net/url"
	"strings"
	"time"

	"switchboard/store"
	"switchboard/views"
)

// inbox is GET /inbox: the current workspace's conversations, newest activity first, with the
// filters of the query string. Without a workspace it is where one is created.
func (h *Handler) inbox(w http.ResponseWriter, r *http.Request, u *ui) {
	if u.ws.ID == "" {
		h.render(w, r, u, http.StatusOK, "Create a workspace", views.NoWorkspace(u.user.Superuser, "", nil))
		return
	}
	h.inboxPage(r, u).show(w, r, u, http.StatusOK, nil)
}

// inboxPage is /inbox, for the forms that post back to it.
func (h *Handler) inboxPage(r *http.Request, u *ui) formPage[views.InboxView] {
	return pageOf(h, "Inbox", views.Inbox, func() (views.InboxView, error) { return h.inboxView(r, u) })
}

var doneNotices = map[string]string{
	"workspace": "Workspace created. Add a number to start texting.",
	"number":    "Number added.",
	"reply":     "Reply queued for sending.",
	"comment":   "Comment added.",
	"assign":    "Assignees saved.",
	"labels":    "Labels saved.",
	"status":    "Status saved.",
	"block":     "Number blocked.",
	"unblock":   "Number unblocked.",
	"simulate":  "Inbound text simulated.",
	"optout":    "Opted out: no more texts go to this number.",
	"unread":    "Marked as unread.",
	"joined":    "Welcome: your account is ready and you are signed in.",
	// The live inbox's thread forms.
	"later":     "Reply scheduled: it goes at the time you chose unless the contact writes first.",
	"close":     "Conversation closed.",
	"reopen":    "Conversation reopened.",
	"snooze":    "Conversation snoozed.",
	"cancelled": "Scheduled reply cancelled.",
}

// inboxPage is how many conversations a page of the inbox lists.
const inboxPage = 50

// inboxView loads the list and the forms' choices for the filters in r's query.
func (h *Handler) inboxView(r *http.Request, u *ui) (views.InboxView, error) {
	q := r.URL.Query()
	v := views.InboxView{Status: q.Get("status"), Label: q.Get("label"), Q: strings.TrimSpace(q.Get("q")),
		Mine: q.Get("assigned") == "me", Unassigned: q.Get("assigned") == "none", CanAddNumber: u.isAdmin(),
		Notice: doneNotices[q.Get("done")]}
	switch v.Status {
	case "", store.ConversationOpen, store.ConversationSnoozed, store.ConversationClosed:
	default:
		v.Status = ""
	}
	f := store.InboxFilter{Status: v.Status, Label: v.Label, Search: v.Q, Unassigned: v.Unassigned,
		Limit: inboxPage, Before: q.Get("before"), Viewer: u.user.ID}
	if v.Mine {
		f.AssignedTo = u.user.ID
	}
	v.Hours = h.hoursState(u) // whether the workspace is open, beside the page's title
	v.Unread, v.Mentions, v.Overdue, v.ListURL = q.Get("unread") == "1", q.Get("mentions") == "1", q.Get("overdue") == "1", inboxListURL(q)
	items, cursor, live, err := h.liveInboxPage(q, u, f)
	if !live {
		items, cursor, err = h.store.InboxPage(u.ws.ID, f)
	}
	if err != nil {
		return v, err
	}
	list := url.Values{}
	for _, k := range []string{"status", "assigned", "label", "q", "unread", "mentions", "overdue", "before"} {
		if q.Get(k) != "" {
			list.Set(k, q.Get(k))
		}
	}
	list["back"] = q["back"]
	v.More, v.Newer = pageLinks("/inbox", list, "before", cursor)
	loc, now := u.ws.Location(), h.now()
	for _, it := range items {
		c := it.Conversation
		number := u.showPhones(c.Addresses)
		row := views.InboxRow{ID: c.ID, Title: it.ContactName, Number: number, Last: it.Last, Status: c.Status,
			Labels: c.Labels, Assigned: len(c.AssignedUserIDs) > 0, Overdue: c.Overdue(now)}
		if c.Name != "" {
			row.Title = c.Name
		}
		if row.Title == "" {
			row.Title = number
		}
		at := c.CreatedAt
		if c.LastMessageTime != nil {
			at = *c.LastMessageTime
		}
		row.When = formatWhen(at, h.now(), loc)
		v.Rows = append(v.Rows, row)
	}
	if err := h.markUnreadRows(u, v.Rows); err != nil {
		return v, err
	}
	if v.Labels, err = h.store.LabelsFor(u.ws.ID, u.user.ID); err != nil {
		return v, err
	}
	numbers, err := h.usableNumbers(u)
	if err != nil {
		return v, err
	}
	for _, n := range numbers {
		if !n.Active {
			continue
		}
		label := u.showPhone(n.Phone)
		if n.Name != "" {
			label += " (" + n.Name + ")"
		}
		v.Numbers = append(v.Numbers, views.Option{Value: n.Phone, Label: label})
		v.Warnings = addWarning(v.Warnings, &n)
	}
	return v, nil
}

// formatWhen shows a time of today as its clock time, an older one with its date.
func formatWhen(t, now time.Time, loc *time.Location) string {
	t, now = t.In(loc), now.In(loc)
	if t.YearDay() == now.YearDay() && t.Year() == now.Year() {
		return t.Format("15:04")
	}
	if t.Year() == now.Year() {
		return t.Format("Jan 2, 15:04")
	}
	return t.Format(dateTimeLayout)
}

// newConversation is POST /inbox: "New conversation" from one of the workspace's numbers to a
// phone number; it opens the thread (the existing one when there is one).
func (h *Handler) newConversation(w http.ResponseWriter, r *http.Request, u *ui) {
	files, fileErr, ok := h.readMediaForm(w, r, u)
	if !ok {
		return
	}
	f := views.NewConversationForm{From: strings.TrimSpace(r.PostForm.Get("from")), To: strings.TrimSpace(r.PostForm.Get("to"))}
	var conv store.Conversation
	var err error
	var to, from string
	if to, err = u.readPhone("to", f.To); err == nil {
		from, err = u.readPhone("from", f.From)
	}
	if err == nil && h.numberRefused(w, r, u, h.store.CheckNumberUse(u.ws.ID, u.user.ID, from)) {
		return
	}
	switch {
	case err != nil:
	case fileErr != "":
		err = store.ValidationError{{Field: "files", Message: fileErr}}
	case len(files) > 0: // attachments go out as the conversation's first message
		var m store.Message
		if m, err = h.store.SendMessage(u.ws.ID, store.SendInput{From: from, To: []string{to}, Files: files, AuthorID: u.user.ID}); err == nil {
			conv.ID = m.ConversationID
		}
	default:
		conv, _, err = h.store.CreateConversation(u.ws.ID, from, to)
	}
	f.Errors = fieldErrors(err, nil)
	h.inboxPage(r, u).answer(w, r, u, f.Errors, "/inbox/"+conv.ID, func(v *views.InboxView) { v.New = f })
}
