package web

import (
	"net/http"
	"testing"
	"time"

	"switchboard/store"
)

// A broad set of valid requests, optional fields and their absent forms ("" and null)
// included: each must succeed, and the contract check in env.do holds request and response to
// the OpenAPI document.
func TestOpenAPIValidRequests(t *testing.T) {
	e := newEnv(t, Config{})
	future := time.Now().Add(48 * time.Hour).UTC().Format(time.RFC3339)
	var group map[string]any
	for _, tc := range []struct {
		action string
		body   obj
		status int
	}{
		{"me-action", obj{"developerProvider": "zapier"}, 200},
		{"me-action", e.body(obj{"userId": nil}), 200},
		{"me-action", obj{"developerProvider": "zapier", "id": "", "userId": ""}, 200},
		{"me-action", obj{"developerProvider": "zapier", "id": nil, "userId": nil}, 200},
		{"create-contact-action", e.body(obj{"firstName": "Ana", "phone": "+14155550131", "lastName": "Lima", "email": "ana@example.com",
			"properties": obj{"plan": "gold", "seats": 3, "vip": true, "renewal": "2027-01-31"}}), 201},
		{"create-contact-action", e.body(obj{"firstName": "Bo", "phone": "+14155550132", "lastName": "", "email": "", "properties": nil}), 201},
		{"create-contact-action", e.body(obj{"firstName": "Cy", "phone": "+14155550133", "lastName": nil, "email": nil, "properties": obj{"plan": ""}}), 201},
		{"create-or-update-contact-action", e.body(obj{"phone": "+14155550131", "properties": obj{"plan": nil, "seats": 2.5}}), 200},
		{"create-or-update-contact-action", e.body(obj{"phone": "+14155550134", "firstName": "", "email": ""}), 201},
		{"find-contact-action", e.body(obj{"searchText": ""}), 200},
		{"find-contact-action", e.body(obj{"searchText": nil}), 200},
		{"find-contact-action", e.body(obj{"searchText": "ana"}), 200},
		{"create-conversation-action", e.body(obj{"from": fromNumber, "to": toNumber}), 201},
		{"create-comment-action", e.body(obj{"from": fromNumber, "to": toNumber, "text": "note", "mediaUrl": "", "mentions": []string{e.user.ID}}), 201},
		{"create-comment-action", e.body(obj{"from": fromNumber, "to": toNumber, "text": "", "mediaUrl": "https://example.com/a.png", "mentions": nil}), 201},
		{"send-message-action", e.body(obj{"from": fromNumber, "to": toNumber, "text": "hi", "mediaUrl": nil}), 202},
		{"send-message-action", e.body(obj{"from": fromNumber, "to": toNumber, "text": nil, "mediaUrl": "HTTP://example.com/a.png"}), 202},
		{"send-group-message-action", e.body(obj{"from": fromNumber, "group": []string{toNumber, toNumber, "+14155550135"}, "text": "all"}), 202},
		{"send-broadcast-action", e.body(obj{"from": fromNumber, "recipients": []string{toNumber}, "text": "b", "name": "", "sendAt": "",
			"groupIds": nil, "conversationIds": []string{}, "excludeGroupIds": nil, "excludeConversationIds": nil}), 202},
		{"add-contact-to-group-action", e.body(obj{"phone": "+14155550131", "group": "VIP"}), 200},
		{"list-groups-action", e.body(nil), 200},
		{"list-contact-properties-action", e.body(nil), 200},
		{"list-phone-numbers-action", e.body(nil), 200},
		{"list-messages-action", e.body(obj{"direction": "", "conversationId": "", "limit": nil}), 200},
		{"list-messages-action", e.body(obj{"direction": "outbound", "limit": 5}), 200},
		{"list-messages-action", e.body(obj{"direction": nil, "conversationId": nil}), 200},
		{"create-opt-out-action", e.body(obj{"phone": "+14155550136"}), 201},
		{"create-opt-out-action", e.body(obj{"phone": "+14155550136"}), 200},
		{"get-report-action", e.body(obj{"from": "2026-03-01", "to": "2026-03-07", "numberId": "", "memberId": nil}), 200},
		{"get-report-action", e.body(obj{"from": "2026-03-01", "to": "2026-03-01", "memberId": e.user.ID}), 200},
	} {
		r := e.post(t, tc.action, tc.body)
		if r.status != tc.status {
			t.Errorf("%s %v: status %d, want %d; body %s", tc.action, tc.body, r.status, tc.status, r.raw)
		}
		if tc.action == "add-contact-to-group-action" {
			group = r.object(t)
		}
	}
	b := e.post(t, "send-broadcast-action", e.body(obj{"from": fromNumber, "groupIds": []string{group["groupId"].(string)},
		"text": "Hi {{firstName|there}}", "sendAt": future, "name": "Later"})).want(t, http.StatusAccepted).object(t)
	e.post(t, "cancel-broadcast-action", e.body(obj{"broadcastId": b["id"]})).want(t, http.StatusOK)
	e.post(t, "cancel-broadcast-action", e.body(obj{"broadcastId": b["id"]})).want(t, http.StatusConflict)
	sub := e.post(t, "subscribe-webhook", obj{"developerProvider": "zapier", "workspaceId": e.ws.ID, "eventName": "contact.created",
		"hookUrl": "https://hooks.example.com/x", "userId": nil}).want(t, http.StatusCreated).object(t)
	e.post(t, "unsubscribe-webhook", obj{"developerProvider": "zapier", "workspaceId": e.ws.ID, "id": sub["id"]}).want(t, http.StatusOK)
	e.post(t, "unsubscribe-webhook", obj{"developerProvider": "zapier", "workspaceId": e.ws.ID, "id": sub["id"]}).want(t, http.StatusNotFound)
}

