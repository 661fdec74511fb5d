package web

import (
	"fmt"
	"net/http"
	"slices"
	"strings"
	"testing"
)

// validBodies are minimal valid bodies of each action (beyond developerProvider and id).
func (e *env) validBodies() map[string]obj {
	return map[string]obj{
		"create-comment-action":           e.body(obj{"from": fromNumber, "to": toNumber, "text": "note"}),
		"send-group-message-action":       e.body(obj{"from": fromNumber, "group": []string{"+14155550001", "+14155550002"}, "text": "hi"}),
		"create-conversation-action":      e.body(obj{"from": fromNumber, "to": toNumber}),
		"find-contact-action":             e.body(nil),
		"send-message-action":             e.body(obj{"from": fromNumber, "to": toNumber, "text": "hi"}),
		"send-broadcast-action":           e.body(obj{"from": fromNumber, "recipients": []string{"+14155550001"}, "text": "hi"}),
		"create-contact-action":           e.body(obj{"firstName": "Ana", "phone": "+14155550111"}),
		"create-or-update-contact-action": e.body(obj{"phone": "+14155550112"}),
		"create-opt-out-action":           e.body(obj{"phone": "+14155550113"}),
		"list-contact-properties-action":  e.body(nil),
		"list-phone-numbers-action":       e.body(nil),
		"me-action":                       e.body(nil),
		"subscribe-webhook": {"developerProvider": "zapier", "workspaceId": e.ws.ID, "eventName": "contact.created",
			"hookUrl": "https://hooks.example.com/x"},
		"unsubscribe-webhook": {"developerProvider": "zapier", "workspaceId": e.ws.ID, "id": "01J00000000000000000000000"},
	}
}

var successStatus = map[string]int{
	"create-comment-action": 201, "send-group-message-action": 202, "create-conversation-action": 201,
	"find-contact-action": 200, "send-message-action": 202, "send-broadcast-action": 202, "create-contact-action": 201,
	"create-or-update-contact-action": 201, "create-opt-out-action": 201, "list-contact-properties-action": 200,
	"list-phone-numbers-action": 200, "me-action": 200, "subscribe-webhook": 201, "unsubscribe-webhook": 404,
}

// with returns a copy of b with fields set (nil deletes).
func with(b obj, fields obj) obj {
	out := obj{}
	for k, v := range b {
		out[k] = v
	}
	for k, v := range fields {
		if v == nil {
			delete(out, k)
		} else {
			out[k] = v
		}
	}
	return out
}

// TestBaseFieldRules checks developerProvider, id/workspaceId and userId on every action.
func TestBaseFieldRules(t *testing.T) {
	e := newEnv(t, Config{})
	for action, valid := range e.validBodies() {
		idField := "id"
		if strings.Contains(action, "webhook") {
			idField = "workspaceId"
		}
		cases := []struct {
			name   string
			change obj
			want   []string
		}{
			{"developerProvider missing", obj{"developerProvider": nil}, []string{"developerProvider"}},
			{"developerProvider empty", obj{"developerProvider": ""}, []string{"developerProvider"}},
			{"developerProvider other", obj{"developerProvider": "make"}, []string{"developerProvider"}},
			{"developerProvider number", obj{"developerProvider": 1}, []string{"developerProvider"}},
			{"userId 46", obj{"userId": repeat("u", 46)}, []string{"userId"}},
			{"userId object", obj{"userId": obj{}}, []string{"userId"}},
			{idField + " 46", obj{idField: repeat("x", 46)}, []string{idField}},
			{idField + " number", obj{idField: 12}, []string{idField}},
		}
		if action != "me-action" {
			cases = append(cases,
				struct {
					name   string
					change obj
					want   []string
				}{idField + " missing", obj{idField: nil}, []string{idField}},
				struct {
					name   string
					change obj
					want   []string
				}{idField + " empty", obj{idField: ""}, []string{idField}})
		}
		for _, c := range cases {
			t.Run(action+"/"+c.name, func(t *testing.T) {
				r := e.post(t, action, with(valid, c.change))
				if got := r.fields(t); !slices.Equal(got, c.want) {
					t.Errorf("fields %q, want %q (%s)", got, c.want, r)
				}
			})
		}
		t.Run(action+"/userId 45 multi-byte ok", func(t *testing.T) {
			r := e.post(t, action, with(valid, obj{"userId": repeat("é", 45), "somethingUnknown": []int{1}}))
			// Actions that find or create answer 200 the second time.
			if r.status != successStatus[action] && !(successStatus[action] == 201 && r.status == 200 && action != "create-contact-action") {
				t.Errorf("status %d, want %d: %s", r.status, successStatus[action], r)
			}
		})
	}
}

