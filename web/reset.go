package web

import (
	"errors"
	"log/slog"
	"net/http"

	"switchboard/store"
	"switchboard/views"
)

// forgotPage is GET /forgot. Without e-mail the page says to ask an administrator, who makes
// a reset link on /admin/users or with `switchboard admin reset-password`.
func (ss *Sessions) forgotPage(w http.ResponseWriter, r *http.Request) {
	renderBare(w, r, http.StatusOK, "Forgot password", views.Forgot(views.ForgotForm{MailEnabled: ss.mailer() != nil}))
}

// forgot is POST /forgot: e-mails a one-hour reset link when the address belongs to an enabled
// account, and answers the same either way, so the page tells no one which addresses exist.
// Requests count against the client's network, in a budget of their own (not sign-in's).
func (ss *Sessions) forgot(w http.ResponseWriter, r *http.Request) {
	if err := readForm(w, r); err != nil {
		formError(w, r, err)
		return
	}
	m := ss.mailer()
	f := views.ForgotForm{MailEnabled: m != nil, Sent: true}
	if m == nil {
		renderBare(w, r, http.StatusOK, "Forgot password", views.Forgot(f))
		return
	}
	if _, ok := ss.limits.attempt(ss.now(), "forgot:"+clientNetwork(r)); !ok {
		w.Header().Set("Retry-After", "60")
		renderMessage(w, r, http.StatusTooManyRequests, "Too many requests", "Wait a minute and try again.")
		return
	}
	// The link is made and queued after the answer, not before it: a known address costs a
	// write transaction (an fsync) that an unknown one does not, and the answer's time must not
	// tell which addresses exist.
	go ss.mailResetLink(r.PostForm.Get("email"), m)
	renderBare(w, r, http.StatusOK, "Forgot password", views.Forgot(f))
}

// mailResetLink queues a reset link for the enabled account of email, if there is one.
func (ss *Sessions) mailResetLink(email string, m Mailer) {
	u, err := ss.s.UserByEmail(email)
	if err != nil || u.Disabled {
		return
	}
	link := ss.cfg.BaseURL + "/reset/"
	_, err = ss.s.CreateResetMail(u.ID, ss.now(), func(token string) *store.Mail {
		return &store.Mail{To: u.Email, Subject: "Reset your Switchboard password",
			Body: "Someone asked to reset the password of " + u.Email + " on Switchboard.\n\n" +
				"Choose a new password here (the link works once, within an hour):\n" + link + token + "\n\n" +
				"If it was not you, ignore this e-mail: your password stays as it is.\n"}
	})
	if err != nil {
		slog.Error("forgot password: queue the reset e-mail", "error", err)
		return
	}
	m.Wake()
}

// resetPage is GET /reset/{token}: the new-password form of a valid link.
func (ss *Sessions) resetPage(w http.ResponseWriter, r *http.Request) {
	token := r.PathValue("token")
	u, err := ss.s.ResetUser(token, ss.now())
	if err != nil {
		ss.resetGone(w, r, err)
		return
	}
	renderBare(w, r, http.StatusOK, "Reset password", views.Reset(views.ResetForm{Token: token, Email: u.Email}))
}

// resetWith is POST /reset/{token}: sets the password, uses the link up, signs the account out
// everywhere and revokes its personal API tokens (UseReset), then calls disconnect for the
// rest of its API access (the OAuth apps). Tries with links that do not work are limited per
// client network.
func (ss *Sessions) resetWith(disconnect func(userID string) error) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) { ss.reset(w, r, disconnect) }
}

func (ss *Sessions) reset(w http.ResponseWriter, r *http.Request, disconnect func(userID string) error) {
	if err := readForm(w, r); err != nil {
		formError(w, r, err)
		return
	}
	// The link is checked before the new password is hashed, and tries count against the
	// client's network: made-up tokens cost a read each, and not for long.
	now := ss.now()
	refund, ok := ss.limits.attempt(now, "reset:"+clientNetwork(r))
	if !ok {
		w.Header().Set("Retry-After", "60")
		renderMessage(w, r, http.StatusTooManyRequests, "Too many requests", "Wait a minute and try again.")
		return
	}
	token := r.PathValue("token")
	if _, err := ss.s.ResetUser(token, now); err != nil {
		ss.resetGone(w, r, err)
		return
	}
	refund() // a working link costs nothing; it is used up below
	u, err := ss.s.UseReset(token, r.PostForm.Get("password"), now)
	var verrs store.ValidationError
	if errors.As(err, &verrs) {
		ru, err := ss.s.ResetUser(token, ss.now())
		if err != nil {
			ss.resetGone(w, r, err)
			return
		}
		renderBare(w, r, http.StatusUnprocessableEntity, "Reset password", views.Reset(views.ResetForm{Token: token, Email: ru.Email,
			Errors: fieldErrors(err, nil)}))
		return
	}
	if err != nil {
		ss.resetGone(w, r, err)
		return
	}
	if err := disconnect(u.ID); err != nil {
		slog.Error("password reset: disconnect apps", "user", u.ID, "error", err)
	}
	renderBare(w, r, http.StatusOK, "Password changed", views.Notice("Password changed",
		"The password of "+u.Email+" is changed: every session of the account is signed out, its API tokens are revoked "+
			"and its connected apps disconnected (connect them again with the new password).", "/login", "Sign in"))
}

func (ss *Sessions) resetGone(w http.ResponseWriter, r *http.Request, err error) {
	var se *store.Error
	if errors.As(err, &se) && errors.Is(err, store.ErrNotFound) {
		renderMessage(w, r, http.StatusNotFound, "Link does not work", capitalize(se.Msg)+".")
		return
	}
	renderMessage(w, r, http.StatusInternalServerError, "Something went wrong", "Please try again.")
}
