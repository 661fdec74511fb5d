package web

import (
	"net/http"

	"switchboard/store"
)

// me describes the token's user and their workspaces (200): the integration's auth test.
// The workspace id is optional here, since an auth test has no workspace yet; one that is
// given is checked like any action's (404 unknown, 403 not a member).
func (h *Handler) me(w http.ResponseWriter, r *http.Request, c *call) {
	ws := c.f.base(h.cfg.Provider, "id", false)
	if h.invalid(w, r, c, ws, store.WorkspaceData{}) || (ws != "" && !h.authorize(w, r, c, ws)) {
		return
	}
	u, err := h.store.User(c.token.UserID)
	if err != nil {
		writeStoreError(w, r, err)
		return
	}
	wss, err := h.store.UserWorkspaces(u.ID)
	if err != nil {
		writeStoreError(w, r, err)
		return
	}
	out := meResult{UserID: u.ID, Email: u.Email, Name: u.Name, Workspaces: make([]workspaceRef, 0, len(wss))}
	for _, ws := range wss {
		out.Workspaces = append(out.Workspaces, workspaceRef{ID: ws.ID, Name: ws.Name})
	}
	writeJSON(w, http.StatusOK, out)
}
