package web

import (
	"net/http"
)

// createOrUpdateContact matches by phone and changes only the fields given: 201 created, 200 updated.
func (h *Handler) createOrUpdateContact(w http.ResponseWriter, r *http.Request, c *call) {
	req := decodeContact(c.f, h.cfg.Provider, false)
	if !validate(w, c) || !h.authorize(w, r, c, req.workspaceID) {
		return
	}
	ct, created, err := h.store.UpsertContact(req.workspaceID, req.in)
	if err != nil {
		writeStoreError(w, r, err)
		return
	}
	status := http.StatusOK
	if created {
		status = http.StatusCreated
	}
	writeJSON(w, status, newContactResult(ct))
}
