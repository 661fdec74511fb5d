package web

import (
	"net/http"
	"net/url"
	"strings"

	"switchboard/store"
	"switchboard/views"
)

// The live inbox's pages and fragments. Pages listen to GET /events (static/live.js) and, when
// an event concerns what they show, fetch only the changed part, rendered by the same component
// as the full page: the inbox list (GET /inbox/list), the new or changed items of an open thread
// (GET /inbox/{conversation}/items?after= / ?id=) and the unread count (GET /inbox/unread).
//
// Read state: GET /inbox/{conversation} and GET /inbox/{conversation}/items mark the
// conversation read for the user. That is the only thing a GET changes, and it changes nothing
// anyone else sees; "Mark as unread" (a POST) undoes it.

// inboxList is GET /inbox/list: the inbox page's list alone, for the query of the page.
func (h *Handler) inboxList(w http.ResponseWriter, r *http.Request, u *ui) {
	v, err := h.inboxView(r, u)
	if err != nil {
		h.uiError(w, r, u, err)
		return
	}
	h.fragment(w, r, views.InboxList(v))
}

// unreadCount is GET /inbox/unread: {"unread": n} for the header's count and the title.
func (h *Handler) unreadCount(w http.ResponseWriter, r *http.Request, u *ui) {
	n, err := h.store.UnreadCount(u.ws.ID, u.user.ID)
	if err != nil {
		h.uiError(w, r, u, err)
		return
	}
	w.Header().Set("Cache-Control", "no-store")
	writeJSON(w, http.StatusOK, map[string]int{"unread": n})
}

// inboxListURL is where the inbox page at query q fetches its list again.
func inboxListURL(q url.Values) string {
	keep := url.Values{}
	for _, k := range []string{"status", "assigned", "label", "q", "unread", "mentions", "overdue", "before"} {
		if q.Get(k) != "" {
			keep.Set(k, q.Get(k))
		}
	}
	if len(keep) == 0 {
		return "/inbox/list"
	}
	return "/inbox/list?" + keep.Encode()
}

// liveInboxPage lists the unread or mentions filter of the inbox, when asked for; ok is false
// for every other list.
func (h *Handler) liveInboxPage(q url.Values, u *ui, f store.InboxFilter) (items []store.InboxItem, cursor string, ok bool, err error) {
	switch {
	case q.Get("mentions") == "1":
		items, cursor, err = h.store.MentionInbox(u.ws.ID, u.user.ID, f)
	case q.Get("unread") == "1":
		items, cursor, err = h.store.UnreadInbox(u.ws.ID, u.user.ID, f)
	case q.Get("overdue") == "1":
		items, cursor, err = h.store.OverdueInbox(u.ws.ID, f)
	default:
		return nil, "", false, nil
	}
	return items, cursor, true, err
}

// markUnreadRows sets each row's Unread for the user.
func (h *Handler) markUnreadRows(u *ui, rows []views.InboxRow) error {
	ids := make([]string, len(rows))
	for i, r := range rows {
		ids[i] = r.ID
	}
	unread, err := h.store.UnreadOf(u.ws.ID, u.user.ID, ids)
	for i := range rows {
		rows[i].Unread = unread[rows[i].ID]
	}
	return err
}

// threadItems is GET /inbox/{conversation}/items, the fragments of an open thread, rendered by
// the same component as the page: ?before= the earlier items "Show earlier" puts in place;
// ?id= one message again (its status changed: it is replaced in place); else the items the
// thread has not shown yet (?after= the id of its newest item), which the live page appends.
// It never sends the whole thread: at most 100 items.
func (h *Handler) threadItems(w http.ResponseWriter, r *http.Request, u *ui) {
	c, ok := h.conversationOf(w, r, u)
	if !ok {
		return
	}
	q := r.URL.Query()
	if q.Get("before") != "" {
		v, err := h.threadView(r, u, c)
		if err != nil {
			h.uiError(w, r, u, err)
			return
		}
		h.fragment(w, r, views.ThreadEarlier(v))
		return
	}
	names, err := h.threadNames(u, c)
	if err != nil {
		h.uiError(w, r, u, err)
		return
	}
	var items []store.ThreadItem
	if id := q.Get("id"); id != "" {
		m, err := h.store.Message(u.ws.ID, id)
		if err != nil || m.ConversationID != c.ID {
			h.notFound(w, r, u, "such message")
			return
		}
		items = append(items, store.ThreadItem{ID: m.ID, Message: &m})
	} else {
		// The user is looking at the thread: what arrives in it is read.
		if err := h.store.MarkRead(u.ws.ID, u.user.ID, c.ID); err != nil {
			h.uiError(w, r, u, err)
			return
		}
		if items, err = h.store.ThreadAfter(u.ws.ID, c.ID, q.Get("after")); err != nil {
			h.uiError(w, r, u, err)
			return
		}
	}
	v := views.ThreadView{ID: c.ID}
	loc, now := u.ws.Location(), h.now()
	for _, t := range items {
		it, err := h.threadItem(u, t, now, loc, names.users, names.contacts)
		if err != nil {
			h.uiError(w, r, u, err)
			return
		}
		v.Items = append(v.Items, it)
	}
	h.fragment(w, r, views.ThreadItemList(v))
}

// threadMarkUnread is POST /inbox/{conversation}/unread: "Mark as unread", back to the inbox
// (staying on the thread would read it again).
func (h *Handler) threadMarkUnread(w http.ResponseWriter, r *http.Request, u *ui) {
	c, ok := h.conversationOf(w, r, u)
	if !ok {
		return
	}
	if err := h.store.MarkUnread(u.ws.ID, u.user.ID, c.ID); err != nil {
		h.uiError(w, r, u, err)
		return
	}
	http.Redirect(w, r, "/inbox?done=unread", http.StatusSeeOther)
}

type threadNames struct{ users, contacts map[string]string }

// threadNames maps the workspace's members to their names and the conversation's numbers to
// their contacts' names.
func (h *Handler) threadNames(u *ui, c store.Conversation) (threadNames, error) {
	n := threadNames{users: map[string]string{}, contacts: map[string]string{}}
	for _, a := range c.Addresses {
		if ct, err := h.store.ContactByPhone(u.ws.ID, a); err == nil {
			if name := strings.TrimSpace(ct.FirstName + " " + ct.LastName); name != "" {
				n.contacts[a] = name
			}
		}
	}
	members, err := h.store.Members(u.ws.ID)
	if err != nil {
		return n, err
	}
	for _, m := range members {
		usr, err := h.store.User(m.UserID)
		if err != nil {
			continue
		}
		n.users[usr.ID] = usr.Name
		if usr.Name == "" {
			n.users[usr.ID] = usr.Email
		}
	}
	return n, nil
}
