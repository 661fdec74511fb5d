package web

import (
	"encoding/json"
	"net/http"

	"switchboard/store"
)

type deleteContactRequest struct {
	workspaceID, phone string
	erase              bool
}

func decodeDeleteContact(f *fields, provider string) deleteContactRequest {
	req := deleteContactRequest{workspaceID: f.base(provider, "id", true), phone: f.phone("phone", true)}
	if f.present("erase") {
		if err := json.Unmarshal(f.raw["erase"], &req.erase); err != nil {
			f.fail("erase", "must be true or false")
		}
	}
	return req
}

// deleteContact deletes the contact of phone (200 {id}); with erase, its conversations,
// messages and comments too. Its opt-out stays. An unknown phone is 404 contact not found.
func (h *Handler) deleteContact(w http.ResponseWriter, r *http.Request, c *call) {
	req := decodeDeleteContact(c.f, h.cfg.Provider)
	if !h.checked(w, r, c, req.workspaceID, store.WorkspaceData{}) {
		return
	}
	ct, err := h.store.DeleteContact(req.workspaceID, req.phone, req.erase)
	if err != nil {
		writeStoreError(w, r, err)
		return
	}
	writeJSON(w, http.StatusOK, map[string]string{"id": ct.ID})
}
