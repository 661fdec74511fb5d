package web

import (
	"net/http"
	"testing"

	"switchboard/store"
)

// TestMemberCannotUnsubscribeAdminsWebhook: a member may unsubscribe only the subscriptions
// they made; a workspace admin may unsubscribe any of the workspace's.
func TestMemberCannotUnsubscribeAdminsWebhook(t *testing.T) {
	e := newEnv(t, Config{})
	admin, err := e.st.CreateUser(store.NewUser{Email: "ad@example.com", Name: "Ad Min"})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := e.st.AddMember(e.ws.ID, admin.ID, "admin"); err != nil {
		t.Fatal(err)
	}
	_, adminToken, err := e.st.CreateToken(admin.ID, "admin")
	if err != nil {
		t.Fatal(err)
	}
	sub := obj{"developerProvider": "zapier", "workspaceId": e.ws.ID, "eventName": "message.received", "hookUrl": "https://hooks.example.com/catch/1"}
	adminsHook := e.postAs(t, adminToken, "subscribe-webhook", sub).want(t, http.StatusCreated).object(t)["id"].(string)
	membersHook := e.post(t, "subscribe-webhook", sub).want(t, http.StatusCreated).object(t)["id"].(string)

	un := func(id string) obj { return obj{"developerProvider": "zapier", "workspaceId": e.ws.ID, "id": id} }
	e.post(t, "unsubscribe-webhook", un(adminsHook)).want(t, http.StatusForbidden)
	if subs, _ := e.st.Subscriptions(e.ws.ID); len(subs) != 2 {
		t.Fatalf("a member's refused unsubscribe removed a subscription: %d left", len(subs))
	}
	e.post(t, "unsubscribe-webhook", un(membersHook)).want(t, http.StatusOK)
	again := e.post(t, "subscribe-webhook", sub).want(t, http.StatusCreated).object(t)["id"].(string)
	e.postAs(t, adminToken, "unsubscribe-webhook", un(again)).want(t, http.StatusOK)
	e.postAs(t, adminToken, "unsubscribe-webhook", un(adminsHook)).want(t, http.StatusOK)
}
