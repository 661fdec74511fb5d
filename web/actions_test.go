package web

import (
	"encoding/base64"
	"encoding/json"
	"fmt"
	"net/http"
	"strings"
	"sync"
	"testing"

	"switchboard/store"
)

// Success paths of each of the fourteen actions: status and the exact result shape.

func TestCreateCommentAction(t *testing.T) {
	e := newEnv(t, Config{})
	r := e.post(t, "create-comment-action", e.body(obj{"from": fromNumber, "to": toNumber, "text": "call back later",
		"mentions": []string{e.user.ID}, "unknownField": 42})).want(t, http.StatusCreated)
	m := r.object(t)
	wantKeys(t, m, "conversationId", "id", "text", "workspaceId")
	wantField(t, m, "text", "call back later")
	wantField(t, m, "workspaceId", e.ws.ID)
	if !isULID(m["id"].(string)) || !isULID(m["conversationId"].(string)) {
		t.Fatalf("ids are not ULIDs: %v", m)
	}
	// The comment lives in the conversation create-conversation returns, and is never sent.
	conv := e.post(t, "create-conversation-action", e.body(obj{"from": fromNumber, "to": toNumber})).want(t, http.StatusOK).object(t)
	wantField(t, conv, "id", m["conversationId"])
	msgs, err := e.st.ConversationMessages(e.ws.ID, m["conversationId"].(string))
	if err != nil || len(msgs) != 0 {
		t.Fatalf("a comment put %d messages (err %v) in the conversation", len(msgs), err)
	}
	comments, err := e.st.ConversationComments(e.ws.ID, m["conversationId"].(string))
	if err != nil || len(comments) != 1 {
		t.Fatalf("comments %v, %v; want 1", comments, err)
	}
	if comments[0].UserID != e.user.ID {
		t.Errorf("comment author %q, want the token's user %q (userId in the body is never trusted)", comments[0].UserID, e.user.ID)
	}
	// Media alone is enough; the result's text is "".
	r = e.post(t, "create-comment-action", e.body(obj{"from": fromNumber, "to": toNumber, "mediaUrl": "https://example.com/a.png"})).want(t, http.StatusCreated)
	wantField(t, r.object(t), "text", "")
}

func TestSendGroupMessageAction(t *testing.T) {
	e := newEnv(t, Config{})
	group := []string{"+14155550003", "+14155550001", "+14155550002", "+14155550001"}
	r := e.post(t, "send-group-message-action", e.body(obj{"from": fromNumber, "group": group, "text": "hi all"})).want(t, http.StatusAccepted)
	m := r.object(t)
	wantKeys(t, m, "conversationId", "from", "group", "id", "text", "workspaceId")
	wantField(t, m, "from", fromNumber)
	wantField(t, m, "text", "hi all")
	wantField(t, m, "workspaceId", e.ws.ID)
	wantStrings(t, m, "group", "+14155550001", "+14155550002", "+14155550003")
	conv, err := e.st.Conversation(e.ws.ID, m["conversationId"].(string))
	if err != nil {
		t.Fatal(err)
	}
	if want := "+14155550001-+14155550002-+14155550003"; conv.InboundChannelAddresses != want {
		t.Errorf("group key %q, want %q", conv.InboundChannelAddresses, want)
	}
	msg, err := e.st.Message(e.ws.ID, m["id"].(string))
	if err != nil {
		t.Fatal(err)
	}
	if !msg.Outbound || msg.Status != store.MessageQueued || msg.Priority != store.PriorityNormal || msg.AuthorID != e.user.ID {
		t.Errorf("stored message %+v: want outbound, queued, normal priority, author %s", msg, e.user.ID)
	}
	// The same group in another order is the same conversation.
	r = e.post(t, "send-group-message-action", e.body(obj{"from": fromNumber, "group": []string{"+14155550002", "+14155550003", "+14155550001"},
		"mediaUrl": "http://example.com/x.jpg"})).want(t, http.StatusAccepted)
	wantField(t, r.object(t), "conversationId", m["conversationId"])

	// A group of one number is that number's 1:1 conversation.
	one := e.post(t, "send-group-message-action", e.body(obj{"from": fromNumber, "group": []string{toNumber, toNumber}, "text": "solo"})).want(t, http.StatusAccepted).object(t)
	wantStrings(t, one, "group", toNumber)
	conv1 := e.post(t, "create-conversation-action", e.body(obj{"from": fromNumber, "to": toNumber})).want(t, http.StatusOK).object(t)
	wantField(t, one, "conversationId", conv1["id"])
}

