package web

import (
	"net/http"

	"switchboard/store"
	"switchboard/views"
)

// emailView fills the profile's e-mail section: the address waiting for its confirmation, and
// the notice after asking for one.
func (h *Handler) emailView(r *http.Request, u *ui, v *views.ProfileView) error {
	pending, until, err := h.store.PendingEmailChange(u.user.ID, h.cfg.Sessions.now())
	if err != nil {
		return err
	}
	v.MailOn = h.cfg.Sessions.mailer() != nil
	if pending != "" {
		v.PendingEmail, v.PendingUntil = pending, fmtTime(until, u.ws.Location())
		if r.URL.Query().Get("done") == "email-sent" {
			v.Notice = "We sent a link to " + pending + ". Your e-mail changes to it when the link is opened; until then it stays " + u.user.Email + "."
		}
	}
	return nil
}

// changeEmail is POST /settings/profile/email: a new address, with the current password (a
// stolen session alone cannot move the account to another address). With e-mail on, the old
// address is told and the new one gets a link that makes the change (RequestEmailChange); an
// address another account has gets the same answer. Without e-mail there is nothing to confirm
// by, and the change is made at once.
func (h *Handler) changeEmail(w http.ResponseWriter, r *http.Request, u *ui) {
	if !h.readUIForm(w, r, u) {
		return
	}
	email := r.PostForm.Get("email")
	keep := func(v *views.ProfileView) { v.NewEmail = email }
	if !h.profilePassword(w, r, u, "email_password", keep) {
		return
	}
	m := h.cfg.Sessions.mailer()
	if m == nil {
		if _, err := h.store.SetEmail(u.user.ID, email); err != nil {
			h.profileRefused(w, r, u, fieldErrors(err, nil), keep)
			return
		}
		http.Redirect(w, r, "/settings/profile?done=email", http.StatusSeeOther)
		return
	}
	base := h.publicURL(r)
	name := store.MailText(u.user.Name)
	shown := store.MailText(email)
	notice := &store.Mail{To: u.user.Email, Subject: "Your Switchboard e-mail is being changed",
		Body: "Hello " + name + ",\n\nSomeone signed in as you asked to change the e-mail of your Switchboard account from " +
			u.user.Email + " to " + shown + ".\n\nNothing changes until the link sent to " + shown + " is opened (within a day).\n\n" +
			"If it was not you, change your password now and sign out your other sessions:\n" + base + "/settings/profile\n"}
	mailFor := func(token string) *store.Mail {
		return &store.Mail{To: email, Subject: "Confirm your new Switchboard e-mail",
			Body: "Hello " + name + ",\n\nTo make " + shown + " the e-mail of your Switchboard account (now " + u.user.Email + "), open this link within a day:\n" +
				base + "/email-change/" + token + "\n\nIf you did not ask for this, ignore this e-mail: nothing changes.\n"}
	}
	if err := h.store.RequestEmailChange(u.user.ID, email, h.cfg.Sessions.now(), notice, mailFor); err != nil {
		h.profileRefused(w, r, u, fieldErrors(err, nil), keep)
		return
	}
	m.Wake()
	http.Redirect(w, r, "/settings/profile?done=email-sent", http.StatusSeeOther)
}
