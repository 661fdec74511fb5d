package web

import (
	"bytes"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"testing"
	"time"
	"unicode/utf8"

	"switchboard/store"
)

// Fuzz tests: no body makes a decoder panic, every failing field is reported once, the
// written validation array is sorted, and what a decoder accepts obeys the field rules.
// `go test` runs the seeds; `go test -fuzz FuzzDecodeSendMessage ./web/` explores.

var fuzzSeeds = []string{
	``, `{}`, `null`, `[]`, `{"a":1}{`, `{"a":1}]`, `"x"`,
	`{"developerProvider":"zapier","id":"01J00000000000000000000000","from":"+14155550100","to":"+14155550123","text":"hi"}`,
	`{"developerProvider":"zapier","id":"x","from":"+14155550100","group":["+14155550001","+14155550001","+14155550100"],"mediaUrl":"https://e.com/a"}`,
	`{"developerProvider":"zapier","id":"x","from":"+1 415","recipients":["+14155550001",1,null],"text":""}`,
	`{"developerProvider":"zapier","id":"x","firstName":"Ana","phone":"+14155550123","email":"a@b.co","properties":{"plan":"x","seats":1e400,"vip":null}}`,
	`{"developerProvider":"zapier","workspaceId":"x","eventName":"message.sent","hookUrl":"http://[::1]:80/x"}`,
	`{"developerProvider":"zapier","workspaceId":"x","id":"01J00000000000000000000000"}`,
	`{"developerProvider":"zapier","id":"x","searchText":"ana +1 (415)"}`,
	`{"text":"\ud800","from":"\u0000","to":"+1٤١٥","mentions":[[]],"properties":[]}`,
	`{"developerProvider":1,"id":{},"userId":[],"text":true,"mediaUrl":"http://%zz"}`,
}

type decoderCase struct {
	name   string
	decode func(f *fields)
}