func TestCreateConversationAction(t *testing.T) {
	e := newEnv(t, Config{})
	b := e.body(obj{"from": fromNumber, "to": toNumber})
	first := e.post(t, "create-conversation-action", b).want(t, http.StatusCreated).object(t)
	wantKeys(t, first, "from", "id", "to", "workspaceId")
	wantField(t, first, "from", fromNumber)
	wantField(t, first, "to", toNumber)
	wantField(t, first, "workspaceId", e.ws.ID)
	again := e.post(t, "create-conversation-action", b).want(t, http.StatusOK).object(t)
	wantField(t, again, "id", first["id"])
	// A `to` with no contact gets an unnamed contact with that inbound channel.
	c, err := e.st.ContactByPhone(e.ws.ID, toNumber)
	if err != nil {
		t.Fatalf("no contact for the new `to`: %v", err)
	}
	if c.FirstName != "" || c.LastName != "" || c.Phone() != toNumber {
		t.Errorf("contact %+v: want unnamed with phone %s", c, toNumber)
	}
	// Another outbound number is another conversation.
	other := e.post(t, "create-conversation-action", e.body(obj{"from": fromNumber2, "to": toNumber})).want(t, http.StatusCreated).object(t)
	if other["id"] == first["id"] {
		t.Error("two outbound numbers share one conversation")
	}
}

func TestCreateConversationConcurrent(t *testing.T) {
	e := newEnv(t, Config{})
	const n = 50
	var wg sync.WaitGroup
	ids := make([]string, n)
	statuses := make([]int, n)
	for i := range n {
		wg.Add(1)
		go func() {
			defer wg.Done()
			r := e.post(t, "create-conversation-action", e.body(obj{"from": fromNumber, "to": toNumber}))
			statuses[i] = r.status
			if r.status == http.StatusOK || r.status == http.StatusCreated {
				var m map[string]any
				if err := json.Unmarshal(r.raw, &m); err == nil {
					ids[i], _ = m["id"].(string)
				}
			}
		}()
	}
	wg.Wait()
	created := 0
	for i := range n {
		switch statuses[i] {
		case http.StatusCreated:
			created++
		case http.StatusOK:
		default:
			t.Fatalf("call %d: status %d", i, statuses[i])
		}
		if ids[i] == "" || ids[i] != ids[0] {
			t.Fatalf("call %d returned id %q, call 0 %q: want one conversation", i, ids[i], ids[0])
		}
	}
	if created != 1 {
		t.Errorf("%d calls answered 201, want exactly 1", created)
	}
	if got, err := e.st.CountConversations(e.ws.ID); err != nil || got != 1 {
		t.Errorf("workspace holds %d conversations (err %v), want 1", got, err)
	}
}

func TestFindContactAction(t *testing.T) {
	e := newEnv(t, Config{})
	// No contacts: an empty array, not null.
	r := e.post(t, "find-contact-action", e.body(nil)).want(t, http.StatusOK)
	if strings.TrimSpace(string(r.raw)) != "[]" {
		t.Fatalf("empty search answered %s, want []", r.raw)
	}
	add := func(first, last, phone, email string) string {
		r := e.post(t, "create-contact-action", e.body(obj{"firstName": first, "lastName": last, "phone": phone, "email": email})).want(t, http.StatusCreated)
		return r.object(t)["id"].(string)
	}
	zoe := add("Zoë", "Adams", "+14155551001", "zoe@example.com")
	ana := add("Ana", "Zimmer", "+14155551002", "ana.z@example.com")
	anaB := add("ana", "Baker", "+14155551003", "")
	// An unnamed contact comes last.
	e.post(t, "create-conversation-action", e.body(obj{"from": fromNumber, "to": "+14155551004"})).want(t, http.StatusCreated)

	ids := func(r resp) []string {
		var list []map[string]any
		r.want(t, http.StatusOK).decode(t, &list)
		out := make([]string, len(list))
		for i, c := range list {
			wantKeys(t, c, "email", "firstName", "id", "lastName", "phone", "properties", "workspaceId")
			if _, ok := c["properties"].(map[string]any); !ok {
				t.Fatalf("properties = %#v, want an object", c["properties"])
			}
			out[i], _ = c["id"].(string)
		}
		return out
	}
	all := ids(e.post(t, "find-contact-action", e.body(obj{"searchText": ""})))
	if len(all) != 4 || all[0] != ana && all[0] != anaB || all[2] != zoe {
		t.Fatalf("empty search order %q: want the two Anas (by last name), Zoë, then the unnamed one", all)
	}
	if all[0] != anaB || all[1] != ana {
		t.Errorf("order %q: want ana Baker before Ana Zimmer (folded first name, then last name)", all)
	}
	if got := ids(e.post(t, "find-contact-action", e.body(obj{"searchText": "ZOE"}))); len(got) != 1 || got[0] != zoe {
		t.Errorf("search ZOE = %q, want [%s] (case- and accent-insensitive)", got, zoe)
	}
	if got := ids(e.post(t, "find-contact-action", e.body(obj{"searchText": "(415) 555-1003"}))); len(got) != 1 || got[0] != anaB {
		t.Errorf("search by formatted phone = %q, want [%s]", got, anaB)
	}
	if got := ids(e.post(t, "find-contact-action", e.body(obj{"searchText": "nobody-here"}))); len(got) != 0 {
		t.Errorf("no-match search = %q, want []", got)
	}
	// Exact email equality ranks first.
	if got := ids(e.post(t, "find-contact-action", e.body(obj{"searchText": "ana.z@example.com"}))); len(got) == 0 || got[0] != ana {
		t.Errorf("exact email search = %q, want %s first", got, ana)
	}
}

