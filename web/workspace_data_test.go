package web

import (
	"encoding/json"
	"net/http"
	"slices"
	"strings"
	"testing"
)

// TestOne400ListsEveryFailingField sends, to every action with fields that refer to the
// workspace's data, a body that fails an own rule and a workspace-data rule. The rule: when
// the workspace exists and the user is a member, one 400 lists both, sorted by field; when the
// workspace is unknown or the user not a member, the 400 holds the own-rule failures only.
func TestOne400ListsEveryFailingField(t *testing.T) {
	e := newEnv(t, Config{})
	unknownWS := "01J00000000000000000000000"
	cases := []struct {
		name, action string
		body         obj
		own, all     []string // failing fields: own rules only, and with the workspace-data ones
		msgs         map[string]string
	}{
		{"send-message foreign from, no text", "send-message-action",
			e.body(obj{"from": otherNumber, "to": toNumber}),
			[]string{"text"}, []string{"from", "text"},
			map[string]string{"from": "active phone number", "text": "text or mediaUrl is required"}},
		{"send-message bad from is reported once, by its own rule", "send-message-action",
			e.body(obj{"from": "+1 415 555", "to": toNumber}),
			[]string{"from", "text"}, []string{"from", "text"},
			map[string]string{"from": "E.164"}},
		{"send-group-message foreign from, bad group", "send-group-message-action",
			e.body(obj{"from": otherNumber, "group": []string{"+14155550001", "x"}, "text": "hi"}),
			[]string{"group"}, []string{"from", "group"},
			map[string]string{"from": "active phone number", "group": "E.164"}},
		{"send-broadcast foreign from, no text", "send-broadcast-action",
			e.body(obj{"from": otherNumber, "recipients": []string{"+14155550001"}}),
			[]string{"text"}, []string{"from", "text"},
			map[string]string{"from": "active phone number"}},
		{"create-comment foreign from, non-member mention, no text", "create-comment-action",
			e.body(obj{"from": otherNumber, "to": toNumber, "mentions": []string{e.user.ID, e.other.ID}}),
			[]string{"text"}, []string{"from", "mentions", "text"},
			map[string]string{"from": "active phone number", "mentions": e.other.ID}},
		{"create-comment non-member mention, bad to", "create-comment-action",
			e.body(obj{"from": fromNumber, "to": "415", "text": "note", "mentions": []string{"nobody"}}),
			[]string{"to"}, []string{"mentions", "to"},
			map[string]string{"mentions": "members"}},
		{"create-conversation foreign from, bad to", "create-conversation-action",
			e.body(obj{"from": otherNumber, "to": "415"}),
			[]string{"to"}, []string{"from", "to"},
			map[string]string{"from": "active phone number", "to": "E.164"}},
		{"create-contact unknown key, wrong type, bad email, no firstName", "create-contact-action",
			e.body(obj{"phone": "+14155550111", "email": "nope", "properties": obj{"nope": 1, "seats": "many", "plan": "pro"}}),
			[]string{"email", "firstName"}, []string{"email", "firstName", "properties.nope", "properties.seats"},
			map[string]string{"properties.nope": "not a custom property", "properties.seats": "must be a number"}},
		{"create-or-update wrong types before a long userId", "create-or-update-contact-action",
			e.body(obj{"phone": "+14155550112", "userId": repeat("u", 46), "properties": obj{"vip": "yes", "renewal": "2027-02-30", "plan": nil}}),
			[]string{"userId"}, []string{"properties.renewal", "properties.vip", "userId"},
			map[string]string{"properties.renewal": "YYYY-MM-DD", "properties.vip": "true or false"}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			r := e.post(t, c.action, c.body)
			if got := r.fields(t); !slices.Equal(got, c.all) {
				t.Errorf("member of the workspace: fields %q, want %q (%s)", got, c.all, r)
			}
			for field, sub := range c.msgs {
				if msg := r.message(t, field); !strings.Contains(msg, sub) {
					t.Errorf("message on %s = %q, want it to mention %q", field, msg, sub)
				}
			}
			r = e.post(t, c.action, with(c.body, obj{"id": unknownWS}))
			if got := r.fields(t); !slices.Equal(got, c.own) {
				t.Errorf("unknown workspace: fields %q, want the own-rule ones %q (%s)", got, c.own, r)
			}
			r = e.postAs(t, e.otherToken, c.action, c.body)
			if got := r.fields(t); !slices.Equal(got, c.own) {
				t.Errorf("not a member: fields %q, want the own-rule ones %q (%s)", got, c.own, r)
			}
		})
	}
	if out, _ := e.st.Outbox(10); len(out) != 0 {
		t.Errorf("refused requests queued %d messages", len(out))
	}
	if n, _ := e.st.CountConversations(e.ws.ID); n != 0 {
		t.Errorf("refused requests created %d conversations", n)
	}
	for _, p := range []string{"+14155550111", "+14155550112"} {
		if _, err := e.st.ContactByPhone(e.ws.ID, p); err == nil {
			t.Errorf("a refused request created the contact %s", p)
		}
	}
}

