package web

import (
	"bytes"
	"encoding/json"
	"net/http"
	"strings"

	"switchboard/store"
)

type listMessagesRequest struct {
	workspaceID string
	filter      store.MessageFilter
}

func decodeListMessages(f *fields, provider string) listMessagesRequest {
	var req listMessagesRequest
	req.workspaceID = f.base(provider, "id", true)
	req.filter.ConversationID = f.str("conversationId", false, maxID)
	switch d := f.str("direction", false, 0); d {
	case "", "inbound", "outbound":
		req.filter.Direction = d
	default:
		f.fail("direction", `must be "inbound" or "outbound"`)
	}
	req.filter.Limit = 25
	if f.present("limit") {
		var n json.Number
		raw := bytes.TrimSpace(f.raw["limit"])
		if len(raw) == 0 || raw[0] == '"' || json.Unmarshal(raw, &n) != nil {
			f.fail("limit", "must be a whole number from 1 to 100")
		} else if v, err := n.Int64(); err != nil || v < 1 || v > 100 {
			f.fail("limit", "must be a whole number from 1 to 100")
		} else {
			req.filter.Limit = int(v)
		}
	}
	return req
}

// listMessages lists the workspace's messages, newest first, with their direction, status and
// the carrier's error (200): Zapier samples and status look-ups.
func (h *Handler) listMessages(w http.ResponseWriter, r *http.Request, c *call) {
	req := decodeListMessages(c.f, h.cfg.Provider)
	if !h.checked(w, r, c, req.workspaceID, store.WorkspaceData{}) {
		return
	}
	req.filter.Viewer = c.token.UserID // numbers limited to teams the user is not in are left out
	msgs, err := h.store.ListMessages(req.workspaceID, req.filter)
	if err != nil {
		writeStoreError(w, r, err)
		return
	}
	out := make([]messageListResult, len(msgs))
	for i := range msgs {
		out[i] = newMessageListResult(&msgs[i])
	}
	writeJSON(w, http.StatusOK, out)
}

// messageListResult is the Message result with what a status look-up needs.
type messageListResult struct {
	ConversationID string   `json:"conversationId"`
	CreatedAt      string   `json:"createdAt"`
	Direction      string   `json:"direction"`
	Error          string   `json:"error"`
	From           string   `json:"from"`
	ID             string   `json:"id"`
	Media          []string `json:"media"` // URLs; [] when none
	Segments       int      `json:"segments"`
	Status         string   `json:"status"`
	Text           string   `json:"text"`
	To             string   `json:"to"`
	WorkspaceID    string   `json:"workspaceId"`
}

func newMessageListResult(m *store.Message) messageListResult {
	to := m.To
	if to == "" && len(m.Group) > 0 {
		to = strings.Join(m.Group, "-")
	}
	return messageListResult{ConversationID: m.ConversationID, CreatedAt: store.FormatTime(m.CreatedAt),
		Direction: m.Direction(), Error: m.ProviderErr, From: m.From, ID: m.ID, Media: orEmptyList(m.Media), Segments: m.Segments,
		Status: m.Status, Text: m.Text, To: to, WorkspaceID: m.WorkspaceID}
}

// orEmptyList makes a nil list [] in JSON.
func orEmptyList(l []string) []string {
	if l == nil {
		return []string{}
	}
	return l
}
