package web

import (
	"encoding/json"
	"net/http"
	"net/url"
	"strings"
	"testing"
	"time"

	"switchboard/store"
)

// TestNumberLimitedToTeamOnEverySurface: Acme's number is limited to the team Clinic (tess);
// mo, a member outside it, sees none of its conversations on any page, stream, export or API
// answer, and cannot send from it (403 "not allowed to use this number"); tess and alice (an
// admin) do see them.
func TestNumberLimitedToTeamOnEverySurface(t *testing.T) {
	e := newUIEnv(t)
	tess, err := e.st.CreateUser(store.NewUser{Email: "tess@example.com", Name: "Tess", Password: uiPassword})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := e.st.AddMember(e.a.ID, tess.ID, "member"); err != nil {
		t.Fatal(err)
	}
	number, err := e.st.NumberByPhone(e.numberA)
	if err != nil {
		t.Fatal(err)
	}
	team, err := e.st.CreateTeam(e.a.ID, store.TeamInput{Name: "Clinic", Members: []string{tess.ID}})
	if err != nil {
		t.Fatal(err)
	}
	_, carrierToken, err := e.st.CreateToken(e.alice.ID, "carrier")
	if err != nil {
		t.Fatal(err)
	}
	_, moToken, err := e.st.CreateToken(e.mo.ID, "mo")
	if err != nil {
		t.Fatal(err)
	}
	contact := "+14155550123"
	if _, err := e.st.CreateContact(e.a.ID, store.ContactInput{Phone: contact, FirstName: ptrTo("Paula")}); err != nil {
		t.Fatal(err)
	}
	mo, tessC, alice := e.signIn(t, e.mo), e.signIn(t, tess), e.signIn(t, e.alice)
	// mo's stream is open before the number is limited: each event is checked as it goes.
	moStream := e.openStream(t, mo, "")
	tessStream := e.openStream(t, tessC, "")
	if _, err := e.st.SetNumberAccess(e.a.ID, number.ID, store.NumberAccess{Teams: &[]string{team.ID}}); err != nil {
		t.Fatal(err)
	}
	e.inboundText(t, carrierToken, contact, "hello from the clinic patient")
	if ev := tessStream.next(t, "message"); ev.data["inbound"] != true {
		t.Fatalf("tess's stream: %v", ev.data)
	}
	conv, _, err := e.st.CreateConversation(e.a.ID, e.numberA, contact)
	if err != nil {
		t.Fatal(err)
	}
	// A text on an open number afterwards reaches mo's stream; nothing of the limited one did.
	other, err := e.st.AddNumber(e.a.ID, "+14155550111", "Open line")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := e.st.ReceiveMessage(e.a.ID, store.InboundMessage{From: "+14155550999", To: other.Phone, Text: "open line"}); err != nil {
		t.Fatal(err)
	}
	for {
		ev := moStream.next(t, "message", "conversation", "notification", "comment")
		if ev.data["conversationId"] == conv.ID {
			t.Fatalf("mo's stream got an event of the limited number: %s %v", ev.event, ev.data)
		}
		if ev.event == "message" {
			break // the open line's text: everything before it was checked
		}
	}

	type page struct {
		path string
		sees func(body string) bool
	}
	contactPage := "/contacts/" + mustContact(t, e.st, e.a.ID, contact).ID
	today := time.Now().UTC().Format("2006-01-02")
	pages := []page{
		{"/inbox", func(b string) bool { return strings.Contains(b, "/inbox/"+conv.ID) }},
		{"/inbox?q=clinic", func(b string) bool { return strings.Contains(b, "/inbox/"+conv.ID) }},
		{"/inbox?q=Paula", func(b string) bool { return strings.Contains(b, "/inbox/"+conv.ID) }},
		{"/inbox/list", func(b string) bool { return strings.Contains(b, "/inbox/"+conv.ID) }},
		{"/inbox?unread=1", func(b string) bool { return strings.Contains(b, "/inbox/"+conv.ID) }},
		{contactPage, func(b string) bool {
			return strings.Contains(b, `data-testid="contact-conversation"`) || strings.Contains(b, "clinic patient")
		}},
		{"/inbox/export?from=" + today + "&to=" + today, func(b string) bool { return strings.Contains(b, "clinic patient") }},
	}
	for _, p := range pages {
		_, body := e.send(t, mo, "GET", p.path, nil)
		if p.sees(body) {
			t.Errorf("mo, outside the team, sees the conversation on %s", p.path)
		}
		_, body = e.send(t, tessC, "GET", p.path, nil)
		if !p.sees(body) && p.path != "/inbox?unread=1" {
			t.Errorf("tess, in the team, does not see the conversation on %s", p.path)
		}
		if _, body = e.send(t, alice, "GET", p.path, nil); !p.sees(body) && p.path != "/inbox?unread=1" {
			t.Errorf("alice, an admin, does not see the conversation on %s", p.path)
		}
	}
	// The unread counts: the header's and GET /inbox/unread.
	_, body := e.send(t, mo, "GET", "/inbox/unread", nil)
	if !strings.Contains(body, `"unread":1`) { // the open line's text only
		t.Errorf("mo's unread count: %s", body)
	}
	// The thread: not found; a reply or a new conversation from the number: 403.
	if res, body := e.send(t, mo, "GET", "/inbox/"+conv.ID, nil); res.StatusCode != http.StatusNotFound || strings.Contains(body, "clinic patient") {
		t.Errorf("GET the thread as mo: %d", res.StatusCode)
	}
	if res, _ := e.send(t, mo, "POST", "/inbox/"+conv.ID+"/reply", url.Values{"text": {"hi"}}); res.StatusCode != http.StatusForbidden {
		t.Errorf("reply as mo: %d, want 403", res.StatusCode)
	}
	if res, body := e.send(t, mo, "POST", "/inbox", url.Values{"from": {e.numberA}, "to": {"+14155550124"}}); res.StatusCode != http.StatusForbidden ||
		!strings.Contains(body, "not allowed to use this number") {
		t.Errorf("new conversation from the number as mo: %d", res.StatusCode)
	}
	if _, body := e.send(t, mo, "GET", "/inbox", nil); strings.Contains(body, `value="`+e.numberA+`"`) {
		t.Error("the number is offered to mo as a from number")
	}
	if res, _ := e.send(t, tessC, "POST", "/inbox/"+conv.ID+"/reply", url.Values{"text": {"Hi Paula"}}); res.StatusCode != http.StatusSeeOther {
		t.Errorf("reply as tess: %d, want 303", res.StatusCode)
	}

	// The API, with mo's token.
	api := func(action string, body map[string]any) (int, string) {
		t.Helper()
		body["developerProvider"], body["id"] = "zapier", e.a.ID
		raw, _ := json.Marshal(body)
		req, _ := http.NewRequest("POST", e.srv.URL+"/v1/integrations/developer/zapier/"+action, strings.NewReader(string(raw)))
		req.Header.Set("Content-Type", "application/json")
		req.Header.Set("Authorization", "Bearer "+moToken)
		res, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		defer res.Body.Close()
		var b strings.Builder
		buf := make([]byte, 4096)
		for {
			n, err := res.Body.Read(buf)
			b.Write(buf[:n])
			if err != nil {
				break
			}
		}
		return res.StatusCode, b.String()
	}
	for _, c := range []struct {
		action string
		body   map[string]any
	}{
		{"send-message-action", map[string]any{"from": e.numberA, "to": contact, "text": "hi"}},
		{"send-group-message-action", map[string]any{"from": e.numberA, "group": []string{contact, "+14155550125"}, "text": "hi"}},
		{"create-conversation-action", map[string]any{"from": e.numberA, "to": contact}},
		{"create-comment-action", map[string]any{"from": e.numberA, "to": contact, "text": "note"}},
		{"send-broadcast-action", map[string]any{"from": e.numberA, "recipients": []string{contact}, "text": "hi"}},
		{"list-messages-action", map[string]any{"conversationId": conv.ID}},
	} {
		status, body := api(c.action, c.body)
		if status != http.StatusForbidden || body != `{"error":"not allowed to use this number"}`+"\n" && body != `{"error":"not allowed to use this number"}` {
			t.Errorf("%s as mo: %d %s, want 403 not allowed to use this number", c.action, status, body)
		}
	}
	if status, body := api("list-messages-action", map[string]any{}); status != http.StatusOK || strings.Contains(body, "clinic patient") {
		t.Errorf("list-messages-action as mo: %d %s", status, body)
	}
	if status, body := api("list-phone-numbers-action", map[string]any{}); status != http.StatusOK || strings.Contains(body, e.numberA) {
		t.Errorf("list-phone-numbers-action as mo: %d %s", status, body)
	}
	if msgs, _ := e.st.ConversationMessages(e.a.ID, conv.ID); len(msgs) != 2 {
		t.Errorf("%d messages in the conversation, want the inbound and tess's reply", len(msgs))
	}
}

func ptrTo(s string) *string { return &s }

func mustContact(t *testing.T, st *store.Store, ws, phone string) store.Contact {
	t.Helper()
	c, err := st.ContactByPhone(ws, phone)
	if err != nil {
		t.Fatal(err)
	}
	return c
}
