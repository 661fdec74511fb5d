package web

import (
	"errors"
	"net/http"

	"switchboard/store"
	"switchboard/views"
)

// forgotPage is GET /forgot. This server sends no e-mail yet, so the page says to ask an
// administrator, who makes a reset link on /admin/users or with `switchboard admin
// reset-password`.
func (ss *Sessions) forgotPage(w http.ResponseWriter, r *http.Request) {
	renderBare(w, r, http.StatusOK, "Forgot password", views.Forgot(views.ForgotForm{}))
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

// reset is POST /reset/{token}: sets the password, uses the link up and signs the account out
// everywhere.
func (ss *Sessions) reset(w http.ResponseWriter, r *http.Request) {
	if err := readForm(w, r); err != nil {
		formError(w, r, err)
		return
	}
	token := r.PathValue("token")
	u, err := ss.s.UseReset(token, r.PostForm.Get("password"), ss.now())
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
	renderBare(w, r, http.StatusOK, "Password changed", views.Notice("Password changed",
		"The password of "+u.Email+" is changed, and every session of the account is signed out.", "/login", "Sign in"))
}

func (ss *Sessions) resetGone(w http.ResponseWriter, r *http.Request, err error) {
	var se *store.Error
	if errors.As(err, &se) && errors.Is(err, store.ErrNotFound) {
		renderMessage(w, r, http.StatusNotFound, "Link does not work", capitalize(se.Msg)+".")
		return
	}
	renderMessage(w, r, http.StatusInternalServerError, "Something went wrong", "Please try again.")
}
