package web

import (
	"fmt"
	"net/http"
	"slices"

	"switchboard/store"
)

type sendGroupMessageRequest struct {
	workspaceID string
	in          store.SendInput
}

func decodeSendGroupMessage(f *fields, provider string) sendGroupMessageRequest {
	var req sendGroupMessageRequest
	req.workspaceID = f.base(provider, "id", true)
	req.in.From = f.phone("from", true)
	group := f.phones("group", true)
	switch {
	case f.seen["group"]:
	case len(group) > maxGroup:
		f.fail("group", fmt.Sprintf("must hold at most %d different numbers", maxGroup))
	case req.in.From != "" && slices.Contains(group, req.in.From):
		f.fail("group", "must not contain the from number "+req.in.From)
	}
	req.in.To = group
	req.in.Text, req.in.Media = f.textOrMedia()
	return req
}

// sendGroupMessage queues one message to the group conversation of its sorted addresses (202).
func (h *Handler) sendGroupMessage(w http.ResponseWriter, r *http.Request, c *call) {
	req := decodeSendGroupMessage(c.f, h.cfg.Provider)
	if h.invalid(w, r, c, req.workspaceID, store.WorkspaceData{From: req.in.From}) {
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
	group := m.Group
	if len(group) == 0 {
		group = []string{m.To}
	}
	writeJSON(w, http.StatusAccepted, groupMessageResult{ConversationID: m.ConversationID, From: m.From, Group: group,
		ID: m.ID, Text: m.Text, WorkspaceID: m.WorkspaceID})
}
