package web

import (
	"errors"
	"net/http"

	"switchboard/store"
)

// broadcastResume is POST /broadcasts/{broadcast}/resume (workspace admins): a paused broadcast
// sends again; any other status is the broadcast page with 409.
func (h *Handler) broadcastResume(w http.ResponseWriter, r *http.Request, u *ui) {
	b, ok := h.broadcastOf(w, r, u)
	if !ok || !h.readUIForm(w, r, u) {
		return
	}
	_, err := h.store.ResumeBroadcast(u.ws.ID, b.ID)
	if errors.Is(err, store.ErrConflict) {
		h.renderBroadcast(w, r, u, &b, http.StatusConflict, "Not resumed: only a paused broadcast can be resumed; this one is "+b.Status+".")
		return
	}
	if err != nil {
		h.uiError(w, r, u, err)
		return
	}
	http.Redirect(w, r, "/broadcasts/"+b.ID+"?done=resume", http.StatusSeeOther)
}