type ruleCase struct {
	name   string
	action string
	body   obj
	status int      // when not 400
	want   []string // failing fields, in order
	msg    string   // a substring of the first field's message
}

func TestFieldRules(t *testing.T) {
	e := newEnv(t, Config{})
	v := e.validBodies()
	ten := make([]string, 10)
	eleven := make([]string, 11)
	for i := range eleven {
		eleven[i] = fmt.Sprintf("+1415555%04d", 2000+i)
	}
	copy(ten, eleven)
	tenWithDups := append(slices.Clone(ten), ten[0], ten[3])
	manyRecipients := make([]string, 10_001)
	for i := range manyRecipients {
		manyRecipients[i] = fmt.Sprintf("+1415777%04d", i)
	}
	longURL := func(n int) string { return "https://example.com/" + repeat("a", n-len("https://example.com/")) }
	cases := []ruleCase{
		// text and mediaUrl, counted in code points.
		{name: "text 1200 two-byte runes", action: "send-message-action", body: with(v["send-message-action"], obj{"text": repeat("é", 1200)}), status: 202},
		{name: "text 1200 four-byte runes", action: "send-message-action", body: with(v["send-message-action"], obj{"text": repeat("😀", 1200)}), status: 202},
		{name: "text 1201", action: "send-message-action", body: with(v["send-message-action"], obj{"text": repeat("é", 1201)}), want: []string{"text"}, msg: "1200"},
		{name: "comment text 1201", action: "create-comment-action", body: with(v["create-comment-action"], obj{"text": repeat("a", 1201)}), want: []string{"text"}},
		{name: "group text 1201", action: "send-group-message-action", body: with(v["send-group-message-action"], obj{"text": repeat("a", 1201)}), want: []string{"text"}},
		{name: "broadcast text 1201", action: "send-broadcast-action", body: with(v["send-broadcast-action"], obj{"text": repeat("a", 1201)}), want: []string{"text"}},
		{name: "no text nor media", action: "send-message-action", body: with(v["send-message-action"], obj{"text": nil}), want: []string{"text"}, msg: "mediaUrl"},
		{name: "empty text counts as absent", action: "send-message-action", body: with(v["send-message-action"], obj{"text": ""}), want: []string{"text"}},
		{name: "empty text and media", action: "send-message-action", body: with(v["send-message-action"], obj{"text": "", "mediaUrl": ""}), want: []string{"text"}},
		{name: "null text", action: "send-group-message-action", body: with(v["send-group-message-action"], obj{"text": nil}), want: []string{"text"}},
		{name: "broadcast without text", action: "send-broadcast-action", body: with(v["send-broadcast-action"], obj{"text": ""}), want: []string{"text"}},
		{name: "comment without text", action: "create-comment-action", body: with(v["create-comment-action"], obj{"text": ""}), want: []string{"text"}},
		{name: "text number", action: "send-message-action", body: with(v["send-message-action"], obj{"text": 5}), want: []string{"text"}, msg: "string"},
		{name: "text array", action: "send-message-action", body: with(v["send-message-action"], obj{"text": []string{"a"}}), want: []string{"text"}},
		{name: "media only", action: "send-message-action", body: with(v["send-message-action"], obj{"text": nil, "mediaUrl": "https://example.com/a.png"}), status: 202},
		{name: "media ftp", action: "send-message-action", body: with(v["send-message-action"], obj{"mediaUrl": "ftp://example.com/a.png"}), want: []string{"mediaUrl"}, msg: "http"},
		{name: "media relative", action: "send-message-action", body: with(v["send-message-action"], obj{"text": nil, "mediaUrl": "/a.png"}), want: []string{"mediaUrl"}},
		{name: "media no host", action: "create-comment-action", body: with(v["create-comment-action"], obj{"mediaUrl": "https:///a.png"}), want: []string{"mediaUrl"}},
		{name: "media 2048", action: "send-message-action", body: with(v["send-message-action"], obj{"mediaUrl": longURL(2048)}), status: 202},
		{name: "media 2049", action: "send-message-action", body: with(v["send-message-action"], obj{"mediaUrl": longURL(2049)}), want: []string{"mediaUrl"}},
		{name: "media number", action: "send-broadcast-action", body: with(v["send-broadcast-action"], obj{"mediaUrl": 3}), want: []string{"mediaUrl"}},
		// Exactly what is a URI (RFC 3986): the answer echoes it, and the document says format uri.
		{name: "media escaped", action: "send-message-action", body: with(v["send-message-action"], obj{"mediaUrl": "https://example.com/caf%C3%A9%20menu.jpg?size=(2)&x=*"}), status: 202},
		{name: "media brackets", action: "send-message-action", body: with(v["send-message-action"], obj{"mediaUrl": "https://example.com/a[1].png"}), want: []string{"mediaUrl"}, msg: "%XX"},
		{name: "media braces", action: "create-comment-action", body: with(v["create-comment-action"], obj{"mediaUrl": "https://example.com/{id}.png"}), want: []string{"mediaUrl"}},
		{name: "media caret", action: "send-group-message-action", body: with(v["send-group-message-action"], obj{"mediaUrl": "https://example.com/a^b.png"}), want: []string{"mediaUrl"}},
		{name: "media angle", action: "send-broadcast-action", body: with(v["send-broadcast-action"], obj{"mediaUrl": "https://example.com/<a>.png"}), want: []string{"mediaUrl"}},
		{name: "media non-ASCII", action: "send-message-action", body: with(v["send-message-action"], obj{"mediaUrl": "https://example.com/café.jpg"}), want: []string{"mediaUrl"}},

		// Strict E.164.
		{name: "from formatted", action: "send-message-action", body: with(v["send-message-action"], obj{"from": "+1 415 555 0100"}), want: []string{"from"}, msg: "+14155550123"},
		{name: "to formatted", action: "create-conversation-action", body: with(v["create-conversation-action"], obj{"to": "(415) 555-0123"}), want: []string{"to"}, msg: "E.164"},
		{name: "to without plus", action: "create-conversation-action", body: with(v["create-conversation-action"], obj{"to": "14155550123"}), want: []string{"to"}},
		{name: "to leading zero", action: "create-conversation-action", body: with(v["create-conversation-action"], obj{"to": "+04155550123"}), want: []string{"to"}},
		{name: "to 16 digits", action: "create-conversation-action", body: with(v["create-conversation-action"], obj{"to": "+1234567890123456"}), want: []string{"to"}},
		{name: "to one digit", action: "create-conversation-action", body: with(v["create-conversation-action"], obj{"to": "+1"}), want: []string{"to"}},
		{name: "to trailing newline", action: "create-conversation-action", body: with(v["create-conversation-action"], obj{"to": "+14155550123\n"}), want: []string{"to"}},
		{name: "to full-width digits", action: "create-conversation-action", body: with(v["create-conversation-action"], obj{"to": "+１４１５"}), want: []string{"to"}},
		{name: "to number type", action: "create-conversation-action", body: with(v["create-conversation-action"], obj{"to": 14155550123}), want: []string{"to"}, msg: "string"},
		{name: "from missing", action: "create-conversation-action", body: with(v["create-conversation-action"], obj{"from": nil}), want: []string{"from"}, msg: "required"},
		{name: "opt-out phone formatted", action: "create-opt-out-action", body: with(v["create-opt-out-action"], obj{"phone": "415-555-0100"}), want: []string{"phone"}},
		{name: "contact phone missing", action: "create-contact-action", body: with(v["create-contact-action"], obj{"phone": ""}), want: []string{"phone"}},
		{name: "upsert phone missing", action: "create-or-update-contact-action", body: with(v["create-or-update-contact-action"], obj{"phone": nil}), want: []string{"phone"}},

		// Every failing field at once, sorted in byte order.
		{name: "every failing field", action: "send-message-action",
			body: obj{"developerProvider": "other", "id": "", "from": "bad", "to": 5, "text": "", "userId": repeat("x", 46)},
			want: []string{"developerProvider", "from", "id", "text", "to", "userId"}},
		{name: "every failing field contact", action: "create-contact-action",
			body: obj{"id": e.ws.ID, "phone": "x", "lastName": repeat("b", 256), "email": "nope", "properties": []int{}},
			want: []string{"developerProvider", "email", "firstName", "lastName", "phone", "properties"}},

		// Groups: de-duplicated, then 1–10, none equal to from.
		{name: "group missing", action: "send-group-message-action", body: with(v["send-group-message-action"], obj{"group": nil}), want: []string{"group"}},
		{name: "group empty", action: "send-group-message-action", body: with(v["send-group-message-action"], obj{"group": []string{}}), want: []string{"group"}},
		{name: "group 10 plus duplicates", action: "send-group-message-action", body: with(v["send-group-message-action"], obj{"group": tenWithDups}), status: 202},
		{name: "group 11", action: "send-group-message-action", body: with(v["send-group-message-action"], obj{"group": eleven}), want: []string{"group"}, msg: "10"},
		{name: "group holds from", action: "send-group-message-action", body: with(v["send-group-message-action"], obj{"group": []string{"+14155550001", fromNumber}}), want: []string{"group"}, msg: fromNumber},
		{name: "group formatted member", action: "send-group-message-action", body: with(v["send-group-message-action"], obj{"group": []string{"+14155550001", "+1 415 555 0002"}}), want: []string{"group"}, msg: "E.164"},
		{name: "group string", action: "send-group-message-action", body: with(v["send-group-message-action"], obj{"group": "+14155550001"}), want: []string{"group"}},
		{name: "group numbers", action: "send-group-message-action", body: with(v["send-group-message-action"], obj{"group": []int{1, 2}}), want: []string{"group"}},
		{name: "group null member", action: "send-group-message-action", body: with(v["send-group-message-action"], obj{"group": []any{"+14155550001", nil}}), want: []string{"group"}},
		{name: "group and text bad", action: "send-group-message-action", body: with(v["send-group-message-action"], obj{"group": eleven, "text": nil, "from": "+1"}), want: []string{"from", "group", "text"}},

		// Recipients: de-duplicated, then 1–10,000.
		{name: "recipients missing", action: "send-broadcast-action", body: with(v["send-broadcast-action"], obj{"recipients": nil}), want: []string{"recipients"}},
		{name: "recipients empty", action: "send-broadcast-action", body: with(v["send-broadcast-action"], obj{"recipients": []string{}}), want: []string{"recipients"}},
		{name: "recipients 10001", action: "send-broadcast-action", body: with(v["send-broadcast-action"], obj{"recipients": manyRecipients}), want: []string{"recipients"}, msg: "10000"},
		{name: "recipients formatted", action: "send-broadcast-action", body: with(v["send-broadcast-action"], obj{"recipients": []string{"+14155550001", "555"}}), want: []string{"recipients"}},
		{name: "recipients object", action: "send-broadcast-action", body: with(v["send-broadcast-action"], obj{"recipients": obj{}}), want: []string{"recipients"}},

		// Contacts.
		{name: "firstName missing", action: "create-contact-action", body: with(v["create-contact-action"], obj{"firstName": nil}), want: []string{"firstName"}},
		{name: "firstName empty", action: "create-contact-action", body: with(v["create-contact-action"], obj{"firstName": ""}), want: []string{"firstName"}},
		{name: "firstName 255 runes", action: "create-contact-action", body: with(v["create-contact-action"], obj{"firstName": repeat("ß", 255), "phone": "+14155550301"}), status: 201},
		{name: "firstName 256", action: "create-contact-action", body: with(v["create-contact-action"], obj{"firstName": repeat("ß", 256)}), want: []string{"firstName"}, msg: "255"},
		{name: "lastName 256", action: "create-or-update-contact-action", body: with(v["create-or-update-contact-action"], obj{"lastName": repeat("a", 256)}), want: []string{"lastName"}},
		{name: "upsert firstName 256", action: "create-or-update-contact-action", body: with(v["create-or-update-contact-action"], obj{"firstName": repeat("a", 256)}), want: []string{"firstName"}},
		{name: "firstName bool", action: "create-or-update-contact-action", body: with(v["create-or-update-contact-action"], obj{"firstName": true}), want: []string{"firstName"}},
		{name: "email invalid", action: "create-contact-action", body: with(v["create-contact-action"], obj{"email": "not-an-email"}), want: []string{"email"}},
		{name: "email with name", action: "create-contact-action", body: with(v["create-contact-action"], obj{"email": "Ana <ana@example.com>"}), want: []string{"email"}},
		{name: "email too long", action: "create-contact-action", body: with(v["create-contact-action"], obj{"email": repeat("a", 250) + "@x.io"}), want: []string{"email"}},
		{name: "properties array", action: "create-contact-action", body: with(v["create-contact-action"], obj{"properties": []any{}}), want: []string{"properties"}},
		{name: "properties string", action: "create-or-update-contact-action", body: with(v["create-or-update-contact-action"], obj{"properties": "plan=gold"}), want: []string{"properties"}},
		{name: "property unknown", action: "create-contact-action", body: with(v["create-contact-action"], obj{"properties": obj{"nope": "x"}}), want: []string{"properties.nope"}},
		{name: "property number as string", action: "create-contact-action", body: with(v["create-contact-action"], obj{"properties": obj{"seats": "12"}}), want: []string{"properties.seats"}},
		{name: "property boolean as string", action: "create-contact-action", body: with(v["create-contact-action"], obj{"properties": obj{"vip": "true"}}), want: []string{"properties.vip"}},
		{name: "property text as number", action: "create-contact-action", body: with(v["create-contact-action"], obj{"properties": obj{"plan": 3}}), want: []string{"properties.plan"}},
		{name: "property text 256", action: "create-contact-action", body: with(v["create-contact-action"], obj{"properties": obj{"plan": repeat("é", 256)}}), want: []string{"properties.plan"}},
		{name: "property date Feb 30", action: "create-contact-action", body: with(v["create-contact-action"], obj{"properties": obj{"renewal": "2027-02-30"}}), want: []string{"properties.renewal"}, msg: "YYYY-MM-DD"},
		{name: "property date Feb 29 non-leap", action: "create-or-update-contact-action", body: with(v["create-or-update-contact-action"], obj{"properties": obj{"renewal": "2027-02-29"}}), want: []string{"properties.renewal"}},
		{name: "property date short", action: "create-contact-action", body: with(v["create-contact-action"], obj{"properties": obj{"renewal": "2027-2-3"}}), want: []string{"properties.renewal"}},
		{name: "property date time", action: "create-contact-action", body: with(v["create-contact-action"], obj{"properties": obj{"renewal": "2027-02-03T00:00:00Z"}}), want: []string{"properties.renewal"}},
		{name: "property date number", action: "create-contact-action", body: with(v["create-contact-action"], obj{"properties": obj{"renewal": 20270203}}), want: []string{"properties.renewal"}},
		{name: "properties every failing key sorted", action: "create-or-update-contact-action",
			body: with(v["create-or-update-contact-action"], obj{"properties": obj{"vip": 1, "seats": "x", "Zed": 1, "aaa": 1, "renewal": "2027-13-01"}}),
			want: []string{"properties.Zed", "properties.aaa", "properties.renewal", "properties.seats", "properties.vip"}},
		{name: "properties valid", action: "create-contact-action",
			body: with(v["create-contact-action"], obj{"phone": "+14155550302", "properties": obj{"plan": repeat("é", 255), "seats": -1e3, "vip": false, "renewal": "2024-02-29"}}), status: 201},

		// Search.
		{name: "searchText 255", action: "find-contact-action", body: with(v["find-contact-action"], obj{"searchText": repeat("ü", 255)}), status: 200},
		{name: "searchText 256", action: "find-contact-action", body: with(v["find-contact-action"], obj{"searchText": repeat("ü", 256)}), want: []string{"searchText"}},
		{name: "searchText number", action: "find-contact-action", body: with(v["find-contact-action"], obj{"searchText": 415}), want: []string{"searchText"}},

		// Comments.
		{name: "mentions string", action: "create-comment-action", body: with(v["create-comment-action"], obj{"mentions": "u1"}), want: []string{"mentions"}},
		{name: "mentions numbers", action: "create-comment-action", body: with(v["create-comment-action"], obj{"mentions": []int{1}}), want: []string{"mentions"}},
		{name: "mentions non-member", action: "create-comment-action", body: with(v["create-comment-action"], obj{"mentions": []string{e.other.ID}}), want: []string{"mentions"}},
		{name: "mentions garbage id", action: "create-comment-action", body: with(v["create-comment-action"], obj{"mentions": []string{"x"}}), want: []string{"mentions"}},
		{name: "mentions and from refer elsewhere", action: "create-comment-action",
			body: with(v["create-comment-action"], obj{"from": otherNumber, "mentions": []string{e.user.ID, e.other.ID}}), want: []string{"from", "mentions"}},
		{name: "mentions empty", action: "create-comment-action", body: with(v["create-comment-action"], obj{"mentions": []string{}}), status: 201},

		// The workspace's data.
		{name: "from of another workspace", action: "send-message-action", body: with(v["send-message-action"], obj{"from": otherNumber}), want: []string{"from"}, msg: otherNumber},
		{name: "from unknown number", action: "create-conversation-action", body: with(v["create-conversation-action"], obj{"from": "+15005550006"}), want: []string{"from"}},
		{name: "broadcast from unknown", action: "send-broadcast-action", body: with(v["send-broadcast-action"], obj{"from": "+15005550006"}), want: []string{"from"}},
		{name: "group from unknown", action: "send-group-message-action", body: with(v["send-group-message-action"], obj{"from": "+15005550006"}), want: []string{"from"}},

		// Webhooks.
		{name: "eventName unknown", action: "subscribe-webhook", body: with(v["subscribe-webhook"], obj{"eventName": "message.deleted"}), want: []string{"eventName"}, msg: "message.received"},
		{name: "eventName missing", action: "subscribe-webhook", body: with(v["subscribe-webhook"], obj{"eventName": nil}), want: []string{"eventName"}},
		{name: "hookUrl ftp", action: "subscribe-webhook", body: with(v["subscribe-webhook"], obj{"hookUrl": "ftp://example.com/x"}), want: []string{"hookUrl"}},
		{name: "hookUrl relative", action: "subscribe-webhook", body: with(v["subscribe-webhook"], obj{"hookUrl": "/hook"}), want: []string{"hookUrl"}},
		{name: "hookUrl missing", action: "subscribe-webhook", body: with(v["subscribe-webhook"], obj{"hookUrl": ""}), want: []string{"hookUrl"}},
		{name: "subscribe all bad", action: "subscribe-webhook", body: obj{"developerProvider": "zapier", "eventName": 1, "hookUrl": "x"}, want: []string{"eventName", "hookUrl", "workspaceId"}},
		{name: "unsubscribe id missing", action: "unsubscribe-webhook", body: with(v["unsubscribe-webhook"], obj{"id": nil}), want: []string{"id"}},
		{name: "unsubscribe id 46", action: "unsubscribe-webhook", body: with(v["unsubscribe-webhook"], obj{"id": repeat("1", 46)}), want: []string{"id"}},
	}
	for _, c := range cases {
		t.Run(c.action+"/"+c.name, func(t *testing.T) {
			r := e.post(t, c.action, c.body)
			if c.status != 0 {
				r.want(t, c.status)
				return
			}
			got := r.fields(t)
			if !slices.Equal(got, c.want) {
				t.Fatalf("fields %q, want %q (%s)", got, c.want, r)
			}
			if c.msg != "" {
				if m := r.message(t, c.want[0]); !strings.Contains(m, c.msg) {
					t.Errorf("message on %s is %q; want it to mention %q", c.want[0], m, c.msg)
				}
			}
		})
	}
}

