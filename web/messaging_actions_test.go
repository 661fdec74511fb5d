package web

import (
	"encoding/json"
	"net/http"
	"strings"
	"sync"
	"testing"

	"switchboard/store"
)

// Success paths of the actions that write to a conversation or send: comments, conversations,
// messages, group messages, broadcasts and opt-outs.

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