// decoders runs each action's decoder, checking what it accepts.
func decoders(t *testing.T) []decoderCase {
	return []decoderCase{
		{"create-comment", func(f *fields) {
			req := decodeCreateComment(f, "zapier")
			if f.done() == nil {
				checkPhone(t, req.in.From)
				checkPhone(t, req.in.To)
				checkTextOrMedia(t, req.in.Text, req.in.Media)
			}
		}},
		{"send-group-message", func(f *fields) {
			req := decodeSendGroupMessage(f, "zapier")
			if f.done() == nil {
				checkPhone(t, req.in.From)
				if len(req.in.To) < 1 || len(req.in.To) > maxGroup || slices.Contains(req.in.To, req.in.From) {
					t.Errorf("accepted group %q with from %q", req.in.To, req.in.From)
				}
				checkUnique(t, req.in.To)
				checkTextOrMedia(t, req.in.Text, req.in.Media)
			}
		}},
		{"create-conversation", func(f *fields) {
			req := decodeCreateConversation(f, "zapier")
			if f.done() == nil {
				checkPhone(t, req.from)
				checkPhone(t, req.to)
				checkID(t, req.workspaceID)
			}
		}},
		{"find-contact", func(f *fields) {
			req := decodeFindContact(f, "zapier")
			if f.done() == nil && utf8.RuneCountInString(req.searchText) > maxSearchText {
				t.Errorf("accepted searchText of %d runes", utf8.RuneCountInString(req.searchText))
			}
		}},
		{"send-message", func(f *fields) {
			req := decodeSendMessage(f, "zapier")
			if f.done() == nil {
				checkPhone(t, req.in.From)
				if len(req.in.To) != 1 {
					t.Errorf("accepted to %q", req.in.To)
				} else {
					checkPhone(t, req.in.To[0])
				}
				checkTextOrMedia(t, req.in.Text, req.in.Media)
			}
		}},
		{"send-broadcast", func(f *fields) {
			now := time.Now()
			req := decodeSendBroadcast(f, "zapier", now)
			if f.done() == nil {
				checkPhone(t, req.in.From)
				if n := len(req.in.Recipients); n > store.MaxBroadcastRecipients ||
					n+len(req.in.GroupIDs)+len(req.in.ConversationIDs) == 0 {
					t.Errorf("accepted %d recipients, %d groups, %d conversations", n, len(req.in.GroupIDs), len(req.in.ConversationIDs))
				}
				for _, ids := range [][]string{req.in.GroupIDs, req.in.ConversationIDs, req.in.ExcludeGroupIDs, req.in.ExcludeConversationIDs} {
					if len(ids) > store.MaxBroadcastIDs {
						t.Errorf("accepted %d ids", len(ids))
					}
					checkUnique(t, ids)
				}
				if at := req.in.SendAt; at != nil && (!at.After(now) || at.After(store.LatestSendAt(now))) {
					t.Errorf("accepted sendAt %v", at)
				}
				for _, p := range req.in.Recipients {
					checkPhone(t, p)
				}
				checkUnique(t, req.in.Recipients)
				checkTextOrMedia(t, req.in.Text, req.in.Media)
			}
		}},
		{"create-contact", func(f *fields) {
			req := decodeContact(f, "zapier", true)
			if f.done() == nil {
				checkPhone(t, req.in.Phone)
				if req.in.FirstName == nil || *req.in.FirstName == "" || utf8.RuneCountInString(*req.in.FirstName) > maxName {
					t.Errorf("accepted firstName %v", req.in.FirstName)
				}
				for k, v := range req.in.Properties {
					if v == nil || v == "" {
						t.Errorf("create-contact passed the absent property %q = %#v to the store", k, v)
					}
				}
			}
		}},
		{"create-or-update-contact", func(f *fields) {
			req := decodeContact(f, "zapier", false)
			if f.done() == nil {
				checkPhone(t, req.in.Phone)
				for _, p := range []*string{req.in.FirstName, req.in.LastName, req.in.Email} {
					if p != nil && *p == "" {
						t.Error("an empty string was passed on as a value")
					}
				}
			}
		}},
		{"list-messages", func(f *fields) {
			req := decodeListMessages(f, "zapier")
			if f.done() == nil {
				if l := req.filter.Limit; l < 1 || l > 100 {
					t.Errorf("accepted limit %d", l)
				}
				if d := req.filter.Direction; d != "" && d != "inbound" && d != "outbound" {
					t.Errorf("accepted direction %q", d)
				}
			}
		}},
		{"create-opt-out", func(f *fields) {
			req := decodeCreateOptOut(f, "zapier")
			if f.done() == nil {
				checkPhone(t, req.phone)
			}
		}},
		{"subscribe-webhook", func(f *fields) {
			req := decodeSubscribe(f, "zapier")
			if f.done() == nil {
				if !store.ValidEventName(req.eventName) || !strings.HasPrefix(req.hookURL, "http") {
					t.Errorf("accepted %q %q", req.eventName, req.hookURL)
				}
			}
		}},
		{"base", func(f *fields) {
			ws := f.base("zapier", "id", true)
			if f.done() == nil {
				checkID(t, ws)
			}
		}},
	}
}

func checkPhone(t *testing.T, p string) {
	t.Helper()
	if !store.ValidE164(p) {
		t.Errorf("accepted phone %q", p)
	}
}

func checkID(t *testing.T, id string) {
	t.Helper()
	if id == "" || utf8.RuneCountInString(id) > maxID {
		t.Errorf("accepted id %q", id)
	}
}

func checkUnique(t *testing.T, list []string) {
	t.Helper()
	s := slices.Sorted(slices.Values(list))
	if len(slices.Compact(s)) != len(list) {
		t.Errorf("list %q holds duplicates", list)
	}
}

