package web

import (
	"context"
	"encoding/json"
	"net/http"
	"net/url"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus"

	"switchboard/carrier"
	"switchboard/store"
)

// The carrier endpoints and what they change, seen through HTTP as a carrier or an integration
// meets them: the callbacks, list-messages-action and the message webhook payloads.

const (
	publicURL    = "https://switchboard.example.com" // what Twilio signs: the public URL, not the listener
	twilioToken  = "twilio-test-auth-token-0123456789"
	twilioNumber = "+14155550177" // env.ws's twilio number
	contactPhone = "+14155550142"
)

// carrierEnv is env with the carrier wired as serve wires it: a receiver, a twilio number on
// env.ws, and (when carriers are given) a running dispatcher sharing the /metrics registry.
type carrierEnv struct {
	*env
	twilioNum store.PhoneNumber
}

func newCarrierEnv(t *testing.T, carriers map[string]carrier.Carrier) *carrierEnv {
	t.Helper()
	var disp *carrier.Dispatcher
	var num store.PhoneNumber
	e := newEnvWith(t, Config{}, func(st *store.Store, cfg *Config) {
		reg := prometheus.NewRegistry()
		m := carrier.NewMetrics(reg, st)
		cfg.Registry, cfg.BaseURL, cfg.TwilioAuthToken = reg, publicURL, twilioToken
		cfg.Receiver = carrier.NewReceiver(st, m)
		ws, err := st.Workspaces()
		if err != nil || len(ws) == 0 {
			t.Fatalf("workspaces: %v", err)
		}
		var acme string
		for _, w := range ws {
			if w.Name == "Acme" {
				acme = w.ID
			}
		}
		num, err = st.CreateNumber(acme, store.NumberInput{Phone: twilioNumber, Name: "Twilio line", Carrier: store.ProviderTwilio})
		if err != nil {
			t.Fatalf("twilio number: %v", err)
		}
		if carriers != nil {
			disp = carrier.NewDispatcher(st, carrier.Options{Carriers: carriers, Metrics: m})
			st.SetHooks(store.Hooks{Outbox: disp.Wake})
			if err := disp.Start(); err != nil {
				t.Fatalf("dispatcher: %v", err)
			}
		}
	})
	if disp != nil {
		t.Cleanup(disp.Stop) // registered after env's cleanup, so it runs before the store closes
	}
	return &carrierEnv{env: e, twilioNum: num}
}

// callback posts form to path with the given X-Twilio-Signature ("" sends none).
func (e *carrierEnv) callback(t *testing.T, path string, form url.Values, sig string) resp {
	t.Helper()
	h := map[string]string{"Content-Type": "application/x-www-form-urlencoded"}
	if sig != "" {
		h["X-Twilio-Signature"] = sig
	}
	return e.do(t, http.MethodPost, e.srv.URL+path, h, []byte(form.Encode()))
}

// signed posts form to path signed as Twilio signs it: over the public URL.
func (e *carrierEnv) signed(t *testing.T, path string, form url.Values) resp {
	t.Helper()
	return e.callback(t, path, form, carrier.TwilioSignature(twilioToken, publicURL+path, form))
}

// wantTwiML checks a 200 text/xml answer with exactly body.
func wantTwiML(t *testing.T, r resp, body string) {
	t.Helper()
	if r.status != http.StatusOK {
		t.Fatalf("status %d, want 200; body %s", r.status, r.raw)
	}
	if ct := r.header.Get("Content-Type"); !strings.HasPrefix(ct, "text/xml") {
		t.Errorf("Content-Type %q, want text/xml", ct)
	}
	if string(r.raw) != body {
		t.Errorf("body %q, want %q", r.raw, body)
	}
}

func inboundForm(sid, from, to, body string) url.Values {
	return url.Values{"MessageSid": {sid}, "AccountSid": {"AC0123"}, "From": {from}, "To": {to}, "Body": {body}, "NumMedia": {"0"}}
}

// subscribe subscribes a (never called) hook of env.ws to event; its deliveries show what was
// emitted.
func (e *carrierEnv) subscribe(t *testing.T, event string) string {
	t.Helper()
	m := e.post(t, "subscribe-webhook", obj{"developerProvider": "zapier", "workspaceId": e.ws.ID, "eventName": event,
		"hookUrl": "https://hooks.example.com/" + event}).want(t, http.StatusCreated).object(t)
	return m["id"].(string)
}

// emitted returns the payloads queued for subscription sub, oldest first.
func (e *carrierEnv) emitted(t *testing.T, sub string) []map[string]any {
	t.Helper()
	ds, err := e.st.SubscriptionDeliveries(sub, 0)
	if err != nil {
		t.Fatal(err)
	}
	out := []map[string]any{}
	for i := len(ds) - 1; i >= 0; i-- {
		ev, err := e.st.Event(ds[i].EventID)
		if err != nil {
			t.Fatalf("event of delivery %s: %v", ds[i].ID, err)
		}
		var p map[string]any
		if err := json.Unmarshal(ev.Payload, &p); err != nil {
			t.Fatal(err)
		}
		out = append(out, p)
	}
	return out
}

// messages lists env.ws's messages through list-messages-action.
func (e *carrierEnv) messages(t *testing.T, fields obj) []map[string]any {
	t.Helper()
	var out []map[string]any
	e.post(t, "list-messages-action", e.body(fields)).want(t, http.StatusOK).decode(t, &out)
	return out
}

// outbox is the ready queue of env.ws's twilio number: what the dispatcher would send next.
func (e *carrierEnv) outbox(t *testing.T) []store.OutboxEntry {
	t.Helper()
	all, err := e.st.Outbox(1000)
	if err != nil {
		t.Fatal(err)
	}
	return all
}

// stubTwilio accepts every send as Twilio would, under a sid derived from the message id.
type stubTwilio struct {
	mu   sync.Mutex
	sent []carrier.Outbound
}

func (*stubTwilio) Name() string { return store.ProviderTwilio }

func (s *stubTwilio) Send(_ context.Context, m carrier.Outbound) (string, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.sent = append(s.sent, m)
	return "SM" + strings.ToLower(m.MessageID), nil
}

// waitStatus polls list-messages-action until message id has status (at most 5 s).
func (e *carrierEnv) waitStatus(t *testing.T, id, status string) map[string]any {
	t.Helper()
	deadline := time.Now().Add(5 * time.Second)
	var last map[string]any
	for {
		for _, m := range e.messages(t, obj{"limit": 100}) {
			if m["id"] == id {
				last = m
			}
		}
		if last != nil && last["status"] == status {
			return last
		}
		if time.Now().After(deadline) {
			t.Fatalf("message %s is %v, want status %s", id, last, status)
		}
		time.Sleep(10 * time.Millisecond)
	}
}
