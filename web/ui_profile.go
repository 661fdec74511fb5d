package web

import (
	"net/http"

	"switchboard/store"
	"switchboard/views"
)

// profile is GET /settings/profile: the user's own settings (desktop notifications).
func (h *Handler) profile(w http.ResponseWriter, r *http.Request, u *ui) {
	p, err := h.store.NotificationPrefs(u.user.ID)
	if err != nil {
		h.uiError(w, r, u, err)
		return
	}
	v := views.ProfileView{Notifications: views.NotificationsForm{Inbound: p.Inbound, Sound: p.Sound}, IsAdmin: u.isAdmin()}
	if r.URL.Query().Get("done") == "notifications" {
		v.Notice = "Notification settings saved."
	}
	u.section = "settings"
	h.render(w, r, u, http.StatusOK, "Profile", views.Profile(v))
}

// saveNotifications is POST /settings/profile/notifications.
func (h *Handler) saveNotifications(w http.ResponseWriter, r *http.Request, u *ui) {
	if !h.readUIForm(w, r, u) {
		return
	}
	f := views.NotificationsForm{Inbound: r.PostForm.Get("inbound"), Sound: r.PostForm.Get("sound") == "on"}
	err := h.store.SetNotificationPrefs(u.user.ID, store.NotificationPrefs{Inbound: f.Inbound, Sound: f.Sound})
	if f.Errors = fieldErrors(err, nil); f.Errors != nil {
		if f.Errors["inbound"] != "" {
			f.Errors["inbound"] = "Choose which messages notify you"
		}
		u.section = "settings"
		h.render(w, r, u, http.StatusUnprocessableEntity, "Profile", views.Profile(views.ProfileView{Notifications: f,
			Error: "Not saved: " + firstError(f.Errors), IsAdmin: u.isAdmin()}))
		return
	}
	http.Redirect(w, r, "/settings/profile?done=notifications", http.StatusSeeOther)
}
