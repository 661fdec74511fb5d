package web

import (
	"net/http"

	"switchboard/store"
)

type createCommentRequest struct {
	workspaceID string
	in          store.CommentInput
}

func decodeCreateComment(f *fields, provider string) createCommentRequest {
	var req createCommentRequest
	req.workspaceID = f.base(provider, "id", true)
	req.in.From = f.phone("from", true)
	req.in.To = f.phone("to", true)
	req.in.Text, req.in.Media = f.textOrMedia()
	req.in.Mentions = f.strs("mentions", false)
	return req
}

// createComment adds an internal comment to the conversation of from and to (201).
func (h *Handler) createComment(w http.ResponseWriter, r *http.Request, c *call) {
	req := decodeCreateComment(c.f, h.cfg.Provider)
	if !h.checked(w, r, c, req.workspaceID, store.WorkspaceData{From: req.in.From, Mentions: req.in.Mentions}) {
		return
	}
	req.in.AuthorID = c.token.UserID
	cm, err := h.store.CreateComment(req.workspaceID, req.in)
	if err != nil {
		writeStoreError(w, r, err)
		return
	}
	writeJSON(w, http.StatusCreated, commentResult{ConversationID: cm.ConversationID, ID: cm.ID, Text: cm.Text, WorkspaceID: cm.WorkspaceID})
}
