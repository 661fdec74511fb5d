package web

import (
	"net/http"

	"switchboard/store"
)

type createConversationRequest struct {
	workspaceID, from, to string
}

func decodeCreateConversation(f *fields, provider string) createConversationRequest {
	return createConversationRequest{
		workspaceID: f.base(provider, "id", true),
		from:        f.phone("from", true),
		to:          f.phone("to", true),
	}
}

// createConversation returns the SMS conversation of from and to: 201 when new, 200 when it existed.
func (h *Handler) createConversation(w http.ResponseWriter, r *http.Request, c *call) {
	req := decodeCreateConversation(c.f, h.cfg.Provider)
	if h.invalid(w, r, c, req.workspaceID, store.WorkspaceData{From: req.from}) {
		return
	}
	// The common case, an existing pair, is one read transaction that also authorizes and
	// refuses an archived workspace.
	id, err := h.store.LookupConversation(c.token.UserID, req.workspaceID, req.from, req.to)
	if err != nil {
		writeStoreError(w, r, err)
		return
	}
	if id != "" {
		writeJSON(w, http.StatusOK, conversationResult{From: req.from, ID: id, To: req.to, WorkspaceID: req.workspaceID})
		return
	}
	conv, created, err := h.store.CreateConversation(req.workspaceID, req.from, req.to)
	if err != nil {
		writeStoreError(w, r, err)
		return
	}
	status := http.StatusOK
	if created {
		status = http.StatusCreated
	}
	writeJSON(w, status, conversationResult{From: conv.From, ID: conv.ID, To: conv.InboundChannelAddresses, WorkspaceID: conv.WorkspaceID})
}
