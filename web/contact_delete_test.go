package web

import (
	"net/http"
	"testing"
)

// delete-contact-action: 200 {id}; the contact is gone, its conversation too with erase; its
// opt-out stays; an unknown phone is 404; erase must be a boolean.
func TestDeleteContactAction(t *testing.T) {
	e := newEnv(t, Config{})
	c := e.post(t, "create-contact-action", e.body(obj{"firstName": "Ana", "phone": toNumber})).want(t, http.StatusCreated).object(t)
	e.post(t, "send-message-action", e.body(obj{"from": fromNumber, "to": toNumber, "text": "hi"})).want(t, http.StatusAccepted)
	e.post(t, "create-opt-out-action", e.body(obj{"phone": toNumber})).want(t, http.StatusCreated)

	if got := e.post(t, "delete-contact-action", e.body(obj{"phone": toNumber, "erase": "yes"})).want(t, http.StatusBadRequest).fields(t); len(got) != 1 || got[0] != "erase" {
		t.Errorf("erase: \"yes\": fields %v, want [erase]", got)
	}
	r := e.post(t, "delete-contact-action", e.body(obj{"phone": toNumber, "erase": true})).want(t, http.StatusOK).object(t)
	if r["id"] != c["id"] || len(r) != 1 {
		t.Errorf("answer %v, want {id: %v}", r, c["id"])
	}
	if got := e.post(t, "delete-contact-action", e.body(obj{"phone": toNumber})).want(t, http.StatusNotFound).errorText(t); got != "contact not found" {
		t.Errorf("unknown phone: error %q, want contact not found", got)
	}
	if found := e.post(t, "find-contact-action", e.body(obj{"searchText": "ana"})).want(t, http.StatusOK); found.String() != "[]\n" && found.String() != "[]" {
		t.Errorf("the deleted contact is still found: %s", found)
	}
	if convs, _ := e.st.ContactConversations(e.ws.ID, toNumber); len(convs) != 0 {
		t.Errorf("erase kept %d conversations", len(convs))
	}
	if out, _ := e.st.IsOptedOut(e.ws.ID, toNumber); !out {
		t.Error("the opt-out was not kept")
	}
	// Plain delete keeps the conversation.
	e.post(t, "send-message-action", e.body(obj{"from": fromNumber, "to": secondContact, "text": "hi"})).want(t, http.StatusAccepted)
	e.post(t, "delete-contact-action", e.body(obj{"phone": secondContact})).want(t, http.StatusOK)
	if convs, _ := e.st.ContactConversations(e.ws.ID, secondContact); len(convs) != 1 {
		t.Errorf("delete without erase: %d conversations, want 1", len(convs))
	}
	if _, err := e.st.ContactByPhone(e.ws.ID, secondContact); err == nil {
		t.Error("the deleted contact is still there")
	}
}

const secondContact = "+14155550188"
