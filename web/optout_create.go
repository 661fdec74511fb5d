package web

import (
	"net/http"

	"switchboard/store"
)

type createOptOutRequest struct {
	workspaceID, phone string
}

func decodeCreateOptOut(f *fields, provider string) createOptOutRequest {
	return createOptOutRequest{workspaceID: f.base(provider, "id", true), phone: f.phone("phone", true)}
}

// createOptOut records an opt-out: 201 when new, 200 when the number had already opted out.
func (h *Handler) createOptOut(w http.ResponseWriter, r *http.Request, c *call) {
	req := decodeCreateOptOut(c.f, h.cfg.Provider)
	if !h.checked(w, r, c, req.workspaceID, store.WorkspaceData{}) {
		return
	}
	o, created, err := h.store.CreateOptOut(req.workspaceID, c.token.UserID, req.phone, store.OptOutAPI)
	if err != nil {
		writeStoreError(w, r, err)
		return
	}
	status := http.StatusOK
	if created {
		status = http.StatusCreated
	}
	writeJSON(w, status, optOutResult{ID: o.ID, Phone: o.Phone, WorkspaceID: o.WorkspaceID})
}
