package web

import (
	"errors"
	"net/http"
	"strings"

	"switchboard/store"
	"switchboard/views"
)

// pushView is the Web Push part of the profile for the request's user: their devices, newest
// first, this browser's marked; nil when the server pushes nothing.
func (h *Handler) pushView(r *http.Request, u *ui) (*views.PushView, error) {
	if h.cfg.PushKey == "" {
		return nil, nil
	}
	subs, err := h.store.UserPushSubscriptions(u.user.ID)
	if err != nil {
		return nil, err
	}
	ua := r.UserAgent()
	v := &views.PushView{Key: h.cfg.PushKey, IPhone: strings.Contains(ua, "iPhone") || strings.Contains(ua, "iPad")}
	current := h.cfg.Sessions.SessionID(r)
	loc := u.ws.Location()
	for i := len(subs) - 1; i >= 0; i-- {
		s := subs[i]
		d := views.DeviceRow{ID: s.ID, Browser: browserName(s.UserAgent), Added: fmtTime(s.CreatedAt, loc), LastPush: "never"}
		if !s.LastPushAt.IsZero() {
			d.LastPush = fmtTime(s.LastPushAt, loc)
		}
		if s.SessionID == current {
			d.ThisBrowser, d.Endpoint = true, s.Endpoint
		}
		v.Devices = append(v.Devices, d)
	}
	return v, nil
}

// removeDevice is POST /settings/profile/devices/{device}/remove: the device gets no more
// notifications (its queued pushes go too); another user's device is not found.
func (h *Handler) removeDevice(w http.ResponseWriter, r *http.Request, u *ui) {
	err := h.store.RemovePushSubscription(u.user.ID, r.PathValue("device"))
	if errors.Is(err, store.ErrNotFound) {
		h.notFound(w, r, u, "such device")
		return
	}
	if err != nil {
		h.uiError(w, r, u, err)
		return
	}
	http.Redirect(w, r, "/settings/profile?done=device-removed", http.StatusSeeOther)
}
