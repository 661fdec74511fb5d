package web

import (
	"net/http"

	"switchboard/store"
)

// createOrUpdateContact matches by phone and changes only the fields given: 201 created, 200 updated.
func (h *Handler) createOrUpdateContact(w http.ResponseWriter, r *http.Request, c *call) {
	req := decodeContact(c.f, h.cfg.Provider, false)
	h.checkConsent(c, req.in.Consent)
	if !h.checked(w, r, c, req.workspaceID, store.WorkspaceData{Properties: req.in.Properties, NullRemoves: true}) {
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
