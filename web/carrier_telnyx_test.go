package web

import (
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus"

	"switchboard/carrier"
	"switchboard/internal/testutil"
	"switchboard/store"
)

// Telnyx end to end: the real adapter sends to a local server speaking Telnyx's v2 wire format,
// and webhooks signed with a real Ed25519 key come back through POST /carrier/telnyx/webhook.

const (
	telnyxNumber = "+14155550188"
	telnyxKey    = "KEY_test_telnyx_0123456789"
)

// fakeTelnyxAPI is Telnyx's POST /v2/messages: it keeps each request body and answers with
// data.id, or with the error the test set for a recipient.
type fakeTelnyxAPI struct {
	mu     sync.Mutex
	sent   []map[string]any
	refuse map[string]string // recipient → error answer body (HTTP 400)
}

func (f *fakeTelnyxAPI) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	raw, _ := io.ReadAll(r.Body)
	var body map[string]any
	if r.URL.Path != "/v2/messages" || r.Header.Get("Authorization") != "Bearer "+telnyxKey || json.Unmarshal(raw, &body) != nil {
		w.WriteHeader(http.StatusUnauthorized)
		fmt.Fprint(w, `{"errors":[{"code":"10009","title":"Authentication failed"}]}`)
		return
	}
	f.mu.Lock()
	defer f.mu.Unlock()
	f.sent = append(f.sent, body)
	w.Header().Set("Content-Type", "application/json")
	if e, ok := f.refuse[body["to"].(string)]; ok {
		w.WriteHeader(http.StatusBadRequest)
		fmt.Fprint(w, e)
		return
	}
	fmt.Fprintf(w, `{"data":{"record_type":"message","id":"tx-%d","to":[{"phone_number":%q,"status":"queued"}]}}`, len(f.sent), body["to"])
}

func (f *fakeTelnyxAPI) sends() []map[string]any {
	f.mu.Lock()
	defer f.mu.Unlock()
	return append([]map[string]any(nil), f.sent...)
}

type telnyxEnv struct {
	*carrierEnv
	api *fakeTelnyxAPI
	key testutil.TelnyxKey
}

func newTelnyxEnv(t *testing.T) *telnyxEnv {
	t.Helper()
	key := testutil.NewTelnyxKey(t)
	api := &fakeTelnyxAPI{refuse: map[string]string{}}
	apiSrv := httptest.NewServer(api)
	t.Cleanup(apiSrv.Close)
	var disp *carrier.Dispatcher
	e := newEnvWith(t, Config{}, func(st *store.Store, cfg *Config) {
		reg := prometheus.NewRegistry()
		m := carrier.NewMetrics(reg, st)
		cfg.Registry, cfg.BaseURL, cfg.TelnyxPublicKey = reg, publicURL, key.Public
		cfg.Receiver = carrier.NewReceiver(st, m)
		ws, _ := st.Workspaces()
		var acme string
		for _, w := range ws {
			if w.Name == "Acme" {
				acme = w.ID
			}
		}
		if _, err := st.CreateNumber(acme, store.NumberInput{Phone: telnyxNumber, Name: "Telnyx line", Carrier: store.ProviderTelnyx}); err != nil {
			t.Fatalf("telnyx number: %v", err)
		}
		tx := carrier.NewTelnyx(carrier.TelnyxConfig{APIKey: telnyxKey, BaseURL: apiSrv.URL, WebhookURL: publicURL + "/carrier/telnyx/webhook"})
		disp = carrier.NewDispatcher(st, carrier.Options{Carriers: map[string]carrier.Carrier{store.ProviderTelnyx: tx, store.ProviderSandbox: carrier.Sandbox{}}, Metrics: m})
		st.SetHooks(store.Hooks{Outbox: disp.Wake})
		if err := disp.Start(); err != nil {
			t.Fatalf("dispatcher: %v", err)
		}
	})
	t.Cleanup(disp.Stop)
	return &telnyxEnv{carrierEnv: &carrierEnv{env: e}, api: api, key: key}
}

// webhookAt posts body to the Telnyx endpoint, signed with key at ts (nil key: no signature).
func (e *telnyxEnv) webhookAt(t *testing.T, key *testutil.TelnyxKey, ts time.Time, body string) resp {
	t.Helper()
	h := map[string]string{"Content-Type": "application/json"}
	if key != nil {
		h = key.Headers(ts, []byte(body))
	}
	return e.do(t, http.MethodPost, e.srv.URL+"/carrier/telnyx/webhook", h, []byte(body))
}

func (e *telnyxEnv) webhook(t *testing.T, body string) resp {
	t.Helper()
	r := e.webhookAt(t, &e.key, time.Now(), body)
	if r.status != http.StatusOK || r.header.Get("Content-Type") != "application/json" {
		t.Fatalf("signed webhook answered %d %q: %s", r.status, r.header.Get("Content-Type"), r.raw)
	}
	return r
}

