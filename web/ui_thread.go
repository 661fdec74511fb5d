package web

import (
	"errors"
	"fmt"
	"net/http"
	"slices"
	"strings"
	"unicode/utf8"

	"switchboard/carrier"
	"switchboard/store"
	"switchboard/views"
)

// conversationOf finds the page's conversation in the current workspace, or in another
// workspace the user may open, which the page then acts on (u.ws) without switching the
// session's workspace: a GET changes nothing, and the page offers the switch as a form. Any
// other id is the 404 page (never another workspace's data). false when it answered.
func (h *Handler) conversationOf(w http.ResponseWriter, r *http.Request, u *ui) (store.Conversation, bool) {
	id := r.PathValue("conversation")
	c, err := h.store.Conversation(u.ws.ID, id)
	if errors.Is(err, store.ErrNotFound) {
		for _, ws := range u.workspaces {
			if ws.ID == u.ws.ID {
				continue
			}
			if other, err2 := h.store.Conversation(ws.ID, id); err2 == nil {
				u.ws, c, err = ws, other, nil
				if u.role, err2 = h.store.MemberRole(ws.ID, u.user.ID); err2 != nil && !u.user.Superuser {
					err = err2
				}
				break
			}
		}
	}
	if errors.Is(err, store.ErrNotFound) {
		h.notFound(w, r, u, "such conversation")
		return c, false
	}
	if err != nil {
		h.uiError(w, r, u, err)
		return c, false
	}
	// A number limited to teams the user is not in: its conversations are not shown, and
	// nothing is done in them.
	hidden, err := h.store.HiddenNumbers(u.ws.ID, u.user.ID)
	if err != nil {
		h.uiError(w, r, u, err)
		return c, false
	}
	if hidden[c.OutboundChannelID] {
		if r.Method == http.MethodGet {
			h.notFound(w, r, u, "such conversation")
		} else {
			h.forbidden(w, r, u, "You are not allowed to use this number: it is limited to teams you are not in.")
		}
		return c, false
	}
	return c, true
}

// threadView loads what the thread page shows: messages and comments interleaved by time.
func (h *Handler) threadView(r *http.Request, u *ui, c store.Conversation) (views.ThreadView, error) {
	q := r.URL.Query()
	v := views.ThreadView{ID: c.ID, From: u.showPhone(c.From), Status: c.Status, Labels: c.Labels, Assigned: c.AssignedUserIDs,
		Number: u.showPhones(c.Addresses), CanBlock: !c.IsGroup(), Notice: doneNotices[q.Get("done")], Assist: h.assistView(u, c)}
	snippets, err := h.store.Snippets(u.ws.ID)
	if err != nil {
		return v, err
	}
	for _, s := range snippets {
		v.Snippets = append(v.Snippets, views.Option{Value: s.Shortcut, Label: s.Name})
	}
	// ?snippet= is the picker without JavaScript: the reply box opens with the snippet filled in.
	if sc := q.Get("snippet"); sc != "" {
		text, err := h.fillSnippet(u, c, sc)
		switch {
		case errors.Is(err, store.ErrNotFound):
			v.Reply.Errors = map[string]string{"snippet": unknownSnippet(sc)}
		case err != nil:
			return v, err
		default:
			v.Reply.Text = text
		}
	}
	v.Title = c.Name
	if u.ws.ID != u.home {
		v.Elsewhere = views.Option{Value: u.ws.ID, Label: u.ws.Name}
	}
	contactName := map[string]string{}
	for _, a := range c.Addresses {
		if ct, err := h.store.ContactByPhone(u.ws.ID, a); err == nil {
			if n := strings.TrimSpace(ct.FirstName + " " + ct.LastName); n != "" {
				contactName[a] = n
			}
		}
	}
	if v.Title == "" && !c.IsGroup() {
		v.Title = contactName[c.Addresses[0]]
	}
	if v.Title == "" {
		v.Title = v.Number
	}
	if n, err := h.store.NumberByPhone(c.From); err == nil && n.WorkspaceID == u.ws.ID {
		v.Sandbox = n.Active && n.CarrierName() == store.ProviderSandbox && !c.IsGroup()
		v.FromWarning = n.RegistrationWarning()
	}
	if !c.IsGroup() {
		blocked, err := h.store.IsBlocked(u.ws.ID, c.Addresses[0])
		if err != nil {
			return v, err
		}
		v.Blocked = blocked
		if v.OptedOut, err = h.store.IsOptedOut(u.ws.ID, c.Addresses[0]); err != nil {
			return v, err
		}
	}
	if v.Members, err = h.memberOptions(u); err != nil {
		return v, err
	}
	userName := map[string]string{}
	all := v.Members
	v.Members = make([]views.Option, 0, len(all))
	for _, m := range all {
		userName[m.Value] = m.Label
		// Only members who may use the conversation's number are offered to assign or mention.
		hidden, err := h.store.HiddenNumbers(u.ws.ID, m.Value)
		if err != nil {
			return v, err
		}
		if !hidden[c.OutboundChannelID] || slices.Contains(c.AssignedUserIDs, m.Value) {
			v.Members = append(v.Members, m)
		}
	}
	if c.SnoozedUntil != nil {
		v.SnoozedUntil = formatWhen(*c.SnoozedUntil, h.now(), u.ws.Location())
	}
	v.Snooze.Choice = "1h"
	if err := h.loadItems(r, u, c, &v, userName, contactName); err != nil {
		return v, err
	}
	v.Reply.Segments, v.Reply.Encoding = 0, store.EncodingGSM7
	return v, nil
}