// Every action's error answers — 400, 401 (both challenges), 403, 404, 413, 415, 429 — are
// documented for it: env.do validates each against the action's responses.
func TestOpenAPIErrorAnswers(t *testing.T) {
	e := newEnv(t, Config{RateLimit: 1}) // burst 2 per token
	// fields make each action's body pass its own rules, so that the workspace checks answer.
	fields := map[string]obj{
		"create-comment-action":           {"from": fromNumber, "to": toNumber, "text": "x"},
		"send-group-message-action":       {"from": fromNumber, "group": []string{toNumber}, "text": "x"},
		"create-conversation-action":      {"from": fromNumber, "to": toNumber},
		"send-message-action":             {"from": fromNumber, "to": toNumber, "text": "x"},
		"send-broadcast-action":           {"from": fromNumber, "recipients": []string{toNumber}, "text": "x"},
		"create-contact-action":           {"firstName": "A", "phone": toNumber},
		"create-or-update-contact-action": {"phone": toNumber},
		"create-opt-out-action":           {"phone": toNumber},
		"delete-contact-action":           {"phone": toNumber},
		"cancel-broadcast-action":         {"broadcastId": "01ARZ3NDEKTSV4RRFFQ69G5FAV"},
		"add-contact-to-group-action":     {"phone": toNumber, "group": "G"},
		"subscribe-webhook":               {"eventName": "contact.created", "hookUrl": "https://hooks.example.com/x"},
		"unsubscribe-webhook":             {"id": "01ARZ3NDEKTSV4RRFFQ69G5FAV"},
		"get-report-action":               {"from": "2026-03-01", "to": "2026-03-07"},
	}
	big := []byte(`{"developerProvider":"zapier","text":"` + repeat("x", MaxBody) + `"}`)
	for _, a := range (&Handler{}).actions() {
		name := a.name
		token := func(u store.User) string {
			t.Helper()
			_, tok, err := e.st.CreateToken(u.ID, "sweep "+name)
			if err != nil {
				t.Fatal(err)
			}
			return tok
		}
		body := func(workspace string) obj {
			b := obj{"developerProvider": "zapier"}
			if name == "subscribe-webhook" || name == "unsubscribe-webhook" {
				b["workspaceId"] = workspace
			} else {
				b["id"] = workspace
			}
			for k, v := range fields[name] {
				b[k] = v
			}
			return b
		}
		want := func(r resp, status int) {
			t.Helper()
			if r.status != status {
				t.Errorf("%s: status %d, want %d; body %s", name, r.status, status, r.raw)
			}
		}
		want(e.postRaw(t, name, "", []byte(`{}`)), http.StatusUnauthorized)
		want(e.postRaw(t, name, "sbp_not-a-token", []byte(`{}`)), http.StatusUnauthorized)

		tok := token(e.user)
		want(e.postRaw(t, name, tok, []byte(`{"developerProvider":`)), http.StatusBadRequest)
		want(e.do(t, http.MethodPost, e.url(name), map[string]string{"Authorization": "Bearer " + tok, "Content-Type": "text/plain"}, []byte(`{}`)),
			http.StatusUnsupportedMediaType)

		tok = token(e.other)
		want(e.postAs(t, tok, name, body("01ARZ3NDEKTSV4RRFFQ69G5FAV")), http.StatusNotFound)
		want(e.postAs(t, tok, name, body(e.ws.ID)), http.StatusForbidden)

		tok = token(e.other)
		want(e.postRaw(t, name, tok, big), http.StatusRequestEntityTooLarge)
		limited := e.postRaw(t, name, tok, []byte(`{}`))
		for i := 0; i < 3 && limited.status != http.StatusTooManyRequests; i++ {
			limited = e.postRaw(t, name, tok, []byte(`{}`))
		}
		want(limited, http.StatusTooManyRequests)
	}
}