func telnyxInbound(id, from, text string, media ...string) string {
	items := make([]string, len(media))
	for i, u := range media {
		items[i] = fmt.Sprintf(`{"url":%q,"content_type":"image/jpeg","size":2048}`, u)
	}
	return fmt.Sprintf(`{"data":{"event_type":"message.received","id":"ev-%s","occurred_at":"2026-11-25T12:00:00.000+00:00","record_type":"event",`+
		`"payload":{"id":%q,"direction":"inbound","type":"MMS","text":%q,"from":{"phone_number":%q,"carrier":"T-Mobile"},`+
		`"to":[{"phone_number":%q,"status":"webhook_delivered"}],"media":[%s]}},"meta":{"attempt":1}}`,
		id, id, text, from, telnyxNumber, strings.Join(items, ","))
}

func telnyxReceipt(event, id, status, code string) string {
	errs := "[]"
	if code != "" {
		errs = fmt.Sprintf(`[{"code":%q,"title":"Message failed","detail":"…"}]`, code)
	}
	return fmt.Sprintf(`{"data":{"event_type":%q,"id":"ev-%s-%s","record_type":"event","payload":{"id":%q,"direction":"outbound",`+
		`"to":[{"phone_number":%q,"status":%q}],"errors":%s}}}`, event, id, status, id, contactPhone, status, errs)
}

func TestTelnyxSendAndReceipts(t *testing.T) {
	e := newTelnyxEnv(t)
	failedSub := e.subscribe(t, "message.failed")
	send := func(to, text string) map[string]any {
		m := e.post(t, "send-message-action", e.body(obj{"from": telnyxNumber, "to": to, "text": text,
			"mediaUrl": "https://cdn.example.com/menu.jpg"})).want(t, http.StatusAccepted).object(t)
		return m
	}
	m := send(contactPhone, "Your table is ready")
	sent := e.waitStatus(t, m["id"].(string), "sent")
	req := e.api.sends()[0]
	want := map[string]any{"from": telnyxNumber, "to": contactPhone, "text": "Your table is ready",
		"media_urls": []any{"https://cdn.example.com/menu.jpg"}, "webhook_url": publicURL + "/carrier/telnyx/webhook"}
	if fmt.Sprint(req) != fmt.Sprint(want) {
		t.Fatalf("Telnyx got %v, want %v", req, want)
	}
	providerID := "tx-1"
	if msg, _ := e.st.Message(e.ws.ID, sent["id"].(string)); msg.ProviderID != providerID || msg.Provider != store.ProviderTelnyx {
		t.Fatalf("message provider %q id %q, want telnyx %q", msg.Provider, msg.ProviderID, providerID)
	}

	// Receipts: message.sent changes nothing new, message.finalized delivered delivers.
	e.webhook(t, telnyxReceipt("message.sent", providerID, "sent", ""))
	e.webhook(t, telnyxReceipt("message.finalized", providerID, "delivered", ""))
	e.waitStatus(t, m["id"].(string), "delivered")

	// A failure names Telnyx's code.
	m2 := send("+14155550143", "second")
	e.waitStatus(t, m2["id"].(string), "sent")
	e.webhook(t, telnyxReceipt("message.finalized", "tx-2", "delivery_failed", "40002"))
	e.waitStatus(t, m2["id"].(string), "failed")
	if msg, _ := e.st.Message(e.ws.ID, m2["id"].(string)); msg.ProviderErr != "telnyx 40002" {
		t.Fatalf("providerErr %q, want telnyx 40002", msg.ProviderErr)
	}
	// A late receipt does not move it back.
	e.webhook(t, telnyxReceipt("message.finalized", "tx-2", "delivered", ""))
	if msg, _ := e.st.Message(e.ws.ID, m2["id"].(string)); msg.Status != store.MessageFailed {
		t.Fatalf("status %q after a late receipt, want failed", msg.Status)
	}

	// 40300: the recipient sent STOP at the carrier: the send fails and an opt-out is recorded.
	stopped := "+14155550144"
	e.api.mu.Lock()
	e.api.refuse[stopped] = `{"errors":[{"code":"40300","title":"Blocked due to STOP message","detail":"Messages cannot be sent."}]}`
	e.api.mu.Unlock()
	m3 := send(stopped, "third")
	e.waitStatus(t, m3["id"].(string), "failed")
	if msg, _ := e.st.Message(e.ws.ID, m3["id"].(string)); msg.ProviderErr != "telnyx 40300: Blocked due to STOP message" {
		t.Fatalf("providerErr %q", msg.ProviderErr)
	}
	opts, err := e.st.OptOuts(e.ws.ID)
	if err != nil || len(opts) != 1 || opts[0].Phone != stopped || opts[0].Reason != store.OptOutCarrier {
		t.Fatalf("opt-outs %+v (%v), want %s with reason carrier", opts, err, stopped)
	}
	if p := e.emitted(t, failedSub); len(p) != 2 {
		t.Fatalf("message.failed payloads %d, want 2", len(p))
	}
}

