package carrier_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"switchboard/carrier"
	"switchboard/internal/testutil"
)

const telnyxTestKey = "KEY0123456789abcdef_telnyx_secret"

// fakeTelnyx speaks Telnyx's v2 Messaging API: it checks the request as Telnyx would (bearer key,
// JSON body) and answers with what the test set, recording each body.
type fakeTelnyx struct {
	mu       sync.Mutex
	bodies   []map[string]any
	problems []string
	answer   func(w http.ResponseWriter, r *http.Request)
}

func (f *fakeTelnyx) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	var problems []string
	if r.Method != http.MethodPost || r.URL.Path != "/v2/messages" {
		problems = append(problems, fmt.Sprintf("%s %s, want POST /v2/messages", r.Method, r.URL.Path))
	}
	if ct := r.Header.Get("Content-Type"); ct != "application/json" {
		problems = append(problems, fmt.Sprintf("Content-Type %q, want application/json", ct))
	}
	var body map[string]any
	raw, _ := io.ReadAll(r.Body)
	if err := json.Unmarshal(raw, &body); err != nil {
		problems = append(problems, "body is not JSON: "+string(raw))
	}
	f.mu.Lock()
	f.bodies = append(f.bodies, body)
	f.problems = append(f.problems, problems...)
	f.mu.Unlock()
	if r.Header.Get("Authorization") != "Bearer "+telnyxTestKey {
		telnyxAnswer(http.StatusUnauthorized, `{"errors":[{"code":"10009","title":"Authentication failed","detail":"The API key is invalid."}]}`)(w, r)
		return
	}
	f.answer(w, r)
}

func telnyxAnswer(status int, body string, headers ...string) func(http.ResponseWriter, *http.Request) {
	return func(w http.ResponseWriter, _ *http.Request) {
		for i := 0; i+1 < len(headers); i += 2 {
			w.Header().Set(headers[i], headers[i+1])
		}
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(status)
		fmt.Fprint(w, body)
	}
}

func newFakeTelnyx(t *testing.T, answer func(http.ResponseWriter, *http.Request)) (*fakeTelnyx, *carrier.Telnyx) {
	t.Helper()
	f := &fakeTelnyx{answer: answer}
	srv := httptest.NewServer(f)
	t.Cleanup(srv.Close)
	t.Cleanup(func() {
		f.mu.Lock()
		defer f.mu.Unlock()
		for _, p := range f.problems {
			t.Errorf("fake Telnyx saw: %s", p)
		}
	})
	return f, carrier.NewTelnyx(carrier.TelnyxConfig{APIKey: telnyxTestKey, BaseURL: srv.URL + "/",
		WebhookURL: "https://switchboard.example.com/carrier/telnyx/webhook"})
}

const telnyxAccepted = `{"data":{"record_type":"message","direction":"outbound","id":"40385f64-5717-4562-b3fc-2c963f66afa6",
"type":"MMS","from":{"phone_number":"+14155550100","carrier":"Telnyx","line_type":"VoIP"},
"to":[{"phone_number":"+14155550142","status":"queued","carrier":"T-MOBILE USA, INC.","line_type":"Wireless"}],
"text":"Hello","media":[{"url":"https://example.com/a.jpg","content_type":null,"sha256":null,"size":null}],
"webhook_url":"https://switchboard.example.com/carrier/telnyx/webhook","encoding":"GSM-7","parts":1,"cost":null}}`

