package web

import (
	"net/http"
	"strings"
	"time"

	"switchboard/store"
	"switchboard/views"
)

// loadItems fills v with a window of the thread: the newest items, or those before ?before=
// (a "Show earlier" link followed without JavaScript), or — for a form answered in place — those
// from ?from= (the form's anchor) on. It reads only the items shown.
func (h *Handler) loadItems(r *http.Request, u *ui, c store.Conversation, v *views.ThreadView, userName, contactName map[string]string) error {
	q := r.URL.Query()
	tq := store.ThreadQuery{Before: q.Get("before"), From: q.Get("from")}
	if tq.Before != "" {
		tq.From = ""
	}
	win, err := h.store.Thread(u.ws.ID, c.ID, tq)
	if err != nil {
		return err
	}
	v.Earlier, v.Older = win.Earlier, tq.Before != ""
	if tq.From != "" && win.Earlier == "" {
		v.Anchor = tq.From
	} else if len(win.Items) > 0 {
		v.Anchor = win.Items[0].ID
	}
	loc, now := u.ws.Location(), h.now()
	for _, t := range win.Items {
		it, err := h.threadItem(u, t, now, loc, userName, contactName)
		if err != nil {
			return err
		}
		v.Items = append(v.Items, it)
	}
	return nil
}

// threadItem is a thread item as the thread shows it: the one conversion used by the window
// (the page, "Show earlier", a form sent in place) and by the live appender (threadItems), so an
// item looks the same however it reached the page. Numbers are written for the reader (national
// format for the workspace's country).
func (h *Handler) threadItem(u *ui, t store.ThreadItem, now time.Time, loc *time.Location, userName, contactName map[string]string) (views.ThreadItem, error) {
	switch {
	case t.Message != nil:
		it := messageItem(t.Message, now, loc, userName, contactName, u.showPhone)
		var err error
		it.Media, err = h.attachmentsOf(t.Message.Media)
		return it, err
	case t.Comment != nil:
		return commentItem(t.Comment, now, loc, userName), nil
	case t.Entry != nil:
		return views.ThreadItem{ID: t.Entry.ID, Entry: true, At: formatWhen(t.Entry.CreatedAt, now, loc),
			Text: entryText(t.Entry, now, loc, userName, u.showPhone)}, nil
	}
	return views.ThreadItem{ID: t.ID}, nil
}

// commentItem is an internal comment as the thread shows it.
func commentItem(cm *store.Comment, now time.Time, loc *time.Location, userName map[string]string) views.ThreadItem {
	it := views.ThreadItem{ID: cm.ID, Comment: true, At: formatWhen(cm.CreatedAt, now, loc), Text: cm.Text, Who: userName[cm.UserID]}
	switch {
	case cm.Rule != "":
		it.Who = "Rule '" + cm.Rule + "'"
	case it.Who == "":
		it.Who = "Someone"
	}
	for _, id := range cm.Mentions {
		if n := userName[id]; n != "" {
			it.Mentions = append(it.Mentions, "@"+n)
		}
	}
	return it
}

// messageItem is a message as the thread shows it (its media are added by threadItem).
// show writes a number for the reader.
func messageItem(m *store.Message, now time.Time, loc *time.Location, userName, contactName map[string]string, show func(string) string) views.ThreadItem {
	it := views.ThreadItem{ID: m.ID, Outbound: m.Outbound, At: formatWhen(m.CreatedAt, now, loc), Text: m.Text, MediaError: m.MediaError,
		Status: m.Status, Segments: m.Segments, Error: m.ProviderErr, Auto: m.Auto != ""}
	// A failed message with a known carrier code says what happened and what to do, in plain words.
	if e, ok := store.ExplainCarrierError(m.ProviderErr); ok && m.Status == store.MessageFailed {
		it.Explain, it.Advice = e.What, e.Do
	}
	switch {
	case m.Outbound && m.AuthorID != "" && userName[m.AuthorID] != "":
		it.Who = userName[m.AuthorID]
	case m.Outbound:
		it.Who = show(m.From)
	case contactName[m.From] != "":
		it.Who = contactName[m.From] + " (" + show(m.From) + ")"
	default:
		it.Who = show(m.From)
	}
	if m.SendAt != nil {
		it.SendAt = formatWhen(*m.SendAt, now, loc)
		it.CanCancel = m.Status == store.MessageScheduled
	}
	if m.Status == store.MessageScheduled { // a broadcast copy held by a rule says which
		it.Held = m.Held
	}
	return it
}