// TestWorkspaceDataAloneKeepsTheOrder checks that without own-rule failures nothing changed:
// 404, 403, then the workspace-data 400, then state.
func TestWorkspaceDataAloneKeepsTheOrder(t *testing.T) {
	e := newEnv(t, Config{})
	body := e.body(obj{"firstName": "Ana", "phone": "+14155550111", "properties": obj{"seats": "many"}})
	r := e.post(t, "create-contact-action", body)
	if got := r.fields(t); !slices.Equal(got, []string{"properties.seats"}) {
		t.Errorf("fields %q, want [properties.seats]", got)
	}
	e.post(t, "create-contact-action", with(body, obj{"id": "01J00000000000000000000000"})).want(t, http.StatusNotFound)
	e.postAs(t, e.otherToken, "create-contact-action", body).want(t, http.StatusForbidden)
	e.post(t, "create-contact-action", with(body, obj{"properties": obj{"seats": 3}})).want(t, http.StatusCreated)
}

func TestMeActionChecksAGivenID(t *testing.T) {
	e := newEnv(t, Config{})
	me := func(id any) resp {
		b := obj{"developerProvider": "zapier"}
		if id != nil {
			b["id"] = id
		}
		return e.post(t, "me-action", b)
	}
	for _, id := range []string{"01J00000000000000000000000", "nope", e.user.ID} {
		if r := me(id).want(t, http.StatusNotFound); r.errorText(t) != "workspace not found" {
			t.Errorf("me-action with id %q: error %q, want \"workspace not found\"", id, r.errorText(t))
		}
	}
	me(e.ws2.ID).want(t, http.StatusForbidden)
	for _, id := range []any{e.ws.ID, nil, ""} {
		m := me(id).want(t, http.StatusOK).object(t)
		wantField(t, m, "userId", e.user.ID)
	}
	// Own rules still come first.
	if got := me(repeat("x", 46)).fields(t); !slices.Equal(got, []string{"id"}) {
		t.Errorf("me-action with a 46-character id: fields %q, want [id]", got)
	}
}

func TestFindContactFormattedPhoneIsExact(t *testing.T) {
	e := newEnv(t, Config{})
	add := func(first, phone string) string {
		r := e.post(t, "create-contact-action", e.body(obj{"firstName": first, "phone": phone})).want(t, http.StatusCreated)
		return r.object(t)["id"].(string)
	}
	// Abe's phone holds every piece of the query and sorts first by name; only Zoe's equals it.
	abe := add("Abe", "+120255501470")
	zoe := add("Zoe", "+12025550147")
	var list []map[string]any
	e.post(t, "find-contact-action", e.body(obj{"searchText": "+1 (202) 555-0147"})).want(t, http.StatusOK).decode(t, &list)
	got := make([]string, len(list))
	for i, c := range list {
		got[i], _ = c["id"].(string)
	}
	if !slices.Equal(got, []string{zoe, abe}) {
		raw, _ := json.Marshal(list)
		t.Errorf("search \"+1 (202) 555-0147\" = %s, want Zoe (+12025550147, exact) then Abe", raw)
	}
}
