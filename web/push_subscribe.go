package web

import (
	"errors"
	"io"
	"net/http"

	"switchboard/push"
	"switchboard/store"
)

// maxSubscriptionBody bounds a posted subscription: a browser's is about 400 bytes.
const maxSubscriptionBody = 8 << 10

// pushSubscribe is POST /push/subscriptions: the signed-in browser turns on "Notifications on
// this device" and posts its PushSubscription.toJSON(). The subscription belongs to the
// request's session and ends with it. A bad body, an endpoint off the public https Internet
// (the webhooks' address rules, -hook-allow-cidrs included) or an eleventh device is a 400
// listing what is wrong, and nothing is stored. The answer is 201 with the device's id.
func (h *Handler) pushSubscribe(w http.ResponseWriter, r *http.Request) {
	user, sessionID, ok := h.pushSession(w, r)
	if !ok {
		return
	}
	body, err := io.ReadAll(http.MaxBytesReader(w, r.Body, maxSubscriptionBody))
	if err != nil {
		writeError(w, http.StatusRequestEntityTooLarge, "a subscription is at most 8 KB")
		return
	}
	sub, err := push.DecodeSubscription(body)
	if err == nil && h.cfg.CheckPushEndpoint != nil {
		if cerr := h.cfg.CheckPushEndpoint(r.Context(), sub.Endpoint); cerr != nil {
			err = store.ValidationError{{Field: "endpoint", Message: cerr.Error()}}
		}
	}
	if err != nil {
		writeStoreError(w, r, err)
		return
	}
	row, err := h.store.AddPushSubscription(store.NewPushSubscription{UserID: user.ID, SessionID: sessionID,
		Endpoint: sub.Endpoint, P256dh: sub.Keys.P256dh, Auth: sub.Keys.Auth, UserAgent: r.UserAgent(), ExpiresAt: sub.Expires()})
	if errors.Is(err, store.ErrNotFound) {
		writeError(w, http.StatusUnauthorized, "sign in first")
		return
	}
	if err != nil {
		writeStoreError(w, r, err)
		return
	}
	writeJSON(w, http.StatusCreated, map[string]string{"id": row.ID})
}

// pushSession is the signed-in user and session of a /push/ request, or a 401 (JSON: these
// are called by scripts, not opened as pages).
func (h *Handler) pushSession(w http.ResponseWriter, r *http.Request) (store.User, string, bool) {
	user, ok := h.cfg.Sessions.CurrentUser(r)
	if !ok {
		writeError(w, http.StatusUnauthorized, "sign in first")
		return user, "", false
	}
	return user, h.cfg.Sessions.SessionID(r), true
}