func TestFindContactLimit(t *testing.T) {
	e := newEnv(t, Config{})
	var csv strings.Builder
	csv.WriteString("firstName,lastName,phone,email,company\n")
	for i := range 130 {
		fmt.Fprintf(&csv, "Name%03d,Smith,+1415666%04d,,\n", 129-i, i)
	}
	if _, err := e.st.ImportContacts(e.ws.ID, strings.NewReader(csv.String()), nil); err != nil {
		t.Fatal(err)
	}
	var list []map[string]any
	e.post(t, "find-contact-action", e.body(obj{"searchText": "smith"})).want(t, http.StatusOK).decode(t, &list)
	if len(list) != store.SearchLimit {
		t.Fatalf("%d results, want at most %d", len(list), store.SearchLimit)
	}
	for i, c := range list {
		if want := fmt.Sprintf("Name%03d", i); c["firstName"] != want {
			t.Fatalf("result %d is %v, want %s (ordered by first name)", i, c["firstName"], want)
		}
	}
}

func TestSendMessageAction(t *testing.T) {
	e := newEnv(t, Config{})
	r := e.post(t, "send-message-action", e.body(obj{"from": fromNumber, "to": toNumber, "text": "Olá 👋"})).want(t, http.StatusAccepted)
	m := r.object(t)
	wantKeys(t, m, "conversationId", "from", "id", "text", "to", "workspaceId")
	wantField(t, m, "from", fromNumber)
	wantField(t, m, "to", toNumber)
	wantField(t, m, "text", "Olá 👋")
	wantField(t, m, "workspaceId", e.ws.ID)
	conv := e.post(t, "create-conversation-action", e.body(obj{"from": fromNumber, "to": toNumber})).want(t, http.StatusOK).object(t)
	wantField(t, m, "conversationId", conv["id"])
	msg, err := e.st.Message(e.ws.ID, m["id"].(string))
	if err != nil {
		t.Fatal(err)
	}
	if !msg.Outbound || msg.Status != store.MessageQueued || msg.AuthorID != e.user.ID || msg.Priority != store.PriorityNormal {
		t.Errorf("stored %+v: want outbound, queued, normal, authored by the token's user", msg)
	}
	out, err := e.st.Outbox(10)
	if err != nil || len(out) != 1 || out[0].MessageID != msg.ID {
		t.Errorf("outbox %v (err %v), want the message", out, err)
	}
	// Media only.
	r = e.post(t, "send-message-action", e.body(obj{"from": fromNumber, "to": toNumber, "mediaUrl": "https://example.com/a.png"})).want(t, http.StatusAccepted)
	wantField(t, r.object(t), "text", "")
}

