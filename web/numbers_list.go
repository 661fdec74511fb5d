package web

import (
	"net/http"

	"switchboard/store"
)

// listPhoneNumbers lists the workspace's active numbers for dropdowns (200).
func (h *Handler) listPhoneNumbers(w http.ResponseWriter, r *http.Request, c *call) {
	ws := c.f.base(h.cfg.Provider, "id", true)
	if !h.checked(w, r, c, ws, store.WorkspaceData{}) {
		return
	}
	numbers, err := h.store.Numbers(ws)
	if err != nil {
		writeStoreError(w, r, err)
		return
	}
	// A number limited to teams the user is not in is not theirs to choose.
	hidden, err := h.store.HiddenNumbers(ws, c.token.UserID)
	if err != nil {
		writeStoreError(w, r, err)
		return
	}
	out := make([]phoneNumberResult, 0, len(numbers))
	for _, n := range numbers {
		if n.Active && !hidden[n.ID] {
			out = append(out, phoneNumberResult{ID: n.ID, Phone: n.Phone, Name: n.Name})
		}
	}
	writeJSON(w, http.StatusOK, out)
}
