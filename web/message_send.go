package web

import (
	"net/http"

	"switchboard/store"
)

type sendMessageRequest struct {
	workspaceID string
	in          store.SendInput
}

func decodeSendMessage(f *fields, provider string) sendMessageRequest {
	var req sendMessageRequest
	req.workspaceID = f.base(provider, "id", true)
	req.in.From = f.phone("from", true)
	if to := f.phone("to", true); to != "" {
		req.in.To = []string{to}
	}
	req.in.Text, req.in.Media = f.textOrMedia()
	return req
}

// sendMessage queues one message in the conversation of from and to (202); with sendAt it is
// held, status scheduled, until then.
func (h *Handler) sendMessage(w http.ResponseWriter, r *http.Request, c *call) {
	req := decodeSendMessage(c.f, h.cfg.Provider)
	req.in.SendAt = sendAtField(c.f, h.now())
	if h.invalid(w, r, c, req.workspaceID, store.WorkspaceData{From: req.in.From, Text: req.in.Text}) {
		return
	}
	if h.refuseArchived(w, r, c, req.workspaceID) {
		return
	}
	// The workspace and membership checks (404, 403) run in the send's own transaction.
	req.in.AuthorID, req.in.CheckMember = c.token.UserID, true
	m, err := h.store.SendMessage(req.workspaceID, req.in)
	if err != nil {
		writeStoreError(w, r, err)
		return
	}
	res := messageResult{ConversationID: m.ConversationID, From: m.From, ID: m.ID,
		Text: m.Text, To: m.To, WorkspaceID: m.WorkspaceID}
	if m.SendAt != nil {
		// A send held for later says so; a send now keeps the seed's six fields.
		res.Status, res.SendAt = m.Status, store.FormatTime(*m.SendAt)
	}
	writeJSON(w, http.StatusAccepted, res)
}