func TestSendBroadcastAction(t *testing.T) {
	e := newEnv(t, Config{})
	if _, _, err := e.st.CreateOptOut(e.ws.ID, "", "+14155550009", store.OptOutAPI); err != nil {
		t.Fatal(err)
	}
	rec := []string{"+14155550001", "+14155550002", "+14155550001", "+14155550009", "+14155550009"}
	r := e.post(t, "send-broadcast-action", e.body(obj{"from": fromNumber, "recipients": rec, "text": "sale"})).want(t, http.StatusAccepted)
	m := r.object(t)
	wantKeys(t, m, "from", "id", "recipients", "status", "text", "totalOptedOut", "workspaceId")
	wantStrings(t, m, "recipients", "+14155550001", "+14155550002")
	wantField(t, m, "totalOptedOut", float64(1))
	wantField(t, m, "from", fromNumber)
	wantField(t, m, "text", "sale")
	wantField(t, m, "workspaceId", e.ws.ID)
	if s := m["status"]; s != store.BroadcastSending && s != store.BroadcastSent {
		t.Errorf("status %v, want sending or sent", s)
	}
	// Each recipient has its own 1:1 conversation.
	out, err := e.st.Outbox(100)
	if err != nil || len(out) != 2 {
		t.Fatalf("outbox %v (err %v), want 2 messages", out, err)
	}
	convs := map[string]bool{}
	for _, o := range out {
		msg, err := e.st.Message(o.WorkspaceID, o.MessageID)
		if err != nil {
			t.Fatal(err)
		}
		if msg.Priority != store.PriorityLow || msg.BroadcastID != m["id"] {
			t.Errorf("broadcast message %+v: want low priority and the broadcast id", msg)
		}
		convs[msg.ConversationID] = true
	}
	if len(convs) != 2 {
		t.Errorf("broadcast used %d conversations, want 2", len(convs))
	}
}

func TestSendBroadcastAllOptedOut(t *testing.T) {
	e := newEnv(t, Config{})
	for _, p := range []string{"+14155550008", "+14155550009"} {
		e.post(t, "create-opt-out-action", e.body(obj{"phone": p})).want(t, http.StatusCreated)
	}
	r := e.post(t, "send-broadcast-action", e.body(obj{"from": fromNumber,
		"recipients": []string{"+14155550009", "+14155550008", "+14155550009"}, "mediaUrl": "https://example.com/a.png"})).want(t, http.StatusAccepted)
	m := r.object(t)
	wantStrings(t, m, "recipients")
	wantField(t, m, "status", store.BroadcastSent)
	wantField(t, m, "totalOptedOut", float64(2))
	if out, _ := e.st.Outbox(10); len(out) != 0 {
		t.Errorf("outbox holds %d messages, want none", len(out))
	}
}

func TestCreateContactAction(t *testing.T) {
	e := newEnv(t, Config{})
	r := e.post(t, "create-contact-action", e.body(obj{"firstName": "Ana", "phone": toNumber})).want(t, http.StatusCreated)
	m := r.object(t)
	wantKeys(t, m, "email", "firstName", "id", "lastName", "phone", "properties", "workspaceId")
	wantField(t, m, "firstName", "Ana")
	wantField(t, m, "lastName", "")
	wantField(t, m, "email", "")
	wantField(t, m, "phone", toNumber)
	wantField(t, m, "workspaceId", e.ws.ID)
	wantField(t, m, "properties", map[string]any{})
	if !strings.Contains(string(r.raw), `"properties":{}`) {
		t.Errorf("properties not written as {}: %s", r.raw)
	}

	props := obj{"plan": "gold", "seats": 12.5, "vip": true, "renewal": "2028-02-29"}
	r = e.post(t, "create-contact-action", e.body(obj{"firstName": "Bo", "lastName": "Li", "email": "bo@example.com",
		"phone": "+14155550124", "properties": props})).want(t, http.StatusCreated)
	m = r.object(t)
	wantField(t, m, "lastName", "Li")
	wantField(t, m, "email", "bo@example.com")
	wantField(t, m, "properties", map[string]any{"plan": "gold", "seats": 12.5, "vip": true, "renewal": "2028-02-29"})

	// A taken phone is 409 and changes nothing.
	r = e.post(t, "create-contact-action", e.body(obj{"firstName": "Again", "phone": toNumber})).want(t, http.StatusConflict)
	if msg := r.errorText(t); !strings.Contains(msg, toNumber) {
		t.Errorf("409 message %q does not name the phone", msg)
	}
	c, _ := e.st.ContactByPhone(e.ws.ID, toNumber)
	if c.FirstName != "Ana" {
		t.Errorf("the 409 changed the contact: %+v", c)
	}
	// The same phone in another workspace is fine.
	e.postAs(t, e.otherToken, "create-contact-action", obj{"developerProvider": "zapier", "id": e.ws2.ID, "firstName": "Ana", "phone": toNumber}).want(t, http.StatusCreated)
}