func TestTelnyxSendAccepted(t *testing.T) {
	f, tx := newFakeTelnyx(t, telnyxAnswer(http.StatusOK, telnyxAccepted))
	id, err := tx.Send(context.Background(), carrier.Outbound{MessageID: "m1", From: "+14155550100", To: "+14155550142",
		Text: "Hello", Media: []string{"https://example.com/a.jpg"}})
	if err != nil || id != "40385f64-5717-4562-b3fc-2c963f66afa6" {
		t.Fatalf("Send = %q, %v; want data.id", id, err)
	}
	got := f.bodies[0]
	want := map[string]any{"from": "+14155550100", "to": "+14155550142", "text": "Hello",
		"media_urls": []any{"https://example.com/a.jpg"}, "webhook_url": "https://switchboard.example.com/carrier/telnyx/webhook"}
	if fmt.Sprint(got) != fmt.Sprint(want) {
		t.Fatalf("request body %v, want %v", got, want)
	}
	// Media only: no text field at all.
	if _, err := tx.Send(context.Background(), carrier.Outbound{From: "+14155550100", To: "+14155550142", Media: []string{"https://example.com/b.png"}}); err != nil {
		t.Fatal(err)
	}
	if _, has := f.bodies[1]["text"]; has {
		t.Fatalf("a media-only send carried text: %v", f.bodies[1])
	}
}

func TestTelnyxSendOutcomes(t *testing.T) {
	cases := []struct {
		name         string
		answer       func(http.ResponseWriter, *http.Request)
		permanent    string // the providerErr, "" for transient
		unsubscribed bool
		retryAfter   time.Duration
	}{
		{"invalid destination", telnyxAnswer(422, `{"errors":[{"code":"40310","title":"Invalid 'to' address","detail":"The 'to' address should be in E.164 format."}]}`),
			"telnyx 40310: Invalid 'to' address", false, 0},
		{"blocked by STOP", telnyxAnswer(400, `{"errors":[{"code":"40300","title":"Blocked due to STOP message","detail":"Messages cannot be sent to this number."}]}`),
			"telnyx 40300: Blocked due to STOP message", true, 0},
		{"numeric code", telnyxAnswer(403, `{"errors":[{"code":40013,"title":"Invalid source number"}]}`),
			"telnyx 40013: Invalid source number", false, 0},
		{"bad key", nil, "telnyx 10009: Authentication failed", false, 0},
		{"rate limited", telnyxAnswer(429, `{"errors":[{"code":"10011","title":"Too many requests"}]}`, "Retry-After", "7"), "", false, 7 * time.Second},
		{"server error", telnyxAnswer(503, `upstream down`), "", false, 0},
		{"4xx not in Telnyx's shape", telnyxAnswer(404, `<html>not found</html>`), "", false, 0},
		{"2xx without an id", telnyxAnswer(200, `{"data":{}}`), "", false, 0},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			_, tx := newFakeTelnyx(t, c.answer)
			if c.answer == nil { // a wrong key
				tx = carrier.NewTelnyx(carrier.TelnyxConfig{APIKey: "wrong-key", BaseURL: telnyxURL(t)})
			}
			_, err := tx.Send(context.Background(), carrier.Outbound{From: "+14155550100", To: "+14155550142", Text: "hi"})
			if err == nil {
				t.Fatal("Send succeeded")
			}
			p, perm := carrier.Permanent(err)
			switch {
			case c.permanent != "" && (!perm || p.Reason != c.permanent || p.Unsubscribed != c.unsubscribed):
				t.Fatalf("err = %#v, want permanent %q unsubscribed=%v", err, c.permanent, c.unsubscribed)
			case c.permanent == "" && perm:
				t.Fatalf("err = %v, want transient", err)
			case carrier.RetryAfter(err) != c.retryAfter:
				t.Fatalf("retry after %v, want %v", carrier.RetryAfter(err), c.retryAfter)
			}
			if strings.Contains(err.Error(), telnyxTestKey) {
				t.Fatalf("error leaks the API key: %v", err)
			}
		})
	}
}

func telnyxURL(t *testing.T) string {
	f := &fakeTelnyx{answer: telnyxAnswer(200, telnyxAccepted)}
	srv := httptest.NewServer(f)
	t.Cleanup(srv.Close)
	return srv.URL
}

func TestTelnyxSendNetworkError(t *testing.T) {
	srv := httptest.NewServer(http.NotFoundHandler())
	base := srv.URL
	srv.Close() // nothing listens there now
	tx := carrier.NewTelnyx(carrier.TelnyxConfig{APIKey: telnyxTestKey, BaseURL: base})
	_, err := tx.Send(context.Background(), carrier.Outbound{From: "+14155550100", To: "+14155550142", Text: "hi"})
	if _, perm := carrier.Permanent(err); err == nil || perm {
		t.Fatalf("err = %v, want transient", err)
	}
}