// thread is GET /inbox/{conversation}.
func (h *Handler) thread(w http.ResponseWriter, r *http.Request, u *ui) {
	c, ok := h.conversationOf(w, r, u)
	if !ok {
		return
	}
	// Opening the thread reads it: the one thing this GET changes (see threadMarkUnread).
	if err := h.store.MarkRead(u.ws.ID, u.user.ID, c.ID); err != nil {
		h.uiError(w, r, u, err)
		return
	}
	h.renderThread(w, r, u, c, http.StatusOK, nil)
}

// renderThread shows the thread; edit, when set, puts what the user typed and its errors back.
func (h *Handler) renderThread(w http.ResponseWriter, r *http.Request, u *ui, c store.Conversation, status int, edit func(*views.ThreadView)) {
	v, err := h.threadView(r, u, c)
	if err != nil {
		h.uiError(w, r, u, err)
		return
	}
	if edit != nil {
		edit(&v)
	}
	h.render(w, r, u, status, v.Title, views.Thread(v))
}

// done redirects back to the thread with the result of its form (303).
func done(w http.ResponseWriter, r *http.Request, c store.Conversation, what string) {
	http.Redirect(w, r, "/inbox/"+c.ID+"?done="+what, http.StatusSeeOther)
}

// threadReply is POST /inbox/{conversation}/reply: text and media URL, sent from the
// conversation's number.
func (h *Handler) threadReply(w http.ResponseWriter, r *http.Request, u *ui) {
	c, ok := h.conversationOf(w, r, u)
	if !ok {
		return
	}
	files, fileErr, ok := h.readMediaForm(w, r, u)
	if !ok {
		return
	}
	f := views.ReplyForm{Text: strings.TrimSpace(r.PostForm.Get("text")), Media: strings.TrimSpace(r.PostForm.Get("media")),
		SendAt: strings.TrimSpace(r.PostForm.Get("sendAt"))}
	sendAt, laterErr := h.replySendAt(r, u, f.SendAt)
	var err error
	switch {
	case fileErr != "":
		err = store.ValidationError{{Field: "files", Message: fileErr}}
	case laterErr != nil:
		err = laterErr
	case f.Text == "" && f.Media == "" && len(files) == 0:
		err = store.ValidationError{{Field: "text", Message: "write a message, attach a file or give a media URL"}}
	case utf8.RuneCountInString(f.Text) > maxText:
		err = store.ValidationError{{Field: "text", Message: fmt.Sprintf("must be at most %d characters", maxText)}}
	case f.Media != "" && !store.ValidMediaURL(f.Media):
		err = store.ValidationError{{Field: "media", Message: store.MediaURLMessage}}
	default:
		in := store.SendInput{From: c.From, To: c.Addresses, Text: f.Text, AuthorID: u.user.ID, Files: files, SendAt: sendAt}
		if f.Media != "" {
			in.Media = []string{f.Media}
		}
		_, err = h.store.SendMessage(u.ws.ID, in)
	}
	if f.Errors = fieldErrors(err, map[string]string{"mediaUrl": "media", "to": "form"}); f.Errors != nil {
		f.Segments, f.Encoding = store.Segments(f.Text), store.SMSEncoding(f.Text)
		h.threadFormError(w, r, u, c, "reply", func(v *views.ThreadView) {
			v.Reply = f
			v.Error = f.Errors["form"]
			if v.Error == "" {
				v.Error = "The reply was not sent: see the form."
			}
		})
		return
	}
	if !sendAt.IsZero() {
		h.threadDone(w, r, u, c, "later")
		return
	}
	h.threadDone(w, r, u, c, "reply")
}

