package web

import (
	"fmt"
	"net/http"

	"switchboard/store"
)

type sendBroadcastRequest struct {
	workspaceID string
	in          store.BroadcastInput
}

func decodeSendBroadcast(f *fields, provider string) sendBroadcastRequest {
	var req sendBroadcastRequest
	req.workspaceID = f.base(provider, "id", true)
	req.in.From = f.phone("from", true)
	req.in.Recipients = f.phones("recipients", true)
	if !f.seen["recipients"] && len(req.in.Recipients) > store.MaxBroadcastRecipients {
		f.fail("recipients", fmt.Sprintf("must hold at most %d different numbers", store.MaxBroadcastRecipients))
	}
	req.in.Text, req.in.Media = f.textOrMedia()
	return req
}

// sendBroadcast queues one copy per recipient, each in its own conversation (202).
func (h *Handler) sendBroadcast(w http.ResponseWriter, r *http.Request, c *call) {
	req := decodeSendBroadcast(c.f, h.cfg.Provider)
	if !h.checked(w, r, c, req.workspaceID, store.WorkspaceData{From: req.in.From}) {
		return
	}
	req.in.AuthorID = c.token.UserID
	b, err := h.store.SendBroadcast(req.workspaceID, req.in)
	if err != nil {
		writeStoreError(w, r, err)
		return
	}
	writeJSON(w, http.StatusAccepted, broadcastResult{From: b.From, ID: b.ID, Recipients: b.Recipients, Status: b.Status,
		Text: b.Text, TotalOptedOut: b.TotalOptedOut, WorkspaceID: b.WorkspaceID})
}