func checkTextOrMedia(t *testing.T, text string, media []string) {
	t.Helper()
	if media == nil {
		t.Error("media is nil, want []")
	}
	if text == "" && len(media) == 0 {
		t.Error("accepted neither text nor mediaUrl")
	}
	if utf8.RuneCountInString(text) > maxText {
		t.Errorf("accepted text of %d runes", utf8.RuneCountInString(text))
	}
	for _, m := range media {
		if !store.ValidMediaURL(m) {
			t.Errorf("accepted mediaUrl %q", m)
		}
	}
}

// checkWritten writes errs as the API does and checks the array is sorted and unique.
func checkWritten(t *testing.T, errs store.ValidationError) {
	t.Helper()
	rec := httptest.NewRecorder()
	writeValidation(rec, errs)
	if rec.Code != http.StatusBadRequest {
		t.Fatalf("validation written with %d", rec.Code)
	}
	var got []store.FieldError
	if err := json.Unmarshal(rec.Body.Bytes(), &got); err != nil {
		t.Fatalf("validation body %s: %v", rec.Body.Bytes(), err)
	}
	names := make([]string, len(got))
	for i, fe := range got {
		names[i] = fe.Field
		if fe.Field == "" || fe.Message == "" {
			t.Errorf("empty field or message: %+v", fe)
		}
	}
	if !slices.IsSorted(names) {
		t.Errorf("fields %q are not sorted", names)
	}
	if len(slices.Compact(slices.Clone(names))) != len(names) {
		t.Errorf("fields %q repeat", names)
	}
}

// fuzzDecode parses body and runs decode on it, checking the errors it writes.
func fuzzDecode(t *testing.T, body []byte, decode func(f *fields)) {
	f, errs := parseObject(body)
	if errs != nil {
		if f != nil {
			t.Fatal("parseObject returned both fields and errors")
		}
		if len(errs) != 1 || errs[0].Field != "body" {
			t.Errorf("parse errors %v, want one on body", errs)
		}
		checkWritten(t, errs)
		return
	}
	decode(f)
	if errs := f.done(); errs != nil {
		checkWritten(t, errs)
	}
}

func addSeeds(f *testing.F) {
	for _, s := range fuzzSeeds {
		f.Add([]byte(s))
	}
}

// FuzzDecode runs every decoder on the same body.
func FuzzDecode(f *testing.F) {
	addSeeds(f)
	f.Fuzz(func(t *testing.T, body []byte) {
		for _, d := range decoders(t) {
			fuzzDecode(t, body, d.decode)
		}
	})
}

func fuzzOne(f *testing.F, name string) {
	addSeeds(f)
	f.Fuzz(func(t *testing.T, body []byte) {
		for _, d := range decoders(t) {
			if d.name == name {
				fuzzDecode(t, body, d.decode)
				return
			}
		}
		t.Fatalf("no decoder %s", name)
	})
}

func FuzzDecodeCreateComment(f *testing.F)      { fuzzOne(f, "create-comment") }
func FuzzDecodeSendGroupMessage(f *testing.F)   { fuzzOne(f, "send-group-message") }
func FuzzDecodeCreateConversation(f *testing.F) { fuzzOne(f, "create-conversation") }
func FuzzDecodeFindContact(f *testing.F)        { fuzzOne(f, "find-contact") }
func FuzzDecodeSendMessage(f *testing.F)        { fuzzOne(f, "send-message") }
func FuzzDecodeSendBroadcast(f *testing.F)      { fuzzOne(f, "send-broadcast") }
func FuzzDecodeContact(f *testing.F)            { fuzzOne(f, "create-contact") }
func FuzzDecodeUpsertContact(f *testing.F)      { fuzzOne(f, "create-or-update-contact") }
func FuzzDecodeCreateOptOut(f *testing.F)       { fuzzOne(f, "create-opt-out") }
func FuzzDecodeSubscribe(f *testing.F)          { fuzzOne(f, "subscribe-webhook") }
func FuzzDecodeListMessages(f *testing.F)       { fuzzOne(f, "list-messages") }

