package web

import (
	"net/http"

	"switchboard/store"
)

// unsubscribeWebhook deletes a subscription of the workspace (200 {id}); unknown ids are 404.
// A member may delete only the subscriptions they made (403 otherwise), an admin any.
func (h *Handler) unsubscribeWebhook(w http.ResponseWriter, r *http.Request, c *call) {
	ws := c.f.base(h.cfg.Provider, "workspaceId", true)
	id := c.f.str("id", true, maxID)
	if !h.checked(w, r, c, ws, store.WorkspaceData{}) {
		return
	}
	if err := h.store.UnsubscribeAs(ws, id, c.token.UserID); err != nil {
		writeStoreError(w, r, err)
		return
	}
	writeJSON(w, http.StatusOK, idResult{ID: id})
}
