package web

import (
	"net/http"
	"strings"
	"testing"
	"time"
)

func TestGroupsActions(t *testing.T) {
	e := newEnv(t, Config{})
	r := e.post(t, "add-contact-to-group-action", e.body(obj{"phone": toNumber, "group": "VIP"})).want(t, http.StatusOK)
	first := r.object(t)
	wantKeys(t, first, "contactId", "groupId")
	// Idempotent: the same contact and group again.
	again := e.post(t, "add-contact-to-group-action", e.body(obj{"phone": toNumber, "group": "vip"})).want(t, http.StatusOK).object(t)
	if again["contactId"] != first["contactId"] || again["groupId"] != first["groupId"] {
		t.Errorf("second add = %v, want %v", again, first)
	}
	var groups []map[string]any
	e.post(t, "list-groups-action", e.body(nil)).want(t, http.StatusOK).decode(t, &groups)
	if len(groups) != 1 || groups[0]["name"] != "VIP" || groups[0]["size"] != float64(1) || groups[0]["id"] != first["groupId"] {
		t.Errorf("list-groups = %v, want VIP of size 1", groups)
	}
	if f := e.post(t, "add-contact-to-group-action", e.body(obj{"phone": "415", "group": ""})).want(t, http.StatusBadRequest).fields(t); strings.Join(f, ",") != "group,phone" {
		t.Errorf("bad add fields = %v, want group, phone", f)
	}
	// Another workspace's member cannot list them.
	e.postAs(t, e.otherToken, "list-groups-action", e.body(nil)).want(t, http.StatusForbidden)
}

func TestBroadcastTargetingSchedulingAndCancel(t *testing.T) {
	e := newEnv(t, Config{})
	g := e.post(t, "add-contact-to-group-action", e.body(obj{"phone": "+14155550201", "group": "Clients"})).want(t, http.StatusOK).object(t)
	e.post(t, "add-contact-to-group-action", e.body(obj{"phone": "+14155550202", "group": "Clients"})).want(t, http.StatusOK)
	r := e.post(t, "send-broadcast-action", e.body(obj{"from": fromNumber, "groupIds": []string{g["groupId"].(string)},
		"text": "Hello {{firstName|friend}}", "name": "Launch"})).want(t, http.StatusAccepted).object(t)
	wantStrings(t, r, "recipients", "+14155550201", "+14155550202")
	if r["status"] != "sending" {
		t.Errorf("status %v, want sending", r["status"])
	}

	// Scheduled: recipients [] and status scheduled; it can be cancelled.
	at := time.Now().Add(time.Hour).UTC().Format(time.RFC3339)
	s := e.post(t, "send-broadcast-action", e.body(obj{"from": fromNumber, "groupIds": []string{g["groupId"].(string)},
		"text": "later", "sendAt": at})).want(t, http.StatusAccepted).object(t)
	if s["status"] != "scheduled" {
		t.Errorf("scheduled status %v", s["status"])
	}
	wantStrings(t, s, "recipients")
	// Up to one calendar year ahead is accepted.
	edge := time.Now().AddDate(1, 0, 0).Add(-time.Hour).UTC().Format(time.RFC3339)
	e.post(t, "send-broadcast-action", e.body(obj{"from": fromNumber, "recipients": []string{toNumber}, "text": "next year", "sendAt": edge})).
		want(t, http.StatusAccepted)
	c := e.post(t, "cancel-broadcast-action", e.body(obj{"broadcastId": s["id"]})).want(t, http.StatusOK).object(t)
	if c["status"] != "cancelled" || c["id"] != s["id"] {
		t.Errorf("cancel = %v", c)
	}
	if msg := e.post(t, "cancel-broadcast-action", e.body(obj{"broadcastId": s["id"]})).want(t, http.StatusConflict).errorText(t); msg != "broadcast is cancelled: it can no longer be cancelled" {
		t.Errorf("second cancel: %q", msg)
	}
	e.post(t, "cancel-broadcast-action", e.body(obj{"broadcastId": "01JZZZZZZZZZZZZZZZZZZZZZZZ"})).want(t, http.StatusNotFound)
	e.post(t, "cancel-broadcast-action", e.body(nil)).want(t, http.StatusBadRequest)

	// Bad input: every failing field in one 400, nothing stored.
	var many []string
	for range 101 {
		many = append(many, "01JZZZZZZZZZZZZZZZZZZZZZZZ")
	}
	for _, tc := range []struct {
		body  obj
		field string
	}{
		{obj{"from": fromNumber, "text": "x"}, "recipients"},
		{obj{"from": fromNumber, "text": "x", "recipients": []string{toNumber}, "sendAt": "tomorrow"}, "sendAt"},
		{obj{"from": fromNumber, "text": "x", "recipients": []string{toNumber}, "sendAt": time.Now().Add(-time.Minute).UTC().Format(time.RFC3339)}, "sendAt"},
		{obj{"from": fromNumber, "text": "x", "recipients": []string{toNumber}, "sendAt": time.Now().AddDate(1, 0, 2).UTC().Format(time.RFC3339)}, "sendAt"},
		{obj{"from": fromNumber, "text": "x", "groupIds": many}, "groupIds"},
		{obj{"from": fromNumber, "text": "x", "groupIds": []string{"01JZZZZZZZZZZZZZZZZZZZZZZZ"}}, "groupIds"},
		{obj{"from": fromNumber, "text": "x", "recipients": []string{toNumber}, "excludeConversationIds": []string{"nope"}}, "excludeConversationIds"},
		{obj{"from": fromNumber, "text": "Hi {{nickname}}", "recipients": []string{toNumber}}, "text"},
		{obj{"from": fromNumber, "text": "Hi {{", "recipients": []string{toNumber}}, "text"},
		{obj{"from": fromNumber, "text": "Hi {{}}", "recipients": []string{toNumber}}, "text"},
		{obj{"from": fromNumber, "text": "Hi {{a|}}", "recipients": []string{toNumber}}, "text"},
	} {
		f := e.post(t, "send-broadcast-action", e.body(tc.body)).want(t, http.StatusBadRequest).fields(t)
		if len(f) != 1 || f[0] != tc.field {
			t.Errorf("body %v: fields %v, want [%s]", tc.body, f, tc.field)
		}
	}
	// Another workspace's group is not found in this one.
	theirs, err := e.st.CreateGroup(e.ws2.ID, "Theirs")
	if err != nil {
		t.Fatal(err)
	}
	f := e.post(t, "send-broadcast-action", e.body(obj{"from": fromNumber, "text": "x", "groupIds": []string{theirs.ID}})).want(t, http.StatusBadRequest).fields(t)
	if strings.Join(f, ",") != "groupIds" {
		t.Errorf("foreign group: fields %v", f)
	}
	// A send with an unknown tag is refused too; a known one renders.
	e.post(t, "send-message-action", e.body(obj{"from": fromNumber, "to": toNumber, "text": "{{nope}}"})).want(t, http.StatusBadRequest)
	m := e.post(t, "send-message-action", e.body(obj{"from": fromNumber, "to": toNumber, "text": "Hi {{firstName|there}}"})).want(t, http.StatusAccepted).object(t)
	if m["text"] != "Hi there" {
		t.Errorf("rendered text %v", m["text"])
	}
}
