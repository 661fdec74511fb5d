package web

import (
	"errors"
	"net/http"

	"switchboard/store"
	"switchboard/views"
)

// emailChangePage is GET /email-change/{token}: the link mailed to a new address shows what it
// confirms, with a button; a GET changes nothing.
func (ss *Sessions) emailChangePage(w http.ResponseWriter, r *http.Request) {
	u, email, err := ss.s.EmailChangeFor(r.PathValue("token"), ss.now())
	if err != nil {
		ss.emailChangeGone(w, r, err)
		return
	}
	renderBare(w, r, http.StatusOK, "Confirm your new e-mail", views.EmailChangeConfirm(views.EmailChangeView{
		Token: r.PathValue("token"), Old: u.Email, New: email}))
}

// emailChangeConfirm is POST /email-change/{token}: the account moves to the new address and
// the link is used up. Tries count against the client's network like reset links.
func (ss *Sessions) emailChangeConfirm(w http.ResponseWriter, r *http.Request) {
	if err := readForm(w, r); err != nil {
		formError(w, r, err)
		return
	}
	if _, ok := ss.limits.attempt(ss.now(), "reset:"+clientNetwork(r)); !ok {
		w.Header().Set("Retry-After", "60")
		renderMessage(w, r, http.StatusTooManyRequests, "Too many requests", "Wait a minute and try again.")
		return
	}
	u, err := ss.s.ConfirmEmailChange(r.PathValue("token"), ss.now())
	if err != nil {
		ss.emailChangeGone(w, r, err)
		return
	}
	renderBare(w, r, http.StatusOK, "E-mail changed", views.Notice("E-mail changed",
		"Your Switchboard account's e-mail is now "+u.Email+": sign in with it from now on.", "/login", "Sign in"))
}

func (ss *Sessions) emailChangeGone(w http.ResponseWriter, r *http.Request, err error) {
	var se *store.Error
	if errors.As(err, &se) && (errors.Is(err, store.ErrNotFound) || errors.Is(err, store.ErrConflict)) {
		status := http.StatusNotFound
		if errors.Is(err, store.ErrConflict) {
			status = http.StatusConflict
		}
		renderMessage(w, r, status, "Link does not work", capitalize(se.Msg)+".")
		return
	}
	renderMessage(w, r, http.StatusInternalServerError, "Something went wrong", "Please try again.")
}