// FuzzDecodeFields builds bodies from typed pieces so the fuzzer reaches the field rules
// rather than JSON syntax errors.
func FuzzDecodeFields(f *testing.F) {
	f.Add("+14155550100", "+14155550123", "hi", "", "+14155550001,+14155550002")
	f.Add("+1 415", "+1", "", "ftp://x", "")
	f.Add("+14155550100", "+14155550100", strings.Repeat("é", 1201), "https://example.com/"+strings.Repeat("a", 2040), "+14155550100,+14155550100")
	f.Fuzz(func(t *testing.T, from, to, text, media, list string) {
		body, err := json.Marshal(map[string]any{"developerProvider": "zapier", "id": "01J00000000000000000000000",
			"from": from, "to": to, "text": text, "mediaUrl": media, "group": strings.Split(list, ","),
			"recipients": strings.Split(list, ","), "phone": to, "firstName": text, "searchText": text,
			"properties": map[string]any{text: media}})
		if err != nil {
			t.Skip()
		}
		for _, d := range decoders(t) {
			fuzzDecode(t, body, d.decode)
		}
	})
}

// FuzzParseObject holds the decoding of the API's bodies to encoding/json's: the object's fields
// decode to the strings json.Unmarshal gives (the short cut for plain strings included), and a
// body is accepted exactly when it is one JSON object.
func FuzzParseObject(f *testing.F) {
	f.Add([]byte(`{"from":"+14155550100","to":"a\u00e9\"b","text":"\u0000","n":1,"x":null} `))
	f.Add([]byte(`{"a":"\ud800","b":"\t"} {}`))
	f.Add([]byte("{\"a\":\"\xff\xfe\",\"b\":\"caf\xc3\xa9\"}"))
	f.Add([]byte(`null`))
	f.Fuzz(func(t *testing.T, body []byte) {
		fields, verrs := parseObject(body)
		var want map[string]json.RawMessage
		wantOK := json.Unmarshal(body, &want) == nil && want != nil
		if wantOK != (verrs == nil) {
			t.Fatalf("parseObject(%q) accepted %v, json.Unmarshal %v", body, verrs == nil, wantOK)
		}
		if !wantOK {
			return
		}
		for name, raw := range want {
			var s string
			strErr := json.Unmarshal(raw, &s)
			got, err := jsonString(fields.raw[name])
			if (err == nil) != (strErr == nil) || got != s {
				t.Fatalf("field %q = %q (%v), encoding/json: %q (%v)", name, got, err, s, strErr)
			}
		}
	})
}

