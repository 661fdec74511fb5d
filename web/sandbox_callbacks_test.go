package web

import (
	"net/http"
	"net/url"
	"slices"
	"strings"
	"testing"

	"switchboard/store"
)

// The sandbox carrier's callbacks, which stand in for a carrier in trials and tests.

func TestSandboxInbound(t *testing.T) {
	e := newCarrierEnv(t, nil)
	sub := e.subscribe(t, "message.received")
	calls := e.subscribe(t, "call.received")
	post := func(path, token string, form url.Values) resp {
		h := map[string]string{"Content-Type": "application/x-www-form-urlencoded"}
		if token != "" {
			h["Authorization"] = "Bearer " + token
		}
		return e.do(t, http.MethodPost, e.srv.URL+path, h, []byte(form.Encode()))
	}
	text := url.Values{"From": {contactPhone}, "To": {fromNumber}, "Body": {"hello from the sandbox"}}
	call := url.Values{"From": {contactPhone}, "To": {fromNumber}}
	for _, path := range []string{"/carrier/sandbox/sms", "/carrier/sandbox/voice"} {
		form := text
		if strings.HasSuffix(path, "voice") {
			form = call
		}
		with := func(k, v string) url.Values {
			f := url.Values{}
			for kk, vv := range form {
				f[kk] = vv
			}
			if v == "" {
				f.Del(k)
			} else {
				f.Set(k, v)
			}
			return f
		}
		t.Run(path, func(t *testing.T) {
			r := post(path, "", form)
			if r.status != http.StatusUnauthorized || !strings.HasPrefix(r.header.Get("WWW-Authenticate"), "Bearer") {
				t.Errorf("no token: %d %s, want 401 with a Bearer challenge", r.status, r.raw)
			}
			post(path, "sbp_not-a-token", form).want(t, http.StatusUnauthorized)
			post(path, e.otherToken, form).want(t, http.StatusForbidden).errorText(t)
			post(path, e.token, with("To", "+14155550999")).want(t, http.StatusNotFound).errorText(t)
			post(path, e.token, with("To", twilioNumber)).want(t, http.StatusUnprocessableEntity).errorText(t)
			if f := post(path, e.token, with("From", "")).fields(t); !slices.Equal(f, []string{"From"}) {
				t.Errorf("missing From: fields %q, want [From]", f)
			}
		})
	}
	if n := len(e.messages(t, obj{})); n != 0 {
		t.Fatalf("refused sandbox calls stored %d messages", n)
	}
	if p := e.emitted(t, calls); len(p) != 0 {
		t.Fatalf("refused sandbox calls emitted %v", p)
	}

	wantTwiML(t, post("/carrier/sandbox/sms", e.token, text), "<Response></Response>")
	msgs := e.messages(t, obj{})
	if len(msgs) != 1 {
		t.Fatalf("%d messages after a sandbox inbound, want 1", len(msgs))
	}
	wantField(t, msgs[0], "direction", "inbound")
	wantField(t, msgs[0], "status", "received")
	wantField(t, msgs[0], "from", contactPhone)
	wantField(t, msgs[0], "to", fromNumber)
	wantField(t, msgs[0], "text", "hello from the sandbox")
	if p := e.emitted(t, sub); len(p) != 1 || p[0]["id"] != msgs[0]["id"] {
		t.Errorf("message.received payloads %v, want one for the sandbox text", p)
	}
	// Without a MessageSid every play is a new text.
	wantTwiML(t, post("/carrier/sandbox/sms", e.token, text), "<Response></Response>")
	if n := len(e.messages(t, obj{})); n != 2 {
		t.Errorf("%d messages after a second sandbox text, want 2", n)
	}

	wantTwiML(t, post("/carrier/sandbox/voice", e.token, call), "<Response><Say>"+store.DefaultVoiceGreeting+"</Say></Response>")
	if p := e.emitted(t, calls); len(p) != 1 || p[0]["from"] != contactPhone {
		t.Errorf("call.received payloads %v, want one from %s", p, contactPhone)
	}
}

// The sandbox endpoint names the form's own field when the sender is no phone number.
func TestSandboxInboundBadSender(t *testing.T) {
	e := newCarrierEnv(t, nil)
	h := map[string]string{"Content-Type": "application/x-www-form-urlencoded", "Authorization": "Bearer " + e.token}
	for _, from := range []string{"ACME", "415 555 0142", "+0123"} {
		form := url.Values{"From": {from}, "To": {fromNumber}, "Body": {"hi"}}
		r := e.do(t, http.MethodPost, e.srv.URL+"/carrier/sandbox/sms", h, []byte(form.Encode()))
		if f := r.fields(t); !slices.Equal(f, []string{"From"}) {
			t.Errorf("From %q: fields %q, want [From]", from, f)
		}
	}
	if msgs := e.messages(t, obj{}); len(msgs) != 0 {
		t.Errorf("bad senders were stored: %v", msgs)
	}
}
