package web

import (
	"encoding/base64"
	"net/http"
	"strings"
	"testing"

	"switchboard/store"
)

// Success paths of each of the fourteen actions: status and the exact result shape.

func TestListPhoneNumbersAction(t *testing.T) {
	e := newEnv(t, Config{})
	var list []map[string]any
	e.post(t, "list-phone-numbers-action", e.body(nil)).want(t, http.StatusOK).decode(t, &list)
	if len(list) != 2 {
		t.Fatalf("%d numbers, want 2: %v", len(list), list)
	}
	wantKeys(t, list[0], "id", "name", "phone")
	wantField(t, list[0], "phone", fromNumber)
	wantField(t, list[0], "name", "Main line")
	wantField(t, list[1], "phone", fromNumber2)
	ws3, _ := e.st.CreateWorkspace("Empty")
	e.st.AddMember(ws3.ID, e.user.ID, "member")
	r := e.post(t, "list-phone-numbers-action", obj{"developerProvider": "zapier", "id": ws3.ID}).want(t, http.StatusOK)
	if strings.TrimSpace(string(r.raw)) != "[]" {
		t.Errorf("no numbers answered %s, want []", r.raw)
	}
}

func TestMeAction(t *testing.T) {
	e := newEnv(t, Config{})
	// No workspace id needed for the auth test.
	m := e.post(t, "me-action", obj{"developerProvider": "zapier"}).want(t, http.StatusOK).object(t)
	wantKeys(t, m, "email", "name", "userId", "workspaces")
	wantField(t, m, "userId", e.user.ID)
	wantField(t, m, "email", "ana@example.com")
	wantField(t, m, "name", "Ana Lima")
	wantField(t, m, "workspaces", []any{map[string]any{"id": e.ws.ID, "name": "Acme"}})

	u, _ := e.st.CreateUser(store.NewUser{Email: "lonely@example.com", Name: "Lonely"})
	_, tok, _ := e.st.CreateToken(u.ID, "")
	r := e.postAs(t, tok, "me-action", obj{"developerProvider": "zapier"}).want(t, http.StatusOK)
	if !strings.Contains(string(r.raw), `"workspaces":[]`) {
		t.Errorf("a user without workspaces answered %s, want workspaces []", r.raw)
	}
}

func TestSubscribeUnsubscribeWebhook(t *testing.T) {
	e := newEnv(t, Config{})
	sub := obj{"developerProvider": "zapier", "workspaceId": e.ws.ID, "eventName": "message.received", "hookUrl": "https://hooks.example.com/catch/1"}
	m := e.post(t, "subscribe-webhook", sub).want(t, http.StatusCreated).object(t)
	wantKeys(t, m, "eventName", "hookUrl", "id", "secret", "workspaceId")
	wantField(t, m, "eventName", "message.received")
	wantField(t, m, "hookUrl", "https://hooks.example.com/catch/1")
	wantField(t, m, "workspaceId", e.ws.ID)
	secret, _ := m["secret"].(string)
	raw, ok := strings.CutPrefix(secret, "whsec_")
	if !ok {
		t.Fatalf("secret %q lacks the whsec_ prefix", secret)
	}
	if b, err := base64.StdEncoding.DecodeString(raw); err != nil || len(b) != 32 {
		t.Fatalf("secret %q is not base64 of 32 bytes (%d bytes, %v)", secret, len(b), err)
	}
	m2 := e.post(t, "subscribe-webhook", sub).want(t, http.StatusCreated).object(t)
	if m2["secret"] == m["secret"] {
		t.Error("two subscriptions share a secret")
	}

	id := m["id"].(string)
	un := obj{"developerProvider": "zapier", "workspaceId": e.ws.ID, "id": id}
	// Another workspace cannot remove it.
	e.postAs(t, e.otherToken, "unsubscribe-webhook", obj{"developerProvider": "zapier", "workspaceId": e.ws2.ID, "id": id}).want(t, http.StatusNotFound)
	r := e.post(t, "unsubscribe-webhook", un).want(t, http.StatusOK)
	wantKeys(t, r.object(t), "id")
	wantField(t, r.object(t), "id", id)
	r = e.post(t, "unsubscribe-webhook", un).want(t, http.StatusNotFound)
	if msg := r.errorText(t); msg == "" || msg == "workspace not found" {
		t.Errorf("unknown subscription error %q", msg)
	}
	e.post(t, "unsubscribe-webhook", obj{"developerProvider": "zapier", "workspaceId": e.ws.ID, "id": "not-an-id"}).want(t, http.StatusNotFound)
	subs, _ := e.st.Subscriptions(e.ws.ID)
	if len(subs) != 1 {
		t.Errorf("%d subscriptions left, want 1", len(subs))
	}
}

func TestUserIDIsNeverTrusted(t *testing.T) {
	e := newEnv(t, Config{})
	r := e.post(t, "send-message-action", e.body(obj{"from": fromNumber, "to": toNumber, "text": "x", "userId": e.other.ID})).want(t, http.StatusAccepted)
	msg, _ := e.st.Message(e.ws.ID, r.object(t)["id"].(string))
	if msg.AuthorID != e.user.ID {
		t.Errorf("author %q, want the token's user %q", msg.AuthorID, e.user.ID)
	}
}
