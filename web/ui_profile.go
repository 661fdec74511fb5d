package web

import (
	"errors"
	"net/http"
	"strings"

	"switchboard/store"
	"switchboard/views"
)

var profileNotices = map[string]string{
	"saved": "Name saved.", "password": "Password changed. Your other sessions are signed out.", "email": "E-mail changed.",
	"password-revoked": "Password changed. Your other sessions are signed out, your API tokens revoked and your apps disconnected.",
	"2fa-off":          "Two-factor is off.", "ended": "That session is signed out.", "ended-others": "Every other session is signed out.",
	"notifications":  "Notification settings saved.",
	"device-removed": "That device gets no more notifications.", "device-on": "Notifications are on for this device.",
	"device-off": "Notifications are off for this device.",
}

func (h *Handler) profileView(r *http.Request, u *ui) (views.ProfileView, error) {
	v := views.ProfileView{Admin: u.isAdmin(), Name: u.user.Name, Email: u.user.Email, TwoFactor: u.user.TwoFactor,
		Notice: profileNotices[r.URL.Query().Get("done")], TwoFactorRequired: h.cfg.Sessions.twoFactorRequired()}
	if err := h.emailView(r, u, &v); err != nil {
		return v, err
	}
	p, err := h.store.NotificationPrefs(u.user.ID)
	if err != nil {
		return v, err
	}
	nf := views.NotificationsForm{Inbound: p.Inbound, Sound: p.Sound, Email: p.Email, HideText: p.HideText,
		MailOff: h.cfg.Sessions.mailer() == nil}
	if nf.Push, err = h.pushView(r, u); err != nil {
		return v, err
	}
	v.Notifications = views.NotificationsSection(nf)
	if u.user.TwoFactor {
		n, err := h.store.RecoveryCodesLeft(u.user.ID)
		if err != nil {
			return v, err
		}
		v.RecoveryLeft = n
	}
	rows, err := h.store.UserSessions(u.user.ID)
	if err != nil {
		return v, err
	}
	current := h.cfg.Sessions.SessionID(r)
	for i := len(rows) - 1; i >= 0; i-- { // most recent first
		s := rows[i]
		if s.Stage != "" {
			continue
		}
		v.Sessions = append(v.Sessions, views.SessionRow{ID: s.ID, Browser: browserName(s.UserAgent), Address: s.Address,
			LastSeen: fmtTime(s.LastSeen, u.ws.Location()), Current: s.ID == current})
	}
	return v, nil
}

// profile is GET /settings/profile.
func (h *Handler) profile(w http.ResponseWriter, r *http.Request, u *ui) {
	u.section = "settings"
	h.profilePage(r, u).show(w, r, u, http.StatusOK, nil)
}

// profilePage is /settings/profile, for the forms that post back to it.
func (h *Handler) profilePage(r *http.Request, u *ui) formPage[views.ProfileView] {
	return pageOf(h, "Profile", views.Profile, func() (views.ProfileView, error) { return h.profileView(r, u) })
}

// profileRefused re-renders the profile with a form's errors (422).
func (h *Handler) profileRefused(w http.ResponseWriter, r *http.Request, u *ui, errs map[string]string, edit func(*views.ProfileView)) {
	h.profileAnswer(w, r, u, http.StatusUnprocessableEntity, errs, edit)
}

// passwordTry takes one try from the account's budget for its current password before a
// profile form checks it, so that a session holder guessing it is slowed like failed sign-ins.
// With none left it answers 429 with the profile itself and ok is false; refund gives the try
// back once the password was right.
func (h *Handler) passwordTry(w http.ResponseWriter, r *http.Request, u *ui) (refund func(), ok bool) {
	ss := h.cfg.Sessions
	refund, ok = ss.limits.attempt(ss.now(), "current:"+u.user.ID)
	if !ok {
		w.Header().Set("Retry-After", "60")
		h.profileAnswer(w, r, u, http.StatusTooManyRequests,
			map[string]string{"form": "Too many wrong passwords. Wait a minute and try again."}, nil)
	}
	return refund, ok
}

// profilePassword checks the current password a profile form carries (passwordTry's budget);
// when it is not right it answers with the profile, the error under errKey, and returns false.
func (h *Handler) profilePassword(w http.ResponseWriter, r *http.Request, u *ui, errKey string, edit func(*views.ProfileView)) bool {
	refund, ok := h.passwordTry(w, r, u)
	if !ok {
		return false
	}
	right, err := h.passwordIs(u, r.PostForm.Get("current_password"))
	if err != nil {
		h.uiError(w, r, u, err)
		return false
	}
	if !right {
		h.profileRefused(w, r, u, map[string]string{errKey: "Is not your current password"}, edit)
		return false
	}
	refund()
	return true
}

