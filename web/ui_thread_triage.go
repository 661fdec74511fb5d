package web

import (
	"net/http"
	"time"

	"switchboard/store"
	"switchboard/views"
)

// localTimeLayout is what an <input type="datetime-local"> sends.
const localTimeLayout = "2006-01-02T15:04"

// parseLocalTime reads a datetime-local value in the workspace's time zone.
func parseLocalTime(s string, loc *time.Location) (time.Time, bool) {
	t, err := time.ParseInLocation(localTimeLayout, s, loc)
	if err != nil {
		// Some browsers send seconds too.
		t, err = time.ParseInLocation(localTimeLayout+":05", s, loc)
	}
	return t, err == nil
}

// replySendAt reads the reply form's "Send later" time (the workspace's time zone): zero when
// the reply goes now; a time that cannot be read, is past or is more than a year ahead is an
// error on the field.
func (h *Handler) replySendAt(r *http.Request, u *ui, value string) (time.Time, error) {
	if r.PostForm.Get("later") == "" {
		return time.Time{}, nil
	}
	if value == "" {
		return time.Time{}, store.ValidationError{{Field: "sendAt", Message: "choose the date and time to send it"}}
	}
	t, ok := parseLocalTime(value, u.ws.Location())
	if !ok {
		return time.Time{}, store.ValidationError{{Field: "sendAt", Message: "must be a date and time such as 2026-12-01T09:00"}}
	}
	if msg := store.CheckSendAt(t, h.now()); msg != "" {
		return time.Time{}, store.ValidationError{{Field: "sendAt", Message: msg}}
	}
	return t, nil
}

// threadFormError shows a thread form again with what was typed and its errors: with htmx only
// the form's card (the page stays where it is), else the whole page with 422.
func (h *Handler) threadFormError(w http.ResponseWriter, r *http.Request, u *ui, c store.Conversation, card string, edit func(*views.ThreadView)) {
	if !isHTMX(r) {
		h.renderThread(w, r, u, c, http.StatusUnprocessableEntity, edit)
		return
	}
	r.URL.RawQuery = "from=" + r.PostForm.Get("anchor")
	v, err := h.threadView(r, u, c)
	if err != nil {
		h.uiError(w, r, u, err)
		return
	}
	edit(&v)
	// htmx swaps only successful answers: the card with its errors is one.
	h.fragment(w, r, views.ThreadFormCard(v, card))
}

// threadClose is POST /inbox/{conversation}/close: one click closes it.
func (h *Handler) threadClose(w http.ResponseWriter, r *http.Request, u *ui) {
	h.threadUpdate(w, r, u, "close", func(store.Conversation) store.ConversationUpdate {
		s := store.ConversationClosed
		return store.ConversationUpdate{Status: &s}
	})
}

// threadReopen is POST /inbox/{conversation}/reopen.
func (h *Handler) threadReopen(w http.ResponseWriter, r *http.Request, u *ui) {
	h.threadUpdate(w, r, u, "reopen", func(store.Conversation) store.ConversationUpdate {
		s := store.ConversationOpen
		return store.ConversationUpdate{Status: &s}
	})
}

// snoozeUntil turns the snooze form's choice into a time: in 1 hour, tomorrow 09:00, next
// Monday 09:00 (the workspace's time zone), or the date and time given.
func snoozeUntil(choice, custom string, now time.Time, loc *time.Location) (time.Time, string) {
	local := now.In(loc)
	nineOn := func(days int) time.Time {
		d := local.AddDate(0, 0, days)
		return time.Date(d.Year(), d.Month(), d.Day(), 9, 0, 0, 0, loc)
	}
	switch choice {
	case "1h":
		return now.Add(time.Hour), ""
	case "tomorrow":
		return nineOn(1), ""
	case "monday":
		days := (int(time.Monday) - int(local.Weekday()) + 7) % 7
		if days == 0 {
			days = 7 // on a Monday, next Monday
		}
		return nineOn(days), ""
	case "custom":
		if custom == "" {
			return time.Time{}, "choose the date and time it reopens"
		}
		t, ok := parseLocalTime(custom, loc)
		if !ok {
			return time.Time{}, "must be a date and time such as 2026-12-01T09:00"
		}
		return t, ""
	}
	return time.Time{}, "choose when it reopens"
}

// threadSnooze is POST /inbox/{conversation}/snooze: snoozed until the chosen time, when it
// reopens by itself (or earlier, when the contact writes). A past time is refused beside the
// field and nothing is stored.
func (h *Handler) threadSnooze(w http.ResponseWriter, r *http.Request, u *ui) {
	c, ok := h.conversationOf(w, r, u)
	if !ok || !h.readUIForm(w, r, u) {
		return
	}
	f := views.SnoozeForm{Choice: r.PostForm.Get("snooze"), Until: r.PostForm.Get("until")}
	until, msg := snoozeUntil(f.Choice, f.Until, h.now(), u.ws.Location())
	var err error
	if msg != "" {
		err = store.ValidationError{{Field: "until", Message: msg}}
	} else {
		s := store.ConversationSnoozed
		_, err = h.store.UpdateConversation(u.ws.ID, c.ID, store.ConversationUpdate{Status: &s, SnoozeUntil: &until, ActorID: u.user.ID})
	}
	if f.Errors = fieldErrors(err, map[string]string{"snoozeUntil": "until"}); f.Errors != nil {
		h.renderThread(w, r, u, c, http.StatusUnprocessableEntity, func(v *views.ThreadView) {
			v.Snooze = f
			v.Error = "Not snoozed: " + firstError(map[string]string{"form": f.Errors["form"], "text": f.Errors["until"]})
		})
		return
	}
	done(w, r, c, "snooze")
}

// threadCancelMessage is POST /inbox/{conversation}/messages/{message}/cancel: a reply sent
// later that has not gone yet is cancelled.
func (h *Handler) threadCancelMessage(w http.ResponseWriter, r *http.Request, u *ui) {
	c, ok := h.conversationOf(w, r, u)
	if !ok || !h.readUIForm(w, r, u) {
		return
	}
	if _, err := h.store.CancelScheduledMessage(u.ws.ID, c.ID, r.PathValue("message")); err != nil {
		errs := fieldErrors(err, nil)
		h.renderThread(w, r, u, c, http.StatusConflict, func(v *views.ThreadView) {
			v.Error = "Not cancelled: " + firstError(errs)
		})
		return
	}
	http.Redirect(w, r, "/inbox/"+c.ID+"?done=cancelled#end", http.StatusSeeOther)
}