func TestCreateOrUpdateContactAction(t *testing.T) {
	e := newEnv(t, Config{})
	r := e.post(t, "create-or-update-contact-action", e.body(obj{"phone": toNumber, "firstName": "Ana", "lastName": "Lima",
		"email": "ana@example.com", "properties": obj{"plan": "gold", "seats": 3, "vip": nil}})).want(t, http.StatusCreated)
	m := r.object(t)
	wantKeys(t, m, "email", "firstName", "id", "lastName", "phone", "properties", "workspaceId")
	id := m["id"]
	wantField(t, m, "properties", map[string]any{"plan": "gold", "seats": float64(3)})

	// Only the given fields change; "" and null count as absent; properties merge key by key
	// and a null removes its key.
	r = e.post(t, "create-or-update-contact-action", e.body(obj{"phone": toNumber, "lastName": "Souza", "firstName": "",
		"email": nil, "properties": obj{"seats": nil, "vip": true}})).want(t, http.StatusOK)
	m = r.object(t)
	wantField(t, m, "id", id)
	wantField(t, m, "firstName", "Ana")
	wantField(t, m, "lastName", "Souza")
	wantField(t, m, "email", "ana@example.com")
	wantField(t, m, "properties", map[string]any{"plan": "gold", "vip": true})

	// Phone alone: nothing changes, still 200.
	r = e.post(t, "create-or-update-contact-action", e.body(obj{"phone": toNumber})).want(t, http.StatusOK)
	m = r.object(t)
	wantField(t, m, "lastName", "Souza")
	wantField(t, m, "properties", map[string]any{"plan": "gold", "vip": true})

	// Creating with only a phone gives empty strings and {}.
	r = e.post(t, "create-or-update-contact-action", e.body(obj{"phone": "+14155550177"})).want(t, http.StatusCreated)
	m = r.object(t)
	wantField(t, m, "firstName", "")
	wantField(t, m, "properties", map[string]any{})
}

func TestCreateOptOutAction(t *testing.T) {
	e := newEnv(t, Config{})
	m := e.post(t, "create-opt-out-action", e.body(obj{"phone": toNumber})).want(t, http.StatusCreated).object(t)
	wantKeys(t, m, "id", "phone", "workspaceId")
	wantField(t, m, "phone", toNumber)
	wantField(t, m, "workspaceId", e.ws.ID)
	again := e.post(t, "create-opt-out-action", e.body(obj{"phone": toNumber})).want(t, http.StatusOK).object(t)
	wantField(t, again, "id", m["id"])
	// The opt-out is per workspace.
	e.postAs(t, e.otherToken, "create-opt-out-action", obj{"developerProvider": "zapier", "id": e.ws2.ID, "phone": toNumber}).want(t, http.StatusCreated)
}

func TestOptedOutSendsAreRefused(t *testing.T) {
	e := newEnv(t, Config{})
	e.post(t, "create-opt-out-action", e.body(obj{"phone": toNumber})).want(t, http.StatusCreated)
	before, _ := e.st.CountConversations(e.ws.ID)

	r := e.post(t, "send-message-action", e.body(obj{"from": fromNumber, "to": toNumber, "text": "hi"})).want(t, http.StatusUnprocessableEntity)
	if got, want := r.errorText(t), "recipient "+toNumber+" has opted out"; got != want {
		t.Errorf("422 error %q, want %q", got, want)
	}
	r = e.post(t, "send-group-message-action", e.body(obj{"from": fromNumber, "group": []string{"+14155550001", toNumber}, "text": "hi"})).want(t, http.StatusUnprocessableEntity)
	if got, want := r.errorText(t), "recipient "+toNumber+" has opted out"; got != want {
		t.Errorf("group 422 error %q, want %q", got, want)
	}
	// A group with several opted-out members names each of them.
	e.post(t, "create-opt-out-action", e.body(obj{"phone": "+14155550002"})).want(t, http.StatusCreated)
	r = e.post(t, "send-group-message-action", e.body(obj{"from": fromNumber, "group": []string{"+14155550001", toNumber, "+14155550002"}, "text": "hi"})).want(t, http.StatusUnprocessableEntity)
	if msg := r.errorText(t); !strings.Contains(msg, toNumber) || !strings.Contains(msg, "+14155550002") || !strings.Contains(msg, "opted out") {
		t.Errorf("group 422 error %q does not name both opted-out members", msg)
	}
	if out, _ := e.st.Outbox(10); len(out) != 0 {
		t.Errorf("a refused send queued %d messages", len(out))
	}
	if after, _ := e.st.CountConversations(e.ws.ID); after != before {
		t.Errorf("a refused send created conversations: %d → %d", before, after)
	}
	if _, err := e.st.ContactByPhone(e.ws.ID, "+14155550001"); err == nil {
		t.Error("a refused group send created a contact for its other member")
	}
	// A validation error still wins over the opt-out (400 before 422).
	e.post(t, "send-message-action", e.body(obj{"from": fromNumber, "to": toNumber})).want(t, http.StatusBadRequest)
	// And a `from` that is not the workspace's number is 400 too.
	e.post(t, "send-message-action", e.body(obj{"from": otherNumber, "to": toNumber, "text": "x"})).want(t, http.StatusBadRequest)
}