// passwordIs reports whether password is u's current password.
func (h *Handler) passwordIs(u *ui, password string) (bool, error) {
	full, err := h.store.User(u.user.ID)
	if err != nil {
		return false, err
	}
	return store.CheckPassword(full, password), nil
}

// profileAnswer renders the profile with a form's errors and status.
func (h *Handler) profileAnswer(w http.ResponseWriter, r *http.Request, u *ui, status int, errs map[string]string, edit func(*views.ProfileView)) {
	u.section = "settings"
	h.profilePage(r, u).show(w, r, u, status, func(v *views.ProfileView) {
		v.Errors = errs
		if edit != nil {
			edit(v)
		}
	})
}

// saveProfile is POST /settings/profile: the name. The e-mail has a form of its own, which asks
// for the password.
func (h *Handler) saveProfile(w http.ResponseWriter, r *http.Request, u *ui) {
	if !h.readUIForm(w, r, u) {
		return
	}
	name := r.PostForm.Get("name")
	if _, err := h.store.SetName(u.user.ID, name); err != nil {
		h.profileRefused(w, r, u, fieldErrors(err, nil), func(v *views.ProfileView) { v.Name = name })
		return
	}
	http.Redirect(w, r, "/settings/profile?done=saved", http.StatusSeeOther)
}

// changePassword is POST /settings/profile/password: the current password is required; every
// other session of the user ends; with revoke_access=yes the user's API tokens are revoked and
// apps disconnected too.
func (h *Handler) changePassword(w http.ResponseWriter, r *http.Request, u *ui) {
	if !h.readUIForm(w, r, u) {
		return
	}
	refund, ok := h.passwordTry(w, r, u)
	if !ok {
		return
	}
	err := h.store.ChangePassword(u.user.ID, r.PostForm.Get("current_password"), r.PostForm.Get("password"), h.cfg.Sessions.SessionID(r))
	if !wrongField(err, "current_password") {
		refund()
	}
	if err != nil {
		h.profileRefused(w, r, u, fieldErrors(err, nil), nil)
		return
	}
	if r.PostForm.Get("revoke_access") == "yes" {
		if _, err := h.store.RevokeUserTokens(u.user.ID); err != nil {
			h.uiError(w, r, u, err)
			return
		}
		if err := h.disconnectApps(u.user.ID); err != nil {
			h.uiError(w, r, u, err)
			return
		}
		http.Redirect(w, r, "/settings/profile?done=password-revoked", http.StatusSeeOther)
		return
	}
	http.Redirect(w, r, "/settings/profile?done=password", http.StatusSeeOther)
}

// disconnectApps revokes every OAuth grant of userID: the apps' tokens stop working and the
// webhook subscriptions made through them end.
func (h *Handler) disconnectApps(userID string) error {
	if h.cfg.OAuth == nil {
		return nil
	}
	grants, err := h.cfg.OAuth.Grants(userID)
	if err != nil {
		return err
	}
	for _, g := range grants {
		if err := h.cfg.OAuth.RevokeGrant(g.ID); err != nil && !errors.Is(err, store.ErrNotFound) {
			return err
		}
	}
	return nil
}

// twoFactorSetup is GET /settings/profile/2fa: a new secret's QR code.
func (h *Handler) twoFactorSetup(w http.ResponseWriter, r *http.Request, u *ui) {
	u.section = "settings"
	if u.user.TwoFactor {
		http.Redirect(w, r, "/settings/profile", http.StatusSeeOther)
		return
	}
	h.enrolPage(u).show(w, r, u, http.StatusOK, nil)
}

// enrolPage is /settings/profile/2fa with a new secret, for the form that posts back to it; it
// asks for the current password with the first code.
func (h *Handler) enrolPage(u *ui) formPage[views.EnrolView] {
	return pageOf(h, "Set up two-factor", views.Enrol, func() (views.EnrolView, error) {
		v, err := enrolView(h.store, u.user.ID, "/settings/profile/2fa")
		v.AskPassword = true
		return v, err
	})
}

