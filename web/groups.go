package web

import (
	"net/http"

	"switchboard/store"
)

type groupResult struct {
	ID   string `json:"id"`
	Name string `json:"name"`
	Size int    `json:"size"`
}

// listGroups lists the workspace's contact groups by name (200): a dropdown's choices.
func (h *Handler) listGroups(w http.ResponseWriter, r *http.Request, c *call) {
	ws := c.f.base(h.cfg.Provider, "id", true)
	if !h.checked(w, r, c, ws, store.WorkspaceData{}) {
		return
	}
	groups, err := h.store.Groups(ws)
	if err != nil {
		writeStoreError(w, r, err)
		return
	}
	out := make([]groupResult, len(groups))
	for i, g := range groups {
		out[i] = groupResult{ID: g.ID, Name: g.Name, Size: g.Size}
	}
	writeJSON(w, http.StatusOK, out)
}

// addContactToGroup puts the contact of phone into the group named group, creating either when
// missing (200); adding twice changes nothing.
func (h *Handler) addContactToGroup(w http.ResponseWriter, r *http.Request, c *call) {
	ws := c.f.base(h.cfg.Provider, "id", true)
	phone := c.f.phone("phone", true)
	group := c.f.str("group", true, 100)
	if !h.checked(w, r, c, ws, store.WorkspaceData{}) {
		return
	}
	ct, g, err := h.store.AddToGroup(ws, group, phone)
	if err != nil {
		writeStoreError(w, r, err)
		return
	}
	writeJSON(w, http.StatusOK, map[string]string{"contactId": ct.ID, "groupId": g.ID})
}