func TestTelnyxSignature(t *testing.T) {
	key := testutil.NewTelnyxKey(t)
	pub := key.Public
	parsed, err := carrier.ParseTelnyxPublicKey(key.PublicBase64())
	if err != nil || !parsed.Equal(pub) {
		t.Fatalf("ParseTelnyxPublicKey: %v", err)
	}
	if _, err := carrier.ParseTelnyxPublicKey("c2hvcnQ="); err == nil {
		t.Fatal("a 5-byte key was accepted")
	}
	other := testutil.NewTelnyxKey(t)
	now := time.Unix(1_800_000_000, 0)
	body := []byte(`{"data":{"event_type":"message.sent","payload":{"id":"x"}}}`)
	ts, sig := key.Sign(now, body)
	if err := carrier.VerifyTelnyxSignature(pub, body, ts, sig, now.Add(time.Minute)); err != nil {
		t.Fatalf("a valid signature was refused: %v", err)
	}
	otherTS, otherSig := other.Sign(now, body)
	staleTS, staleSig := key.Sign(now.Add(-6*time.Minute), body)
	futureTS, futureSig := key.Sign(now.Add(6*time.Minute), body)
	refused := map[string][4]string{
		"no signature":        {ts, "", string(body)},
		"no timestamp":        {"", sig, string(body)},
		"another key":         {otherTS, otherSig, string(body)},
		"body changed":        {ts, sig, strings.Replace(string(body), "sent", "finalized", 1)},
		"timestamp changed":   {strconv.FormatInt(now.Unix()+1, 10), sig, string(body)},
		"stale":               {staleTS, staleSig, string(body)},
		"from the future":     {futureTS, futureSig, string(body)},
		"signature not b64":   {ts, "!!!", string(body)},
		"timestamp not a num": {"soon", sig, string(body)},
	}
	for name, c := range refused {
		if err := carrier.VerifyTelnyxSignature(pub, []byte(c[2]), c[0], c[1], now); !errors.Is(err, carrier.ErrTelnyxSignature) {
			t.Errorf("%s: err = %v, want ErrTelnyxSignature", name, err)
		}
	}
	if err := carrier.VerifyTelnyxSignature(nil, body, ts, sig, now); err == nil {
		t.Error("no configured key accepted a webhook")
	}
}