// TestBadBodies checks bodies that are not one JSON object.
func TestBadBodies(t *testing.T) {
	e := newEnv(t, Config{})
	for _, body := range []string{"", " ", "null", "[]", `"text"`, "42", "{", `{"a":1}{"b":2}`, `{"a":1} x`, `{"a":1}]`,
		`{"a":}`, "\xff\xfe", `{"text":"\ud800"`, strings.Repeat("[", 20000) + strings.Repeat("]", 20000)} {
		t.Run(fmt.Sprintf("%.20q", body), func(t *testing.T) {
			r := e.postRaw(t, "send-message-action", e.token, []byte(body))
			if got := r.fields(t); !slices.Equal(got, []string{"body"}) {
				t.Errorf("fields %q, want [body] (%s)", got, r)
			}
		})
	}
	// Unknown fields, including nested ones, are ignored.
	r := e.postRaw(t, "create-conversation-action", e.token, []byte(`{"developerProvider":"zapier","id":"`+e.ws.ID+
		`","from":"`+fromNumber+`","to":"`+toNumber+`","extra":{"deep":[1,2,{"x":null}]},"n":1e400}`))
	if r.status != http.StatusCreated {
		t.Errorf("unknown fields: status %d, want 201 (%s)", r.status, r)
	}
}
