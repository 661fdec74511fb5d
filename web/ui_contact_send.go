package web

import (
	"errors"
	"fmt"
	"net/http"
	"strings"
	"unicode/utf8"

	"switchboard/store"
	"switchboard/views"
)

// contactMessage is POST /contacts/{contact}/message, the contact page's "Send message": the
// text goes from the chosen number in the contact's conversation with it (made if needed), and
// the page moves on to that thread; a refusal (no text, opted out) stays on the contact page.
func (h *Handler) contactMessage(w http.ResponseWriter, r *http.Request, u *ui) {
	c, ok := h.contactOf(w, r, u)
	if !ok || !h.readUIForm(w, r, u) {
		return
	}
	f := views.ContactSendForm{From: strings.TrimSpace(r.PostForm.Get("from")), Text: strings.TrimSpace(r.PostForm.Get("text"))}
	if h.numberRefused(w, r, u, h.store.CheckNumberUse(u.ws.ID, u.user.ID, f.From)) {
		return
	}
	var err error
	var m store.Message
	switch {
	case f.Text == "":
		err = store.ValidationError{{Field: "text", Message: "write the message"}}
	case utf8.RuneCountInString(f.Text) > maxText:
		err = store.ValidationError{{Field: "text", Message: fmt.Sprintf("must be at most %d characters", maxText)}}
	default:
		m, err = h.store.SendMessage(u.ws.ID, store.SendInput{From: f.From, To: []string{c.Phone()}, Text: f.Text, AuthorID: u.user.ID})
	}
	var verr store.ValidationError
	var serr *store.Error
	if err != nil && !errors.As(err, &verr) && !errors.As(err, &serr) {
		h.uiError(w, r, u, err)
		return
	}
	if err != nil {
		errs := fieldErrors(err, nil)
		f.Error = capitalize(firstError(errs))
		h.renderContact(w, r, u, &c, http.StatusUnprocessableEntity, func(v *views.ContactView) {
			v.Send = f
			v.Error = "Not sent: " + firstError(errs)
		})
		return
	}
	http.Redirect(w, r, "/inbox/"+m.ConversationID+"?done=reply#end", http.StatusSeeOther)
}