func TestParseTelnyxEvent(t *testing.T) {
	inbound := `{"data":{"event_type":"message.received","id":"e1","occurred_at":"2026-11-25T12:00:00.000+00:00","record_type":"event",
	"payload":{"id":"b301ed3f-1490-491f-995f-6e64e69674d4","direction":"inbound","type":"MMS","text":"Look",
	"from":{"phone_number":"+14155550142","carrier":"T-Mobile","line_type":"Wireless"},
	"to":[{"phone_number":"+14155550100","status":"webhook_delivered"}],
	"media":[{"url":"https://media.telnyx.com/a.jpg","content_type":"image/jpeg","size":1000},{"url":"javascript:alert(1)"}]}},
	"meta":{"attempt":1,"delivered_to":"https://switchboard.example.com/carrier/telnyx/webhook"}}`
	ev, err := carrier.ParseTelnyxEvent([]byte(inbound))
	if err != nil {
		t.Fatal(err)
	}
	want := carrier.InboundSMS{MessageSID: "b301ed3f-1490-491f-995f-6e64e69674d4", From: "+14155550142", To: "+14155550100",
		Text: "Look", Media: []string{"https://media.telnyx.com/a.jpg"}}
	if ev.Type != "message.received" || fmt.Sprint(ev.SMS) != fmt.Sprint(want) {
		t.Fatalf("inbound = %+v, want %+v", ev, want)
	}
	receipts := map[string]carrier.StatusUpdate{
		`{"data":{"event_type":"message.sent","payload":{"id":"m1","to":[{"phone_number":"+1","status":"sent"}]}}}`:                                                   {MessageSID: "m1", Status: "sent"},
		`{"data":{"event_type":"message.finalized","payload":{"id":"m1","to":[{"phone_number":"+1","status":"delivered"}]}}}`:                                         {MessageSID: "m1", Status: "delivered"},
		`{"data":{"event_type":"message.finalized","payload":{"id":"m1","to":[{"status":"delivery_failed"}],"errors":[{"code":"40002","title":"Blocked as spam"}]}}}`: {MessageSID: "m1", Status: "failed", ErrorCode: "40002"},
		`{"data":{"event_type":"message.finalized","payload":{"id":"m1","to":[{"status":"sending_failed"}],"errors":[]}}}`:                                            {MessageSID: "m1", Status: "failed", ErrorCode: "sending_failed"},
		`{"data":{"event_type":"message.finalized","payload":{"id":"m1","to":[{"status":"delivery_unconfirmed"}]}}}`:                                                  {MessageSID: "m1", Status: ""},
	}
	for body, want := range receipts {
		ev, err := carrier.ParseTelnyxEvent([]byte(body))
		if err != nil || ev.Status != want {
			t.Errorf("%s: %+v %v, want %+v", body, ev.Status, err, want)
		}
	}
	for _, body := range []string{``, `[]`, `{"data":{}}`, `{"data":{"event_type":"message.sent"}}`, `{"data":{"event_type":"message.sent","payload":"x"}}`, `<xml/>`} {
		if _, err := carrier.ParseTelnyxEvent([]byte(body)); !errors.Is(err, carrier.ErrNotTelnyxEvent) {
			t.Errorf("%q: err = %v, want ErrNotTelnyxEvent", body, err)
		}
	}
	var pe *carrier.ParseError
	if _, err := carrier.ParseTelnyxEvent([]byte(`{"data":{"event_type":"message.received","payload":{"id":"m","from":{"phone_number":"+1415"},"to":[{"phone_number":"nope"}]}}}`)); !errors.As(err, &pe) || pe.Field != "data.payload.to[0].phone_number" {
		t.Errorf("bad To: err = %v, want a ParseError naming data.payload.to[0].phone_number", err)
	}
	if ev, err := carrier.ParseTelnyxEvent([]byte(`{"data":{"event_type":"call.initiated","payload":{}}}`)); err != nil || ev.Type != "call.initiated" {
		t.Errorf("another event type: %+v %v, want it passed through to be ignored", ev, err)
	}
}

// FuzzParseTelnyxEvent: no body panics, and what parses is usable (an inbound message has an E.164
// To and only http(s) media).
func FuzzParseTelnyxEvent(f *testing.F) {
	f.Add(`{"data":{"event_type":"message.received","payload":{"id":"m","from":{"phone_number":"+14155550142"},"to":[{"phone_number":"+14155550100"}],"text":"STOP","media":[{"url":"https://x.test/a"}]}}}`)
	f.Add(`{"data":{"event_type":"message.finalized","payload":{"id":"m","to":[{"status":"delivery_failed"}],"errors":[{"code":40300}]}}}`)
	f.Add(`{"data":{"event_type":"message.sent","payload":{"id":"","to":null}}}`)
	f.Add(`{"data":null}`)
	f.Fuzz(func(t *testing.T, body string) {
		ev, err := carrier.ParseTelnyxEvent([]byte(body))
		if err != nil || ev.Type != carrier.TelnyxMessageReceived {
			return
		}
		if !strings.HasPrefix(ev.SMS.To, "+") || ev.SMS.MessageSID == "" || ev.SMS.From == "" {
			t.Fatalf("parsed an unusable inbound message: %+v", ev.SMS)
		}
		for _, m := range ev.SMS.Media {
			if !strings.HasPrefix(m, "http://") && !strings.HasPrefix(m, "https://") {
				t.Fatalf("media URL %q kept", m)
			}
		}
	})
}
