package web

import (
	"net/http"
	"net/url"
	"strings"

	"switchboard/store"
)

type subscribeRequest struct {
	workspaceID, eventName, hookURL string
}

func decodeSubscribe(f *fields, provider string) subscribeRequest {
	req := subscribeRequest{
		workspaceID: f.base(provider, "workspaceId", true),
		eventName:   f.str("eventName", true, 0),
		hookURL:     f.str("hookUrl", true, store.MaxMediaURL),
	}
	if req.eventName != "" && !store.ValidEventName(req.eventName) {
		f.fail("eventName", "must be one of "+strings.Join(store.EventNames, ", "))
	}
	if req.hookURL != "" && !f.seen["hookUrl"] {
		u, err := url.Parse(req.hookURL)
		if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Hostname() == "" {
			f.fail("hookUrl", "must be an absolute http or https URL")
		}
	}
	return req
}

// subscribeWebhook adds a subscription and shows its signing secret once (201). The hook URL's
// address check (SSRF guard) runs only for a member of an existing workspace, after the token
// check, so that no one else can probe what host names resolve to; like the other checks of
// workspace data, its failure joins the body's own failures in one 400.
func (h *Handler) subscribeWebhook(w http.ResponseWriter, r *http.Request, c *call) {
	req := decodeSubscribe(c.f, h.cfg.Provider)
	access := h.store.Authorize(req.workspaceID, c.token.UserID)
	if access == nil && !c.f.seen["hookUrl"] && req.hookURL != "" && h.cfg.ValidateHookURL != nil {
		if err := h.cfg.ValidateHookURL(r.Context(), req.hookURL); err != nil {
			c.f.fail("hookUrl", err.Error())
		}
	}
	if !h.checked(w, r, c, req.workspaceID, store.WorkspaceData{}) {
		return
	}
	sub, err := h.store.SubscribeAs(c.token, req.workspaceID, req.eventName, req.hookURL)
	if err != nil {
		writeStoreError(w, r, err)
		return
	}
	writeJSON(w, http.StatusCreated, subscriptionResult{ID: sub.ID, EventName: sub.EventName, HookURL: sub.HookURL,
		WorkspaceID: sub.WorkspaceID, Secret: sub.Secret})
}
