package web

import (
	"encoding/json"
	"fmt"
	"net/http"
	"time"

	"switchboard/store"
)

type sendBroadcastRequest struct {
	workspaceID string
	in          store.BroadcastInput
}

func decodeSendBroadcast(f *fields, provider string, now time.Time) sendBroadcastRequest {
	var req sendBroadcastRequest
	req.workspaceID = f.base(provider, "id", true)
	req.in.Name = f.str("name", false, maxName)
	req.in.From = f.phone("from", true)
	req.in.Recipients = f.phones("recipients", false)
	if !f.seen["recipients"] && len(req.in.Recipients) > store.MaxBroadcastRecipients {
		f.fail("recipients", fmt.Sprintf("must hold at most %d different numbers", store.MaxBroadcastRecipients))
	}
	req.in.GroupIDs = f.ids("groupIds")
	req.in.ConversationIDs = f.ids("conversationIds")
	req.in.ExcludeGroupIDs = f.ids("excludeGroupIds")
	req.in.ExcludeConversationIDs = f.ids("excludeConversationIds")
	if !f.seen["recipients"] && !f.seen["groupIds"] && !f.seen["conversationIds"] &&
		len(req.in.Recipients) == 0 && len(req.in.GroupIDs) == 0 && len(req.in.ConversationIDs) == 0 {
		f.fail("recipients", "is required: give recipients, groupIds or conversationIds")
	}
	if at := f.str("sendAt", false, 64); at != "" {
		t, err := time.Parse(time.RFC3339Nano, at)
		switch {
		case err != nil:
			f.fail("sendAt", "must be an RFC 3339 time such as 2026-12-01T09:00:00Z")
		case !t.After(now):
			f.fail("sendAt", "must be in the future")
		case t.After(store.LatestSendAt(now)):
			f.fail("sendAt", "must be at most one year ahead")
		default:
			t = t.UTC()
			req.in.SendAt = &t
		}
	}
	req.in.Text, req.in.Media = f.textOrMedia()
	req.in.OptOutInstructions = f.boolean("optOutInstructions")
	return req
}

// ids returns the workspace ids at name: at most store.MaxBroadcastIDs, each a non-empty string
// of at most 45 characters, de-duplicated.
func (f *fields) ids(name string) []string {
	list := f.strs(name, false)
	if len(list) > store.MaxBroadcastIDs {
		f.fail(name, fmt.Sprintf("must hold at most %d ids", store.MaxBroadcastIDs))
		return nil
	}
	seen := map[string]bool{}
	out := make([]string, 0, len(list))
	for i, id := range list {
		if id == "" || len([]rune(id)) > maxID {
			f.fail(name, fmt.Sprintf("%s[%d] must be an id of at most %d characters", name, i, maxID))
			return nil
		}
		if !seen[id] {
			seen[id] = true
			out = append(out, id)
		}
	}
	return out
}

// sendBroadcast queues one copy per recipient, each in its own conversation, or schedules the
// broadcast for sendAt (202).
func (h *Handler) sendBroadcast(w http.ResponseWriter, r *http.Request, c *call) {
	req := decodeSendBroadcast(c.f, h.cfg.Provider, h.now())
	targets := req.in.Targets()
	if !h.checked(w, r, c, req.workspaceID, store.WorkspaceData{From: req.in.From, Text: req.in.Text, Targets: &targets}) {
		return
	}
	req.in.AuthorID = c.token.UserID
	b, err := h.store.SendBroadcast(req.workspaceID, req.in)
	if err != nil {
		writeStoreError(w, r, err)
		return
	}
	writeJSON(w, http.StatusAccepted, newBroadcastResult(&b))
}

func newBroadcastResult(b *store.Broadcast) broadcastResult {
	recipients := b.Recipients
	if recipients == nil {
		recipients = []string{}
	}
	return broadcastResult{From: b.From, ID: b.ID, Recipients: recipients, Status: b.Status, Text: b.Text,
		TotalOptedOut: b.TotalOptedOut, WorkspaceID: b.WorkspaceID}
}

// cancelBroadcast cancels a draft, scheduled or sending broadcast (200); any other is 409.
func (h *Handler) cancelBroadcast(w http.ResponseWriter, r *http.Request, c *call) {
	ws := c.f.base(h.cfg.Provider, "id", true)
	id := c.f.str("broadcastId", true, maxID)
	if !h.checked(w, r, c, ws, store.WorkspaceData{}) {
		return
	}
	b, err := h.store.CancelBroadcast(ws, id)
	if err != nil {
		writeStoreError(w, r, err)
		return
	}
	writeJSON(w, http.StatusOK, newBroadcastResult(&b))
}

// boolean returns the boolean at name; false when absent or null. A present non-boolean fails.
func (f *fields) boolean(name string) bool {
	if !f.present(name) {
		return false
	}
	var b bool
	if err := json.Unmarshal(f.raw[name], &b); err != nil {
		f.fail(name, "must be a boolean")
	}
	return b
}