// twoFactorConfirm is POST /settings/profile/2fa: the current password and the first code turn
// two-factor on; the recovery codes are shown this once.
func (h *Handler) twoFactorConfirm(w http.ResponseWriter, r *http.Request, u *ui) {
	u.section = "settings"
	if !h.readUIForm(w, r, u) {
		return
	}
	again := func(status int, msg string) {
		h.enrolPage(u).show(w, r, u, status, func(v *views.EnrolView) {
			v.Error = msg + " Scan the new QR code and try again."
		})
	}
	// The current password first: a stolen session must not turn two-factor on with its own
	// phone and lock the owner out.
	ss := h.cfg.Sessions
	refund, ok := ss.limits.attempt(ss.now(), "current:"+u.user.ID)
	if !ok {
		w.Header().Set("Retry-After", "60")
		again(http.StatusTooManyRequests, "Too many wrong passwords. Wait a minute.")
		return
	}
	right, err := h.passwordIs(u, r.PostForm.Get("current_password"))
	if err != nil {
		h.uiError(w, r, u, err)
		return
	}
	if !right {
		again(http.StatusUnprocessableEntity, "The current password is not right.")
		return
	}
	refund()
	codes, err := h.store.ConfirmTwoFactor(u.user.ID, r.PostForm.Get("code"), ss.now())
	if err != nil {
		again(http.StatusUnprocessableEntity, codeError(err))
		return
	}
	h.render(w, r, u, http.StatusOK, "Two-factor is on", views.RecoveryCodes(codes, "/settings/profile"))
}

// twoFactorOff is POST /settings/profile/2fa/off: the current password turns two-factor off.
func (h *Handler) twoFactorOff(w http.ResponseWriter, r *http.Request, u *ui) {
	if !h.readUIForm(w, r, u) {
		return
	}
	if !h.profilePassword(w, r, u, "off_password", nil) {
		return
	}
	// While two-factor is required for everyone, no one turns it off for themselves (an
	// administrator's reset-2fa sends the user to enrolment at the next sign-in).
	if h.cfg.Sessions.twoFactorRequired() {
		h.profileRefused(w, r, u, map[string]string{"form": "Two-factor is required for everyone on this server: it cannot be turned off."}, nil)
		return
	}
	if err := h.store.ResetTwoFactor(u.user.ID); err != nil {
		h.uiError(w, r, u, err)
		return
	}
	http.Redirect(w, r, "/settings/profile?done=2fa-off", http.StatusSeeOther)
}

// endSession is POST /settings/profile/sessions/{session}/end: signs one of the user's sessions out.
func (h *Handler) endSession(w http.ResponseWriter, r *http.Request, u *ui) {
	err := h.store.EndUserSession(u.user.ID, r.PathValue("session"))
	if errors.Is(err, store.ErrNotFound) {
		h.notFound(w, r, u, "such session")
		return
	}
	if err != nil {
		h.uiError(w, r, u, err)
		return
	}
	http.Redirect(w, r, "/settings/profile?done=ended", http.StatusSeeOther)
}

// endOtherSessions is POST /settings/profile/sessions/end-others: every session but this one ends.
func (h *Handler) endOtherSessions(w http.ResponseWriter, r *http.Request, u *ui) {
	if err := h.store.EndUserSessions(u.user.ID, h.cfg.Sessions.SessionID(r)); err != nil {
		h.uiError(w, r, u, err)
		return
	}
	http.Redirect(w, r, "/settings/profile?done=ended-others", http.StatusSeeOther)
}

// wrongField reports whether err is a validation error on field.
func wrongField(err error, field string) bool {
	var verrs store.ValidationError
	if !errors.As(err, &verrs) {
		return false
	}
	for _, fe := range verrs {
		if fe.Field == field {
			return true
		}
	}
	return false
}

// browserName is a short name of the browser and system in a User-Agent header.
func browserName(ua string) string {
	browser := "Unknown browser"
	for _, b := range []struct{ token, name string }{
		{"Edg/", "Edge"}, {"OPR/", "Opera"}, {"Firefox/", "Firefox"}, {"HeadlessChrome/", "Headless Chrome"},
		{"Chrome/", "Chrome"}, {"Safari/", "Safari"}, {"curl/", "curl"}, {"Go-http-client", "Go client"},
	} {
		if strings.Contains(ua, b.token) {
			browser = b.name
			break
		}
	}
	for _, s := range []struct{ token, name string }{
		{"Windows", "Windows"}, {"Android", "Android"}, {"iPhone", "iPhone"}, {"iPad", "iPad"},
		{"Mac OS X", "macOS"}, {"Linux", "Linux"},
	} {
		if strings.Contains(ua, s.token) {
			return browser + " on " + s.name
		}
	}
	return browser
}