func TestTelnyxInboundAndKeywords(t *testing.T) {
	e := newTelnyxEnv(t)
	sub := e.subscribe(t, "message.received")
	optSub := e.subscribe(t, "opt_out.created")
	body := telnyxInbound("in-1", contactPhone, "Here is the receipt", "https://media.telnyx.example/r.jpg")
	e.webhook(t, body)
	e.webhook(t, body) // Telnyx retries: recorded once
	msgs := e.messages(t, obj{"direction": "inbound"})
	if len(msgs) != 1 {
		t.Fatalf("inbound messages %v, want one", msgs)
	}
	wantField(t, msgs[0], "from", contactPhone)
	wantField(t, msgs[0], "to", telnyxNumber)
	wantField(t, msgs[0], "text", "Here is the receipt")
	if stored, err := e.st.Message(e.ws.ID, msgs[0]["id"].(string)); err != nil || fmt.Sprint(stored.Media) != "[https://media.telnyx.example/r.jpg]" {
		t.Fatalf("stored media %v (%v), want the URL Telnyx gave", stored.Media, err)
	}
	if c, err := e.st.ContactByPhone(e.ws.ID, contactPhone); err != nil || c.Source != store.SourceInbound {
		t.Fatalf("contact %+v %v, want one made from the inbound text", c, err)
	}
	if p := e.emitted(t, sub); len(p) != 1 || p[0]["id"] != msgs[0]["id"] {
		t.Fatalf("message.received payloads %v, want one", p)
	}

	// STOP: an opt-out with reason keyword and the confirmation sent through Telnyx.
	e.webhook(t, telnyxInbound("in-2", contactPhone, " Stop "))
	opts, _ := e.st.OptOuts(e.ws.ID)
	if len(opts) != 1 || opts[0].Reason != store.OptOutKeyword {
		t.Fatalf("opt-outs %+v, want one with reason keyword", opts)
	}
	if p := e.emitted(t, optSub); len(p) != 1 {
		t.Fatalf("opt_out.created payloads %v, want one", p)
	}
	stopReply := strings.ReplaceAll(store.DefaultStopReply, "%s", "Acme")
	deadline := time.Now().Add(5 * time.Second)
	for {
		s := e.api.sends()
		if len(s) == 1 && s[0]["text"] == stopReply && s[0]["to"] == contactPhone && s[0]["from"] == telnyxNumber {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("Telnyx sends %v, want the STOP confirmation %q", s, stopReply)
		}
		time.Sleep(10 * time.Millisecond)
	}
	e.webhook(t, telnyxInbound("in-3", contactPhone, "START"))
	if out, _ := e.st.IsOptedOut(e.ws.ID, contactPhone); out {
		t.Fatal("START did not remove the opt-out")
	}
}

func TestTelnyxWebhookRefused(t *testing.T) {
	e := newTelnyxEnv(t)
	otherKey := testutil.NewTelnyxKey(t)
	body := telnyxInbound("in-x", contactPhone, "hello")
	cases := []struct {
		name   string
		r      func() resp
		status int
	}{
		{"no signature", func() resp { return e.webhookAt(t, nil, time.Now(), body) }, http.StatusForbidden},
		{"another key", func() resp { return e.webhookAt(t, &otherKey, time.Now(), body) }, http.StatusForbidden},
		{"stale timestamp", func() resp { return e.webhookAt(t, &e.key, time.Now().Add(-6*time.Minute), body) }, http.StatusForbidden},
		{"body changed after signing", func() resp {
			return e.do(t, http.MethodPost, e.srv.URL+"/carrier/telnyx/webhook", e.key.Headers(time.Now(), []byte(body)),
				[]byte(strings.Replace(body, "hello", "STOP", 1)))
		}, http.StatusForbidden},
		{"signed JSON that is no Telnyx event", func() resp { return e.webhookAt(t, &e.key, time.Now(), `{"hello":"world"}`) }, http.StatusBadRequest},
		{"signed text that is no JSON", func() resp { return e.webhookAt(t, &e.key, time.Now(), `From=+14155550142`) }, http.StatusBadRequest},
	}
	for _, c := range cases {
		r := c.r()
		if r.status != c.status {
			t.Errorf("%s: %d %s, want %d", c.name, r.status, r.raw, c.status)
		}
		if strings.Contains(string(r.raw), telnyxKey) || strings.Contains(string(r.raw), contactPhone) {
			t.Errorf("%s: the answer leaks something: %s", c.name, r.raw)
		}
	}
	if msgs := e.messages(t, obj{}); len(msgs) != 0 {
		t.Fatalf("refused webhooks stored %v", msgs)
	}
	if _, err := e.st.ContactByPhone(e.ws.ID, contactPhone); err == nil {
		t.Fatal("a refused webhook made a contact")
	}
	// Texts for a number that is not on Telnyx here, and events we do not act on: 200, nothing stored.
	other := strings.Replace(body, telnyxNumber, fromNumber, 1)
	e.webhook(t, other)
	e.webhook(t, `{"data":{"event_type":"call.initiated","payload":{"call_control_id":"x"}}}`)
	if msgs := e.messages(t, obj{}); len(msgs) != 0 {
		t.Fatalf("stored %v, want nothing", msgs)
	}
}