func TestListContactPropertiesAction(t *testing.T) {
	e := newEnv(t, Config{})
	var list []map[string]any
	e.post(t, "list-contact-properties-action", e.body(nil)).want(t, http.StatusOK).decode(t, &list)
	if len(list) != 4 {
		t.Fatalf("%d properties, want 4: %v", len(list), list)
	}
	for i, want := range []string{"plan", "seats", "vip", "renewal"} {
		wantKeys(t, list[i], "id", "name", "type")
		wantField(t, list[i], "name", want)
		wantField(t, list[i], "id", e.props[want].ID)
		wantField(t, list[i], "type", e.props[want].Type)
	}
	r := e.postAs(t, e.otherToken, "list-contact-properties-action", obj{"developerProvider": "zapier", "id": e.ws2.ID}).want(t, http.StatusOK)
	if strings.TrimSpace(string(r.raw)) != "[]" {
		t.Errorf("no properties answered %s, want []", r.raw)
	}
}

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

// TestPropertiesEmptyAndNull: "" counts as absent in properties (neither sets nor clears a
// key); in create-contact a null is absent too; in create-or-update a null removes the key.
func TestPropertiesEmptyAndNull(t *testing.T) {
	e := newEnv(t, Config{})
	m := e.post(t, "create-contact-action", e.body(obj{"firstName": "Ana", "phone": toNumber,
		"properties": obj{"plan": "gold", "renewal": "", "seats": nil, "vip": true}})).want(t, http.StatusCreated).object(t)
	wantField(t, m, "properties", map[string]any{"plan": "gold", "vip": true})
	m = e.post(t, "create-or-update-contact-action", e.body(obj{"phone": toNumber,
		"properties": obj{"plan": "", "vip": nil, "renewal": "2030-01-31"}})).want(t, http.StatusOK).object(t)
	wantField(t, m, "properties", map[string]any{"plan": "gold", "renewal": "2030-01-31"})
	// The stored contact agrees with the result.
	c, err := e.st.ContactByPhone(e.ws.ID, toNumber)
	if err != nil || len(c.Properties) != 2 || c.Properties["plan"] != "gold" {
		t.Errorf("stored properties %v (err %v)", c.Properties, err)
	}
}

// TestHugeNumberProperty: a number beyond float64 is refused, since the stored contact
// could not be read back (find-contact would answer 500).
func TestHugeNumberProperty(t *testing.T) {
	e := newEnv(t, Config{})
	for _, n := range []string{"1e400", "-1e309"} {
		raw := []byte(`{"developerProvider":"zapier","id":"` + e.ws.ID + `","firstName":"B","phone":"+14155550999","properties":{"seats":` + n + `}}`)
		r := e.postRaw(t, "create-contact-action", e.token, raw)
		if got := r.fields(t); len(got) != 1 || got[0] != "properties.seats" {
			t.Errorf("seats %s: fields %q, want [properties.seats]", n, got)
		}
	}
	raw := []byte(`{"developerProvider":"zapier","id":"` + e.ws.ID + `","firstName":"B","phone":"+14155550999","properties":{"seats":1.7976931348623157e308}}`)
	e.postRaw(t, "create-contact-action", e.token, raw).want(t, http.StatusCreated)
	e.post(t, "find-contact-action", e.body(nil)).want(t, http.StatusOK)
}
