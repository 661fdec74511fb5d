package web

import (
	"net/http"

	"switchboard/store"
	"switchboard/views"
)

// saveNotifications is POST /settings/profile/notifications: the user's desktop notification
// choices and the notification e-mails, shown on the profile page.
func (h *Handler) saveNotifications(w http.ResponseWriter, r *http.Request, u *ui) {
	if !h.readUIForm(w, r, u) {
		return
	}
	f := views.NotificationsForm{Inbound: r.PostForm.Get("inbound"), Sound: r.PostForm.Get("sound") == "on",
		Email: r.PostForm.Get("email") == "on", HideText: r.PostForm.Get("show_text") != "on", MailOff: h.cfg.Sessions.mailer() == nil}
	err := h.store.SetNotificationPrefs(u.user.ID, store.NotificationPrefs{Inbound: f.Inbound, Sound: f.Sound, Email: f.Email,
		HideText: f.HideText})
	if f.Errors = fieldErrors(err, nil); f.Errors != nil {
		if f.Errors["inbound"] != "" {
			f.Errors["inbound"] = "Choose which messages notify you"
		}
		h.profileRefused(w, r, u, map[string]string{"form": "Not saved: " + firstError(f.Errors)}, func(v *views.ProfileView) {
			f.Push, _ = h.pushView(r, u)
			v.Notifications = views.NotificationsSection(f)
		})
		return
	}
	http.Redirect(w, r, "/settings/profile?done=notifications", http.StatusSeeOther)
}