// threadComment is POST /inbox/{conversation}/comment: an internal note mentioning members.
func (h *Handler) threadComment(w http.ResponseWriter, r *http.Request, u *ui) {
	c, ok := h.conversationOf(w, r, u)
	if !ok || !h.readUIForm(w, r, u) {
		return
	}
	f := views.CommentForm{Text: strings.TrimSpace(r.PostForm.Get("text")), Mentions: r.PostForm["mentions"]}
	members, err := h.memberOptions(u)
	if err != nil {
		h.uiError(w, r, u, err)
		return
	}
	mentions := f.Mentions
	for _, id := range mentionedMembers(f.Text, members) {
		if !slices.Contains(mentions, id) {
			mentions = append(mentions, id)
		}
	}
	switch {
	case f.Text == "":
		err = store.ValidationError{{Field: "text", Message: "write the comment"}}
	case utf8.RuneCountInString(f.Text) > maxText:
		err = store.ValidationError{{Field: "text", Message: fmt.Sprintf("must be at most %d characters", maxText)}}
	case c.IsGroup():
		err = store.ValidationError{{Field: "form", Message: "comments on group conversations are not supported yet"}}
	default:
		_, err = h.store.CreateComment(u.ws.ID, store.CommentInput{From: c.From, To: c.Addresses[0], Text: f.Text,
			Mentions: mentions, AuthorID: u.user.ID})
	}
	if f.Errors = fieldErrors(err, nil); f.Errors != nil {
		h.threadFormError(w, r, u, c, "comment", func(v *views.ThreadView) {
			v.Comment = f
			v.Error = "The comment was not added: " + firstError(f.Errors)
		})
		return
	}
	h.threadDone(w, r, u, c, "comment")
}

func firstError(errs map[string]string) string {
	for _, k := range []string{"form", "text", "mentions", "status", "labels", "assignedUserIds", "media"} {
		if e := errs[k]; e != "" {
			return strings.ToLower(e[:1]) + e[1:]
		}
	}
	for _, e := range errs {
		return e
	}
	return ""
}

// threadUpdate applies a triage change and answers like every thread form.
func (h *Handler) threadUpdate(w http.ResponseWriter, r *http.Request, u *ui, what string, build func(c store.Conversation) store.ConversationUpdate) {
	c, ok := h.conversationOf(w, r, u)
	if !ok || !h.readUIForm(w, r, u) {
		return
	}
	upd := build(c)
	upd.ActorID = u.user.ID // named in the thread's activity entry
	_, err := h.store.UpdateConversation(u.ws.ID, c.ID, upd)
	if errs := fieldErrors(err, nil); errs != nil {
		h.renderThread(w, r, u, c, http.StatusUnprocessableEntity, func(v *views.ThreadView) {
			v.Error = "Not saved: " + firstError(errs)
		})
		return
	}
	done(w, r, c, what)
}