// FuzzHandler posts arbitrary bodies to every action through the real handler over a real
// store: the answer is never a 500 (nor a panic, which the middleware would turn into one).
func FuzzHandler(f *testing.F) {
	e := newEnv(f, Config{})
	h := e.srv.Config.Handler
	actions := slices.Sorted(func(yield func(string) bool) {
		for a := range e.validBodies() {
			if !yield(a) {
				return
			}
		}
	})
	for i, a := range actions {
		b, _ := json.Marshal(e.validBodies()[a])
		f.Add(uint8(i), b)
		f.Add(uint8(i), []byte(strings.ReplaceAll(string(b), `"+1415`, `"+1 415`)))
	}
	for _, s := range fuzzSeeds {
		f.Add(uint8(0), []byte(s))
		f.Add(uint8(6), []byte(s))
	}
	f.Add(uint8(6), []byte(`{"developerProvider":"zapier","id":"$WS","firstName":"A","phone":"+14155550999","properties":{"seats":1e400}}`))
	f.Add(uint8(0), []byte(`{"developerProvider":"zapier","id":"$WS","from":"+14155550100","to":"+14155550123","text":"x","mentions":["$USER","x"]}`))
	// Bodies failing an own rule and a workspace-data rule at once: one 400 with both.
	at := func(action string) uint8 { return uint8(slices.Index(actions, action)) }
	f.Add(at("create-or-update-contact-action"), []byte(`{"developerProvider":"zapier","id":"$WS","userId":"`+strings.Repeat("u", 46)+
		`","phone":"+14155550998","properties":{"vip":"yes","seats":1e400,"nope":null,"renewal":"2027-02-30"}}`))
	f.Add(at("create-comment-action"), []byte(`{"developerProvider":"zapier","id":"$WS","from":"+14155550199","to":"x","mentions":["$USER","x"]}`))
	f.Add(at("send-group-message-action"), []byte(`{"developerProvider":"zapier","id":"$WS","from":"+14155550199","group":["+14155550199"]}`))
	f.Add(at("me-action"), []byte(`{"developerProvider":"zapier","id":"$WS","userId":{}}`))
	f.Fuzz(func(t *testing.T, which uint8, body []byte) {
		// $WS and $USER let mutated bodies keep reaching the store.
		body = bytes.ReplaceAll(body, []byte("$WS"), []byte(e.ws.ID))
		body = bytes.ReplaceAll(body, []byte("$USER"), []byte(e.user.ID))
		action := actions[int(which)%len(actions)]
		req := httptest.NewRequest(http.MethodPost, "/v1/integrations/developer/zapier/"+action, bytes.NewReader(body))
		req.Header.Set("Authorization", "Bearer "+e.token)
		req.Header.Set("Content-Type", "application/json")
		rec := httptest.NewRecorder()
		h.ServeHTTP(rec, req)
		if rec.Code >= 500 {
			t.Fatalf("%s %q answered %d: %s", action, body, rec.Code, rec.Body.Bytes())
		}
		if rec.Header().Get("X-Request-Id") == "" {
			t.Errorf("%s answered without X-Request-Id", action)
		}
		// The answer is held to the OpenAPI document, and so is the body when it was accepted.
		e.contract.check(t, http.MethodPost, e.url(action),
			map[string]string{"Authorization": "Bearer " + e.token, "Content-Type": "application/json"}, body,
			resp{status: rec.Code, header: rec.Header(), raw: rec.Body.Bytes()})
		if rec.Code == http.StatusBadRequest {
			var errs []store.FieldError
			if err := json.Unmarshal(rec.Body.Bytes(), &errs); err != nil || len(errs) == 0 {
				t.Fatalf("400 body %s is not a validation array", rec.Body.Bytes())
			}
			names := make([]string, len(errs))
			for i, fe := range errs {
				names[i] = fe.Field
			}
			if !slices.IsSorted(names) || len(slices.Compact(slices.Clone(names))) != len(names) {
				t.Errorf("fields %q are not sorted and unique", names)
			}
		}
		// A find after any write still reads every contact back.
		req = httptest.NewRequest(http.MethodPost, "/v1/integrations/developer/zapier/find-contact-action",
			strings.NewReader(`{"developerProvider":"zapier","id":"`+e.ws.ID+`"}`))
		req.Header.Set("Authorization", "Bearer "+e.token)
		req.Header.Set("Content-Type", "application/json")
		rec = httptest.NewRecorder()
		h.ServeHTTP(rec, req)
		if rec.Code != http.StatusOK {
			t.Fatalf("find-contact after %s %q answered %d: %s", action, body, rec.Code, rec.Body.Bytes())
		}
	})
}

// FuzzPastedNumbers: any pasted text gives E.164 numbers and non-empty bad pieces without a
// separator in them.
func FuzzPastedNumbers(f *testing.F) {
	for _, s := range []string{"+14155550130 +14155550131\n(415) 555-0132; 415 555 0133", "020 7183 8750", ",,;\r\n", "\t(415)\t555"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		numbers, bad := pastedNumbers(s, "US")
		for _, p := range bad {
			if strings.TrimSpace(p) == "" || strings.ContainsAny(p, ",;\r\n") {
				t.Fatalf("bad piece %q of %q", p, s)
			}
		}
		for _, n := range numbers {
			if !store.ValidE164(n) {
				t.Fatalf("number %q of %q is not E.164", n, s)
			}
		}
	})
}
