package web

import (
	"encoding/json"
	"io"
	"net/http"

	"switchboard/store"
)

// pushUnsubscribe is DELETE /push/subscriptions with {"endpoint": …}: the browser turns
// "Notifications on this device" off (it unsubscribes from its push service too). One of the
// user's own devices is deleted with the pushes queued for it; an endpoint they do not have is
// no error. The answer is 204.
func (h *Handler) pushUnsubscribe(w http.ResponseWriter, r *http.Request) {
	user, _, ok := h.pushSession(w, r)
	if !ok {
		return
	}
	var in struct {
		Endpoint string `json:"endpoint"`
	}
	body, err := io.ReadAll(http.MaxBytesReader(w, r.Body, maxSubscriptionBody))
	if err == nil {
		err = json.Unmarshal(body, &in)
	}
	if err != nil || in.Endpoint == "" {
		writeValidation(w, store.ValidationError{{Field: "endpoint", Message: "is required: the endpoint of the subscription to end"}})
		return
	}
	if err := h.store.RemovePushEndpoint(user.ID, in.Endpoint); err != nil {
		writeStoreError(w, r, err)
		return
	}
	w.WriteHeader(http.StatusNoContent)
}