// entryText says who did what: "Ana Lima closed the conversation".
// show writes a number for the reader.
func entryText(e *store.ConversationEntry, now time.Time, loc *time.Location, userName map[string]string, show func(string) string) string {
	who := userName[e.UserID]
	if who == "" {
		who = "Someone"
	}
	names := func(ids []string) string {
		var out []string
		for _, id := range ids {
			if n := userName[id]; n != "" {
				out = append(out, n)
			} else {
				out = append(out, "a former member")
			}
		}
		return joinAnd(out)
	}
	switch e.Kind {
	case store.EntryStatus:
		switch e.Status {
		case store.ConversationClosed:
			return who + " closed the conversation"
		case store.ConversationOpen:
			return who + " reopened the conversation"
		case store.ConversationSnoozed:
			if e.SnoozeUntil != nil {
				return who + " snoozed the conversation until " + formatWhen(*e.SnoozeUntil, now, loc)
			}
			return who + " snoozed the conversation"
		}
		return who + " set the status to " + e.Status
	case store.EntrySnoozeUp:
		return "The snooze ended: the conversation reopened"
	case store.EntryAssign:
		var parts []string
		if len(e.Added) > 0 {
			parts = append(parts, "assigned "+names(e.Added))
		}
		if len(e.Removed) > 0 {
			parts = append(parts, "unassigned "+names(e.Removed))
		}
		return who + " " + strings.Join(parts, " and ")
	case store.EntryLabels:
		var parts []string
		if len(e.Added) > 0 {
			parts = append(parts, "added "+plural(len(e.Added), "the label ", "the labels ")+joinAnd(e.Added))
		}
		if len(e.Removed) > 0 {
			parts = append(parts, "removed "+plural(len(e.Removed), "the label ", "the labels ")+joinAnd(e.Removed))
		}
		return who + " " + strings.Join(parts, " and ")
	case store.EntryAutoAssign:
		return "Assigned to " + names(e.Added) + " (" + e.Via + ")"
	case store.EntryRule:
		return "Rule '" + e.Rule + "' " + e.Text
	case store.EntryBlock:
		return who + " blocked " + show(e.Phone)
	case store.EntryUnblock:
		return who + " unblocked " + show(e.Phone)
	}
	return who + " changed the conversation"
}

func plural(n int, one, many string) string {
	if n == 1 {
		return one
	}
	return many
}

func joinAnd(list []string) string {
	switch len(list) {
	case 0:
		return ""
	case 1:
		return list[0]
	}
	return strings.Join(list[:len(list)-1], ", ") + " and " + list[len(list)-1]
}

// isHTMX reports whether htmx sent the request (it swaps the answer into the page).
func isHTMX(r *http.Request) bool { return r.Header.Get("HX-Request") == "true" }

// threadDone answers a thread form that succeeded: with htmx, the form's card afresh and the
// thread's items (out of band) so the page stays where it is; without, a 303 back to the end of
// the thread.
func (h *Handler) threadDone(w http.ResponseWriter, r *http.Request, u *ui, c store.Conversation, what string) {
	if !isHTMX(r) {
		http.Redirect(w, r, "/inbox/"+c.ID+"?done="+what+"#end", http.StatusSeeOther)
		return
	}
	// The refresh reads from the anchor the page showed (the form carries it).
	r.URL.RawQuery = "from=" + r.PostForm.Get("anchor")
	v, err := h.threadView(r, u, c)
	if err != nil {
		h.uiError(w, r, u, err)
		return
	}
	v.Notice = doneNotices[what]
	v.OOB = true
	h.fragment(w, r, views.ThreadFormDone(v, what))
}
