package web

import (
	"net/http"
	"net/url"
	"testing"

	"switchboard/carrier"
	"switchboard/store"
)

// TestArchivedWorkspaceIsReadOnlyToTheAPI: every action on an archived workspace answers 403
// "workspace is archived", after the token and body checks; a sandbox text to its number is
// still recorded.
func TestArchivedWorkspaceIsReadOnlyToTheAPI(t *testing.T) {
	e := newEnvWith(t, Config{}, func(st *store.Store, cfg *Config) { cfg.Receiver = carrier.NewReceiver(st, nil) })
	if err := e.st.SetWorkspaceArchived(e.ws.ID, true); err != nil {
		t.Fatal(err)
	}
	e.postAs(t, "sbp_nope", "send-message-action", e.body(obj{"from": fromNumber, "to": toNumber, "text": "x"})).want(t, http.StatusUnauthorized)
	e.post(t, "send-message-action", e.body(obj{"from": fromNumber, "to": toNumber})).want(t, http.StatusBadRequest)
	for action, body := range map[string]obj{
		"send-message-action":        e.body(obj{"from": fromNumber, "to": toNumber, "text": "x"}),
		"list-phone-numbers-action":  e.body(obj{}),
		"create-contact-action":      e.body(obj{"phone": toNumber, "firstName": "Ana"}),
		"list-messages-action":       e.body(obj{}),
		"subscribe-webhook":          e.body(obj{"eventName": "message.received", "hookUrl": "https://hooks.example.com/x"}),
		"me-action":                  e.body(obj{}),
		"create-conversation-action": e.body(obj{"from": fromNumber, "to": toNumber}),
	} {
		if action != "create-conversation-action" {
			body["workspaceId"] = e.ws.ID
		}
		r := e.post(t, action, body)
		if r.status != http.StatusForbidden {
			t.Errorf("%s: %d %s, want 403", action, r.status, r.raw)
			continue
		}
		if msg := r.errorText(t); msg != "workspace is archived" {
			t.Errorf("%s: error %q, want workspace is archived", action, msg)
		}
	}
	// Inbound texts to its numbers are still recorded.
	form := url.Values{"From": {toNumber}, "To": {fromNumber}, "Body": {"still there?"}}
	r := e.do(t, http.MethodPost, e.srv.URL+"/carrier/sandbox/sms", map[string]string{
		"Content-Type": "application/x-www-form-urlencoded", "Authorization": "Bearer " + e.token}, []byte(form.Encode()))
	if r.status >= 300 {
		t.Fatalf("sandbox inbound to an archived workspace: %d %s", r.status, r.raw)
	}
}

// TestSandboxEndpointsAreRateLimited: the sandbox carrier endpoints take the API's per-token
// rate limit.
func TestSandboxEndpointsAreRateLimited(t *testing.T) {
	e := newEnvWith(t, Config{RateLimit: 1}, func(st *store.Store, cfg *Config) { cfg.Receiver = carrier.NewReceiver(st, nil) })
	form := url.Values{"From": {toNumber}, "To": {fromNumber}, "Body": {"hi"}}
	statuses := map[int]int{}
	for range 4 {
		r := e.do(t, http.MethodPost, e.srv.URL+"/carrier/sandbox/sms", map[string]string{
			"Content-Type": "application/x-www-form-urlencoded", "Authorization": "Bearer " + e.token}, []byte(form.Encode()))
		statuses[r.status]++
		if r.status == http.StatusTooManyRequests && r.header.Get("Retry-After") == "" {
			t.Error("429 without Retry-After")
		}
	}
	if statuses[http.StatusTooManyRequests] == 0 {
		t.Fatalf("4 sandbox posts at a limit of 1/s (burst 2): %v, want some 429", statuses)
	}
}