// threadAssign is POST /inbox/{conversation}/assign (assignees: member user ids).
func (h *Handler) threadAssign(w http.ResponseWriter, r *http.Request, u *ui) {
	h.threadUpdate(w, r, u, "assign", func(store.Conversation) store.ConversationUpdate {
		ids := r.PostForm["assignees"]
		return store.ConversationUpdate{AssignedUserIDs: &ids, ActorID: u.user.ID}
	})
}

// threadLabels is POST /inbox/{conversation}/labels (comma-separated).
func (h *Handler) threadLabels(w http.ResponseWriter, r *http.Request, u *ui) {
	h.threadUpdate(w, r, u, "labels", func(store.Conversation) store.ConversationUpdate {
		labels := strings.Split(r.PostForm.Get("labels"), ",")
		return store.ConversationUpdate{Labels: &labels}
	})
}

// threadStatus is POST /inbox/{conversation}/status (open, snoozed, closed).
func (h *Handler) threadStatus(w http.ResponseWriter, r *http.Request, u *ui) {
	h.threadUpdate(w, r, u, "status", func(store.Conversation) store.ConversationUpdate {
		s := r.PostForm.Get("status")
		return store.ConversationUpdate{Status: &s}
	})
}

// threadBlock is POST /inbox/{conversation}/block: blocked=true blocks the contact's number,
// false unblocks it.
func (h *Handler) threadBlock(w http.ResponseWriter, r *http.Request, u *ui) {
	c, ok := h.conversationOf(w, r, u)
	if !ok || !h.readUIForm(w, r, u) {
		return
	}
	if c.IsGroup() {
		h.renderThread(w, r, u, c, http.StatusUnprocessableEntity, func(v *views.ThreadView) {
			v.Error = "A group conversation has no single number to block."
		})
		return
	}
	block := r.PostForm.Get("blocked") == "true"
	if err := h.store.SetBlocked(u.ws.ID, u.user.ID, c.Addresses[0], block); err != nil {
		h.uiError(w, r, u, err)
		return
	}
	if block {
		done(w, r, c, "block")
	} else {
		done(w, r, c, "unblock")
	}
}

// threadSimulate is POST /inbox/{conversation}/simulate: a text from the contact to a sandbox
// number, through the same carrier receiver as POST /carrier/sandbox/sms (keywords work).
func (h *Handler) threadSimulate(w http.ResponseWriter, r *http.Request, u *ui) {
	c, ok := h.conversationOf(w, r, u)
	if !ok || !h.readUIForm(w, r, u) {
		return
	}
	f := views.SimulateForm{Text: strings.TrimSpace(r.PostForm.Get("text"))}
	var err error
	n, nerr := h.store.NumberByPhone(c.From)
	switch {
	case h.cfg.Receiver == nil:
		err = store.ValidationError{{Field: "form", Message: "this server receives no texts (no carrier is configured)"}}
	case c.IsGroup():
		err = store.ValidationError{{Field: "form", Message: "a group conversation has no single contact to simulate"}}
	case nerr != nil || n.WorkspaceID != u.ws.ID || !n.Active:
		err = store.ValidationError{{Field: "form", Message: c.From + " is not an active number of this workspace"}}
	case n.CarrierName() != store.ProviderSandbox:
		err = store.ValidationError{{Field: "form", Message: c.From + " is not a sandbox number: its texts come from its carrier"}}
	case f.Text == "":
		err = store.ValidationError{{Field: "text", Message: "write the text the contact sends"}}
	case utf8.RuneCountInString(f.Text) > maxText:
		err = store.ValidationError{{Field: "text", Message: fmt.Sprintf("must be at most %d characters", maxText)}}
	default:
		_, err = h.cfg.Receiver.SMS(n, store.ProviderSandbox, carrier.InboundSMS{MessageSID: newSandboxSID(),
			From: c.Addresses[0], To: c.From, Text: f.Text})
	}
	if f.Errors = fieldErrors(err, nil); f.Errors != nil {
		h.renderThread(w, r, u, c, http.StatusUnprocessableEntity, func(v *views.ThreadView) {
			v.Simulate = f
			v.Error = "Not simulated: " + firstError(f.Errors)
		})
		return
	}
	done(w, r, c, "simulate")
}
