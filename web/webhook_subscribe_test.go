package web

import (
	"fmt"
	"net/http"
	"testing"
)

// TestSubscriptionLimitOverHTTP: the 26th active subscription of a workspace to one event is
// 409 with an error object, and is not stored.
func TestSubscriptionLimitOverHTTP(t *testing.T) {
	e := newEnv(t, Config{})
	sub := func(i int) resp {
		return e.post(t, "subscribe-webhook", obj{"developerProvider": "zapier", "workspaceId": e.ws.ID,
			"eventName": "contact.created", "hookUrl": fmt.Sprintf("https://hooks.example.com/%d", i)})
	}
	for i := range 25 {
		sub(i).want(t, http.StatusCreated)
	}
	r := sub(25).want(t, http.StatusConflict)
	if r.errorText(t) == "" {
		t.Error("409 without an error message")
	}
	if subs, _ := e.st.Subscriptions(e.ws.ID); len(subs) != 25 {
		t.Fatalf("%d subscriptions stored, want 25", len(subs))
	}
}
