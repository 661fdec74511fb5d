package web

import (
	"net/http"
)

// listContactProperties lists the workspace's custom contact properties (200).
func (h *Handler) listContactProperties(w http.ResponseWriter, r *http.Request, c *call) {
	ws := c.f.base(h.cfg.Provider, "id", true)
	if !validate(w, c) || !h.authorize(w, r, c, ws) {
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
