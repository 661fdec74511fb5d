package web

import (
	"crypto/subtle"
	"errors"
	"net/http"
	"strings"

	"switchboard/store"
	"switchboard/views"
)

// SetupURL returns a one-time URL where the first administrator is created, or "" when a
// superuser exists. Each call makes a new token and voids the previous one; the token lives
// in memory only, so a restart prints a new link.
func (ss *Sessions) SetupURL() (string, error) {
	has, err := ss.s.HasSuperuser()
	if err != nil || has {
		return "", err
	}
	token := ss.cfg.SetupToken
	if token == "" {
		token = store.RandomToken("")
	}
	ss.setupMu.Lock()
	ss.setupHash = store.HashToken(token)
	ss.setupMu.Unlock()
	return ss.cfg.BaseURL + "/setup?token=" + token, nil
}

// setupTokenOK compares in constant time; the caller holds setupMu.
func (ss *Sessions) setupTokenOK(token string) bool {
	return ss.setupHash != nil && token != "" && subtle.ConstantTimeCompare(store.HashToken(token), ss.setupHash) == 1
}

// setupPage is GET /setup?token=….
func (ss *Sessions) setupPage(w http.ResponseWriter, r *http.Request) {
	token := r.URL.Query().Get("token")
	ss.setupMu.Lock()
	defer ss.setupMu.Unlock()
	if !ss.setupAllowed(w, r, token) {
		return
	}
	renderBare(w, r, http.StatusOK, "Set up", views.Setup(views.SetupForm{Token: token}))
}

// setupAllowed refuses once an administrator exists, and without the current token.
func (ss *Sessions) setupAllowed(w http.ResponseWriter, r *http.Request, token string) bool {
	has, err := ss.s.HasSuperuser()
	if err != nil {
		renderMessage(w, r, http.StatusInternalServerError, "Something went wrong", "Please try again.")
		return false
	}
	if has {
		ss.setupHash = nil
		renderMessage(w, r, http.StatusGone, "Setup is done", "An administrator exists already: sign in instead.")
		return false
	}
	if !ss.setupTokenOK(token) {
		renderMessage(w, r, http.StatusForbidden, "Invalid setup link", "This setup link is wrong or was used. Restart the server for a new one, or run `switchboard admin create-user --superuser`.")
		return false
	}
	return true
}

// setup is POST /setup: it creates the first superuser and signs them in. The lock makes
// check-then-create atomic within this process, and the token is consumed on success.
func (ss *Sessions) setup(w http.ResponseWriter, r *http.Request) {
	if err := readForm(w, r); err != nil {
		formError(w, r, err)
		return
	}
	f := views.SetupForm{Token: r.PostForm.Get("token"), Email: strings.TrimSpace(r.PostForm.Get("email")),
		Name: strings.TrimSpace(r.PostForm.Get("name"))}
	password := r.PostForm.Get("password")
	ss.setupMu.Lock()
	defer ss.setupMu.Unlock()
	if !ss.setupAllowed(w, r, f.Token) {
		return
	}
	f.Errors = map[string]string{}
	if password == "" {
		f.Errors["password"] = "is required: " + store.PasswordRule
	}
	var u store.User
	var err error
	if len(f.Errors) == 0 {
		u, err = ss.s.CreateUser(store.NewUser{Email: f.Email, Name: f.Name, Password: password, Superuser: true})
		var verrs store.ValidationError
		switch {
		case errors.As(err, &verrs):
			for _, e := range verrs {
				f.Errors[e.Field] = e.Message
			}
		case err != nil:
			f.Errors["form"] = "The administrator could not be created: " + safeMessage(err)
		}
	}
	if len(f.Errors) > 0 {
		renderBare(w, r, http.StatusUnprocessableEntity, "Set up", views.Setup(f))
		return
	}
	ss.setupHash = nil
	if err := ss.startSession(w, r, u, ""); err != nil {
		renderMessage(w, r, http.StatusInternalServerError, "Something went wrong", "The administrator was created; sign in.")
		return
	}
	renderBare(w, r, http.StatusCreated, "Administrator created",
		views.Notice("Administrator created", "You are signed in as "+u.Email+".", "/inbox", "Continue to the inbox"))
}

// safeMessage shows a store error's client-safe text, and nothing of other errors.
func safeMessage(err error) string {
	var se *store.Error
	if errors.As(err, &se) {
		return se.Msg
	}
	return "internal error"
}
