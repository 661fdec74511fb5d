package web

import (
	"net/http"

	"switchboard/store"
)

type findContactRequest struct {
	workspaceID, searchText string
}

func decodeFindContact(f *fields, provider string) findContactRequest {
	return findContactRequest{
		workspaceID: f.base(provider, "id", true),
		searchText:  f.str("searchText", false, maxSearchText),
	}
}

// findContact searches the workspace's contacts (200, an array, at most 100).
func (h *Handler) findContact(w http.ResponseWriter, r *http.Request, c *call) {
	req := decodeFindContact(c.f, h.cfg.Provider)
	if !h.checked(w, r, c, req.workspaceID, store.WorkspaceData{}) {
		return
	}
	done, err := h.searches.enter(r.Context(), c.token.ID)
	if err != nil {
		return // the client is gone: nobody reads an answer
	}
	contacts, err := h.store.SearchContacts(req.workspaceID, req.searchText)
	done()
	if err != nil {
		writeStoreError(w, r, err)
		return
	}
	writeContacts(w, http.StatusOK, contacts)
}
