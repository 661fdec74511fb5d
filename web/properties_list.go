package web

import (
	"net/http"

	"switchboard/store"
)

// listContactProperties lists the workspace's custom contact properties (200).
func (h *Handler) listContactProperties(w http.ResponseWriter, r *http.Request, c *call) {
	ws := c.f.base(h.cfg.Provider, "id", true)
	if !h.checked(w, r, c, ws, store.WorkspaceData{}) {
		return
	}
	props, err := h.store.Properties(ws)
	if err != nil {
		writeStoreError(w, r, err)
		return
	}
	out := make([]propertyResult, 0, len(props))
	for _, p := range props {
		out = append(out, propertyResult{ID: p.ID, Name: p.Name, Type: p.Type})
	}
	writeJSON(w, http.StatusOK, out)
}
