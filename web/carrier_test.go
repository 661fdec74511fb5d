package web

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/twilio/twilio-go/client"

	"switchboard/carrier"
	"switchboard/store"
)

// The carrier endpoints and what they change, seen through HTTP as a carrier or an integration
// meets them (DESIGN §7, §3 list-messages-action, §6 Message payload).

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
			st.OnOutbox(disp.Wake)
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

func TestTwilioInboundSMS(t *testing.T) {
	e := newCarrierEnv(t, nil)
	sub := e.subscribe(t, "message.received")
	path := "/carrier/twilio/sms"
	form := inboundForm("SM0001aaaabbbbccccddddeeeeffff0001", contactPhone, twilioNumber, "Is the shop open Sunday?")
	form.Set("NumMedia", "1")
	form.Set("MediaUrl0", "https://api.twilio.com/2010-04-01/Accounts/AC0123/Messages/MM1/Media/ME1")
	sig := carrier.TwilioSignature(twilioToken, publicURL+path, form)
	// The signature we send is the one Twilio would send: twilio-go's validator accepts it.
	validator := client.NewRequestValidator(twilioToken)
	if !validator.Validate(publicURL+path, map[string]string{
		"MessageSid": form.Get("MessageSid"), "AccountSid": "AC0123", "From": contactPhone, "To": twilioNumber,
		"Body": form.Get("Body"), "NumMedia": "1", "MediaUrl0": form.Get("MediaUrl0"),
	}, sig) {
		t.Fatalf("twilio-go's RequestValidator rejects the signature %q: the test signs wrongly", sig)
	}

	wantTwiML(t, e.callback(t, path, form, sig), "<Response></Response>")

	c, err := e.st.ContactByPhone(e.ws.ID, contactPhone)
	if err != nil {
		t.Fatalf("no contact for the sender: %v", err)
	}
	if c.Source != store.SourceInbound {
		t.Errorf("contact source %q, want inbound", c.Source)
	}
	msgs := e.messages(t, obj{})
	if len(msgs) != 1 {
		t.Fatalf("%d messages listed, want the inbound one: %v", len(msgs), msgs)
	}
	m := msgs[0]
	wantField(t, m, "direction", "inbound")
	wantField(t, m, "status", "received")
	wantField(t, m, "from", contactPhone)
	wantField(t, m, "to", twilioNumber)
	wantField(t, m, "text", "Is the shop open Sunday?")
	if p := e.emitted(t, sub); len(p) != 1 || p[0]["id"] != m["id"] || p[0]["status"] != "received" {
		t.Errorf("message.received payloads %v, want one for %v with status received", p, m["id"])
	}

	// Twilio retries: the same MessageSid again is answered alike and recorded once.
	wantTwiML(t, e.signed(t, path, form), "<Response></Response>")
	if n := len(e.messages(t, obj{})); n != 1 {
		t.Errorf("%d messages after a repeated MessageSid, want 1", n)
	}
	if n := len(e.emitted(t, sub)); n != 1 {
		t.Errorf("%d message.received events after a repeated MessageSid, want 1", n)
	}
}

func TestTwilioCallbackSignatureRefused(t *testing.T) {
	e := newCarrierEnv(t, nil)
	sub := e.subscribe(t, "message.received")
	calls := e.subscribe(t, "call.received")
	sms := inboundForm("SM0002aaaabbbbccccddddeeeeffff0002", contactPhone, twilioNumber, "hello")
	voice := url.Values{"CallSid": {"CA0002"}, "From": {contactPhone}, "To": {twilioNumber}}
	for _, c := range []struct {
		name, path string
		form       url.Values
		sig        string
	}{
		{"sms without signature", "/carrier/twilio/sms", sms, ""},
		{"sms signed with another token", "/carrier/twilio/sms", sms, carrier.TwilioSignature("not-the-token", publicURL+"/carrier/twilio/sms", sms)},
		{"sms signed for another URL", "/carrier/twilio/sms", sms, carrier.TwilioSignature(twilioToken, "http://127.0.0.1/carrier/twilio/sms", sms)},
		{"sms signed over other fields", "/carrier/twilio/sms", sms, carrier.TwilioSignature(twilioToken, publicURL+"/carrier/twilio/sms", inboundForm("SM0002aaaabbbbccccddddeeeeffff0002", contactPhone, twilioNumber, "hellO"))},
		{"sms with garbage signature", "/carrier/twilio/sms", sms, "bm90IGEgc2lnbmF0dXJl"},
		{"voice without signature", "/carrier/twilio/voice", voice, ""},
		{"voice wrongly signed", "/carrier/twilio/voice", voice, carrier.TwilioSignature("not-the-token", publicURL+"/carrier/twilio/voice", voice)},
		{"status without signature", "/carrier/twilio/status", url.Values{"MessageSid": {"SMx"}, "MessageStatus": {"delivered"}}, ""},
	} {
		t.Run(c.name, func(t *testing.T) {
			r := e.callback(t, c.path, c.form, c.sig)
			if r.status != http.StatusForbidden {
				t.Fatalf("status %d, want 403; body %s", r.status, r.raw)
			}
		})
	}
	// A body that is no form carries no valid signature either.
	r := e.do(t, http.MethodPost, e.srv.URL+"/carrier/twilio/sms", map[string]string{
		"Content-Type": "application/x-www-form-urlencoded", "X-Twilio-Signature": "bm90IGEgc2lnbmF0dXJl"}, []byte("%zz=%"))
	if r.status != http.StatusForbidden {
		t.Errorf("an unparseable body: status %d, want 403; body %s", r.status, r.raw)
	}
	if msgs := e.messages(t, obj{}); len(msgs) != 0 {
		t.Errorf("refused callbacks stored messages: %v", msgs)
	}
	if _, err := e.st.ContactByPhone(e.ws.ID, contactPhone); err == nil {
		t.Error("a refused callback created the contact")
	}
	if p := e.emitted(t, sub); len(p) != 0 {
		t.Errorf("refused callbacks emitted message.received: %v", p)
	}
	if p := e.emitted(t, calls); len(p) != 0 {
		t.Errorf("refused callbacks emitted call.received: %v", p)
	}
}

func TestTwilioInboundNotRecorded(t *testing.T) {
	e := newCarrierEnv(t, nil)
	path := "/carrier/twilio/sms"
	good := func() url.Values {
		return inboundForm("SM0003aaaabbbbccccddddeeeeffff0003", contactPhone, twilioNumber, "hi")
	}
	with := func(k, v string) url.Values {
		f := good()
		if v == "" {
			f.Del(k)
		} else {
			f.Set(k, v)
		}
		return f
	}
	for _, c := range []struct {
		name string
		form url.Values
	}{
		{"To is no number of ours", with("To", "+14155550999")},
		{"To is a sandbox number", with("To", fromNumber)},
		{"To of another workspace's sandbox number", with("To", otherNumber)},
		{"no MessageSid", with("MessageSid", "")},
		{"no From", with("From", "")},
		{"no To", with("To", "")},
		{"To not E.164", with("To", "415-555-0177")},
		{"From not a phone", with("From", "ACME")},
		{"NumMedia not a number", with("NumMedia", "lots")},
		{"NumMedia too many", with("NumMedia", "99")},
		{"MessageSid with spaces", with("MessageSid", "SM 1 2 3")},
		{"no fields at all", url.Values{}},
	} {
		t.Run(c.name, func(t *testing.T) {
			wantTwiML(t, e.signed(t, path, c.form), "<Response></Response>")
		})
	}
	if msgs := e.messages(t, obj{}); len(msgs) != 0 {
		t.Errorf("unroutable or malformed callbacks stored %d messages: %v", len(msgs), msgs)
	}
	// A body that is no form at all cannot be verified; it is refused without a 500 and
	// changes nothing.
	r := e.do(t, http.MethodPost, e.srv.URL+path, map[string]string{"Content-Type": "application/x-www-form-urlencoded",
		"X-Twilio-Signature": "x"}, []byte("%zz=%%&;"))
	if r.status >= 500 {
		t.Errorf("an unparseable form answered %d", r.status)
	}
	if msgs := e.messages(t, obj{}); len(msgs) != 0 {
		t.Errorf("an unparseable form stored messages: %v", msgs)
	}
}

func TestTwilioKeywords(t *testing.T) {
	e := newCarrierEnv(t, nil)
	optSub := e.subscribe(t, "opt_out.created")
	path := "/carrier/twilio/sms"
	stopReply := strings.ReplaceAll(store.DefaultStopReply, "%s", "Acme")
	startReply := strings.ReplaceAll(store.DefaultStartReply, "%s", "Acme")
	helpReply := strings.ReplaceAll(store.DefaultHelpReply, "%s", "Acme")

	// Queue some normal sends to the contact first: the keyword reply must jump them.
	for i := range 3 {
		e.post(t, "send-message-action", e.body(obj{"from": twilioNumber, "to": contactPhone, "text": fmt.Sprint("promo ", i)})).want(t, http.StatusAccepted)
	}

	wantTwiML(t, e.signed(t, path, inboundForm("SM0004aaaabbbbccccddddeeeeffff0001", contactPhone, twilioNumber, "  stop ")), "<Response></Response>")
	opts, err := e.st.OptOuts(e.ws.ID)
	if err != nil {
		t.Fatal(err)
	}
	if len(opts) != 1 || opts[0].Phone != contactPhone || opts[0].Reason != store.OptOutKeyword {
		t.Fatalf("opt-outs after STOP %+v, want one for %s with reason keyword", opts, contactPhone)
	}
	if p := e.emitted(t, optSub); len(p) != 1 || p[0]["optOutReason"] != "keyword" {
		t.Errorf("opt_out.created payloads %v, want one with reason keyword", p)
	}
	// The reply is queued, at high priority: first in the twilio number's queue.
	q := e.outbox(t)
	if len(q) != 4 || q[0].Priority != store.PriorityHigh {
		t.Fatalf("outbox after STOP %+v, want the high-priority reply ahead of 3 sends", q)
	}
	reply, err := e.st.Message(e.ws.ID, q[0].MessageID)
	if err != nil {
		t.Fatal(err)
	}
	if reply.Text != stopReply || reply.To != contactPhone || reply.From != twilioNumber {
		t.Errorf("STOP reply %q from %s to %s, want %q from %s to %s", reply.Text, reply.From, reply.To, stopReply, twilioNumber, contactPhone)
	}
	// The keyword message itself is stored like any inbound text.
	in := e.messages(t, obj{"direction": "inbound"})
	if len(in) != 1 || in[0]["text"] != "  stop " {
		t.Errorf("inbound messages %v, want the STOP text stored", in)
	}
	// An opted-out contact cannot be sent to any more.
	e.post(t, "send-message-action", e.body(obj{"from": twilioNumber, "to": contactPhone, "text": "more?"})).want(t, http.StatusUnprocessableEntity)

	wantTwiML(t, e.signed(t, path, inboundForm("SM0004aaaabbbbccccddddeeeeffff0002", contactPhone, twilioNumber, "Start")), "<Response></Response>")
	if out, _ := e.st.IsOptedOut(e.ws.ID, contactPhone); out {
		t.Error("START did not remove the opt-out")
	}
	e.post(t, "send-message-action", e.body(obj{"from": twilioNumber, "to": contactPhone, "text": "welcome back"})).want(t, http.StatusAccepted)

	wantTwiML(t, e.signed(t, path, inboundForm("SM0004aaaabbbbccccddddeeeeffff0003", contactPhone, twilioNumber, "HELP")), "<Response></Response>")
	var texts []string
	for _, en := range e.outbox(t) {
		m, err := e.st.Message(e.ws.ID, en.MessageID)
		if err != nil {
			t.Fatal(err)
		}
		if en.Priority == store.PriorityHigh {
			texts = append(texts, m.Text)
		}
	}
	if want := []string{stopReply, startReply, helpReply}; !slices.Equal(texts, want) {
		t.Errorf("high-priority replies queued %q, want %q", texts, want)
	}
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

func TestTwilioStatusCallbacks(t *testing.T) {
	e := newCarrierEnv(t, map[string]carrier.Carrier{store.ProviderTwilio: &stubTwilio{}, store.ProviderSandbox: carrier.Sandbox{}})
	delivered := e.subscribe(t, "message.delivered")
	failed := e.subscribe(t, "message.failed")
	send := func(to string) string {
		m := e.post(t, "send-message-action", e.body(obj{"from": twilioNumber, "to": to, "text": "hello"})).want(t, http.StatusAccepted).object(t)
		id := m["id"].(string)
		e.waitStatus(t, id, "sent")
		return id
	}
	status := func(id, st, code string) {
		t.Helper()
		f := url.Values{"MessageSid": {"SM" + strings.ToLower(id)}, "MessageStatus": {st}, "AccountSid": {"AC0123"}}
		if code != "" {
			f.Set("ErrorCode", code)
		}
		wantTwiML(t, e.signed(t, "/carrier/twilio/status", f), "<Response></Response>")
	}
	get := func(id string) map[string]any {
		for _, m := range e.messages(t, obj{"limit": 100}) {
			if m["id"] == id {
				return m
			}
		}
		t.Fatalf("message %s not listed", id)
		return nil
	}

	ok := send("+14155550131")
	status(ok, "queued", "") // a status Switchboard does not track changes nothing
	wantField(t, get(ok), "status", "sent")
	status(ok, "sent", "")
	wantField(t, get(ok), "status", "sent")
	status(ok, "delivered", "")
	m := get(ok)
	wantField(t, m, "status", "delivered")
	wantField(t, m, "error", "")
	// Never backwards, and a repeat changes nothing.
	status(ok, "sent", "")
	status(ok, "undelivered", "30003")
	status(ok, "delivered", "")
	m = get(ok)
	wantField(t, m, "status", "delivered")
	wantField(t, m, "error", "")
	if p := e.emitted(t, delivered); len(p) != 1 || p[0]["id"] != ok || p[0]["status"] != "delivered" {
		t.Errorf("message.delivered payloads %v, want exactly one for %s", p, ok)
	}

	bad := send("+14155550132")
	status(bad, "undelivered", "30003")
	m = get(bad)
	wantField(t, m, "status", "failed")
	wantField(t, m, "error", "twilio 30003")
	status(bad, "delivered", "")
	wantField(t, get(bad), "status", "failed")
	bad2 := send("+14155550133")
	status(bad2, "failed", "30008")
	m = get(bad2)
	wantField(t, m, "status", "failed")
	wantField(t, m, "error", "twilio 30008")
	if p := e.emitted(t, failed); len(p) != 2 || p[0]["id"] != bad || p[1]["id"] != bad2 || p[0]["status"] != "failed" {
		t.Errorf("message.failed payloads %v, want one for %s then %s", p, bad, bad2)
	}

	// Unknown sids, out-of-range values: 200, nothing changes, never a 500.
	status("01JUNKNOWNUNKNOWNUNKNOWN00", "delivered", "")
	for _, f := range []url.Values{
		{"MessageStatus": {"delivered"}},
		{"MessageSid": {"SMx"}},
		{"MessageSid": {"SM" + strings.ToLower(bad2)}, "MessageStatus": {"deliv ered!"}},
		{"MessageSid": {"SM" + strings.ToLower(bad2)}, "MessageStatus": {"failed"}, "ErrorCode": {"x1"}},
	} {
		wantTwiML(t, e.signed(t, "/carrier/twilio/status", f), "<Response></Response>")
	}
	wantField(t, get(bad2), "error", "twilio 30008")
	if p := e.emitted(t, delivered); len(p) != 1 {
		t.Errorf("%d message.delivered events, want still 1", len(p))
	}
}

func TestTwilioVoice(t *testing.T) {
	e := newCarrierEnv(t, nil)
	sub := e.subscribe(t, "call.received")
	form := url.Values{"CallSid": {"CA0005aaaabbbbccccddddeeeeffff0005"}, "AccountSid": {"AC0123"}, "From": {contactPhone},
		"To": {twilioNumber}, "CallStatus": {"ringing"}, "Direction": {"inbound"}}
	wantTwiML(t, e.signed(t, "/carrier/twilio/voice", form), "<Response><Say>"+store.DefaultVoiceGreeting+"</Say></Response>")
	p := e.emitted(t, sub)
	if len(p) != 1 {
		t.Fatalf("call.received payloads %v, want one", p)
	}
	wantField(t, p[0], "from", contactPhone)
	wantField(t, p[0], "to", twilioNumber)
	wantField(t, p[0], "workspaceId", e.ws.ID)

	// The workspace's own greeting, escaped for XML.
	g := "Hi & welcome <to> Acme"
	if _, err := e.st.UpdateWorkspace(e.ws.ID, store.WorkspaceSettings{VoiceGreeting: &g}); err != nil {
		t.Fatal(err)
	}
	wantTwiML(t, e.signed(t, "/carrier/twilio/voice", form), "<Response><Say>Hi &amp; welcome &lt;to&gt; Acme</Say></Response>")
}

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

func TestListMessages(t *testing.T) {
	e := newCarrierEnv(t, nil)
	var sent []string
	for i := range 27 {
		to := "+1415555020" + fmt.Sprint(i%3)
		m := e.post(t, "send-message-action", e.body(obj{"from": fromNumber, "to": to, "text": fmt.Sprint("msg ", i)})).want(t, http.StatusAccepted).object(t)
		sent = append(sent, m["id"].(string))
	}
	wantTwiML(t, e.signed(t, "/carrier/twilio/sms", inboundForm("SM0006aaaabbbbccccddddeeeeffff0001", "+14155550200", twilioNumber, "reply")), "<Response></Response>")

	all := e.messages(t, obj{})
	if len(all) != 25 {
		t.Fatalf("default limit: %d messages, want 25", len(all))
	}
	wantKeys(t, all[0], "conversationId", "createdAt", "direction", "error", "from", "id", "media", "segments", "status", "text", "to", "workspaceId")
	wantField(t, all[0], "direction", "inbound")
	for i, m := range all[1:] {
		wantKeys(t, m, "conversationId", "createdAt", "direction", "error", "from", "id", "media", "segments", "status", "text", "to", "workspaceId")
		if want := sent[len(sent)-1-i]; m["id"] != want {
			t.Fatalf("message %d is %v, want %s (newest first)", i+1, m["id"], want)
		}
		wantField(t, m, "direction", "outbound")
		wantField(t, m, "status", "queued")
		wantField(t, m, "error", "")
		wantField(t, m, "segments", float64(1))
		wantField(t, m, "workspaceId", e.ws.ID)
		if _, err := time.Parse("2006-01-02T15:04:05.000Z", m["createdAt"].(string)); err != nil {
			t.Errorf("createdAt %q is not RFC 3339 UTC with milliseconds", m["createdAt"])
		}
	}
	if n := len(e.messages(t, obj{"limit": 100})); n != 28 {
		t.Errorf("limit 100: %d messages, want all 28", n)
	}
	if n := len(e.messages(t, obj{"limit": 1})); n != 1 {
		t.Errorf("limit 1: %d messages", n)
	}
	in := e.messages(t, obj{"direction": "inbound"})
	if len(in) != 1 || in[0]["text"] != "reply" {
		t.Errorf("direction inbound: %v", in)
	}
	out := e.messages(t, obj{"direction": "outbound", "limit": 100})
	if len(out) != 27 {
		t.Errorf("direction outbound: %d messages, want 27", len(out))
	}
	for _, m := range out {
		wantField(t, m, "direction", "outbound")
	}

	// conversationId: only that conversation's messages, newest first.
	conv := all[1]["conversationId"].(string) // msg 26's conversation, to +14155550202
	inConv := e.messages(t, obj{"conversationId": conv, "limit": 100})
	if len(inConv) != 9 {
		t.Fatalf("conversation %s: %d messages, want 9", conv, len(inConv))
	}
	for _, m := range inConv {
		wantField(t, m, "conversationId", conv)
		wantField(t, m, "to", "+14155550202")
	}
	if inConv[0]["text"] != "msg 26" || inConv[8]["text"] != "msg 2" {
		t.Errorf("conversation messages run %v … %v, want msg 26 … msg 2", inConv[0]["text"], inConv[8]["text"])
	}

	for _, c := range []struct {
		name  string
		body  obj
		field string
	}{
		{"limit 0", obj{"limit": 0}, "limit"},
		{"limit 101", obj{"limit": 101}, "limit"},
		{"limit string", obj{"limit": "x"}, "limit"},
		{"limit numeric string", obj{"limit": "10"}, "limit"},
		{"limit fraction", obj{"limit": 2.5}, "limit"},
		{"direction", obj{"direction": "sideways"}, "direction"},
	} {
		t.Run(c.name, func(t *testing.T) {
			if f := e.post(t, "list-messages-action", e.body(c.body)).fields(t); !slices.Equal(f, []string{c.field}) {
				t.Errorf("fields %q, want [%s]", f, c.field)
			}
		})
	}
	// Another workspace's conversation, and one that does not exist: 404.
	otherConv := e.postAs(t, e.otherToken, "create-conversation-action", obj{"developerProvider": "zapier", "id": e.ws2.ID,
		"from": otherNumber, "to": contactPhone}).want(t, http.StatusCreated).object(t)["id"].(string)
	e.post(t, "list-messages-action", e.body(obj{"conversationId": otherConv})).want(t, http.StatusNotFound).errorText(t)
	e.post(t, "list-messages-action", e.body(obj{"conversationId": "01JZZZZZZZZZZZZZZZZZZZZZZZ"})).want(t, http.StatusNotFound).errorText(t)
	// The usual order of checks: a non-member is 403, an unknown workspace 404.
	e.postAs(t, e.otherToken, "list-messages-action", e.body(obj{})).want(t, http.StatusForbidden)
	e.post(t, "list-messages-action", e.body(obj{"id": "01JZZZZZZZZZZZZZZZZZZZZZZZ"})).want(t, http.StatusNotFound)
}

// metric returns the value of the series named exactly series (name and labels as exposed).
func metric(t *testing.T, text, series string) (float64, bool) {
	t.Helper()
	for _, line := range strings.Split(text, "\n") {
		if rest, ok := strings.CutPrefix(line, series+" "); ok {
			var v float64
			if _, err := fmt.Sscan(rest, &v); err != nil {
				t.Fatalf("metric line %q: %v", line, err)
			}
			return v, true
		}
	}
	return 0, false
}

func TestCarrierMetrics(t *testing.T) {
	e := newCarrierEnv(t, map[string]carrier.Carrier{store.ProviderSandbox: carrier.Sandbox{}})
	scrape := func() string {
		res, err := e.srv.Client().Get(e.srv.URL + "/metrics")
		if err != nil {
			t.Fatal(err)
		}
		defer res.Body.Close()
		b, _ := io.ReadAll(res.Body)
		return string(b)
	}
	var ids []string
	for i := range 3 {
		m := e.post(t, "send-message-action", e.body(obj{"from": fromNumber, "to": toNumber, "text": fmt.Sprint("hi ", i)})).want(t, http.StatusAccepted).object(t)
		ids = append(ids, m["id"].(string))
	}
	for _, id := range ids {
		e.waitStatus(t, id, "delivered")
	}
	wantTwiML(t, e.signed(t, "/carrier/twilio/sms", inboundForm("SM0007aaaabbbbccccddddeeeeffff0001", contactPhone, twilioNumber, "hi")), "<Response></Response>")
	// A repeat is not counted again.
	wantTwiML(t, e.signed(t, "/carrier/twilio/sms", inboundForm("SM0007aaaabbbbccccddddeeeeffff0001", contactPhone, twilioNumber, "hi")), "<Response></Response>")

	text := scrape()
	for _, c := range []struct {
		series string
		want   float64
	}{
		{"switchboard_outbox_depth", 0},
		{`switchboard_messages_total{carrier="sandbox",outcome="sent"}`, 3},
		{`switchboard_messages_total{carrier="sandbox",outcome="delivered"}`, 3},
		{`switchboard_inbound_messages_total{carrier="twilio"}`, 1},
	} {
		v, ok := metric(t, text, c.series)
		if !ok {
			t.Errorf("/metrics lacks %s", c.series)
		} else if v != c.want {
			t.Errorf("%s = %v, want %v", c.series, v, c.want)
		}
	}

	// The depth counts what waits: with no dispatcher running, queued sends stay queued.
	idle := newCarrierEnv(t, nil)
	for i := range 2 {
		idle.post(t, "send-message-action", idle.body(obj{"from": fromNumber, "to": toNumber, "text": fmt.Sprint("wait ", i)})).want(t, http.StatusAccepted)
	}
	res, err := idle.srv.Client().Get(idle.srv.URL + "/metrics")
	if err != nil {
		t.Fatal(err)
	}
	b, _ := io.ReadAll(res.Body)
	res.Body.Close()
	if v, ok := metric(t, string(b), "switchboard_outbox_depth"); !ok || v != 2 {
		t.Errorf("switchboard_outbox_depth with 2 queued = %v (present %v), want 2", v, ok)
	}
}

func TestMessageWebhookPayloads(t *testing.T) {
	e := newCarrierEnv(t, map[string]carrier.Carrier{store.ProviderSandbox: carrier.Sandbox{}})
	sentSub := e.subscribe(t, "message.sent")
	delSub := e.subscribe(t, "message.delivered")
	m := e.post(t, "send-message-action", e.body(obj{"from": fromNumber, "to": toNumber, "text": "your table is ready"})).want(t, http.StatusAccepted).object(t)
	id := m["id"].(string)
	e.waitStatus(t, id, "delivered")
	keys := []string{"conversationId", "createdAt", "from", "id", "media", "status", "text", "to", "workspaceId"}
	for _, c := range []struct{ sub, status string }{{sentSub, "sent"}, {delSub, "delivered"}} {
		p := e.emitted(t, c.sub)
		if len(p) != 1 {
			t.Fatalf("%d message.%s events, want 1: %v", len(p), c.status, p)
		}
		wantKeys(t, p[0], keys...)
		wantField(t, p[0], "id", id)
		wantField(t, p[0], "status", c.status)
		wantField(t, p[0], "conversationId", m["conversationId"])
		wantField(t, p[0], "from", fromNumber)
		wantField(t, p[0], "to", toNumber)
		wantField(t, p[0], "text", "your table is ready")
	}
	// message.sent was queued before message.delivered.
	s, _ := e.st.SubscriptionDeliveries(sentSub, 0)
	d, _ := e.st.SubscriptionDeliveries(delSub, 0)
	if s[0].EventID >= d[0].EventID {
		t.Errorf("message.sent event %s is not older than message.delivered %s", s[0].EventID, d[0].EventID)
	}
}

// A Twilio callback for a number that is not on Twilio here is not ours to record, for calls
// as for texts.
func TestTwilioCallbacksOnlyForTwilioNumbers(t *testing.T) {
	e := newCarrierEnv(t, nil)
	calls := e.subscribe(t, "call.received")
	for _, to := range []string{fromNumber, otherNumber, "+14155550999"} {
		form := url.Values{"CallSid": {"CA0008aaaabbbbccccddddeeeeffff0008"}, "From": {contactPhone}, "To": {to}}
		wantTwiML(t, e.signed(t, "/carrier/twilio/voice", form), "<Response><Say>"+store.DefaultVoiceGreeting+"</Say></Response>")
	}
	if p := e.emitted(t, calls); len(p) != 0 {
		t.Errorf("Twilio voice callbacks for sandbox and unknown numbers emitted call.received: %v", p)
	}
	// An inactive twilio number hears nothing either.
	active := false
	if _, err := e.st.UpdateNumber(e.ws.ID, e.twilioNum.ID, nil, &active, nil); err != nil {
		t.Fatal(err)
	}
	wantTwiML(t, e.signed(t, "/carrier/twilio/sms", inboundForm("SM0008aaaabbbbccccddddeeeeffff0008", contactPhone, twilioNumber, "hi")), "<Response></Response>")
	if msgs := e.messages(t, obj{}); len(msgs) != 0 {
		t.Errorf("a text to an inactive number was stored: %v", msgs)
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

// Twilio retries a text it thinks was lost, sometimes while the first try is still being
// answered: concurrent callbacks with one MessageSid record one message.
func TestTwilioInboundConcurrentRepeats(t *testing.T) {
	e := newCarrierEnv(t, nil)
	sub := e.subscribe(t, "message.received")
	form := inboundForm("SM0009aaaabbbbccccddddeeeeffff0009", contactPhone, twilioNumber, "STOP")
	sig := carrier.TwilioSignature(twilioToken, publicURL+"/carrier/twilio/sms", form)
	answers := make([]string, 20)
	var wg sync.WaitGroup
	for i := range answers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			req, _ := http.NewRequest(http.MethodPost, e.srv.URL+"/carrier/twilio/sms", strings.NewReader(form.Encode()))
			req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
			req.Header.Set("X-Twilio-Signature", sig)
			res, err := e.srv.Client().Do(req)
			if err != nil {
				answers[i] = err.Error()
				return
			}
			b, _ := io.ReadAll(res.Body)
			res.Body.Close()
			answers[i] = fmt.Sprint(res.StatusCode, " ", string(b))
		}()
	}
	wg.Wait()
	for _, a := range answers {
		if a != "200 <Response></Response>" {
			t.Errorf("a concurrent repeat was answered %q, want 200 <Response></Response>", a)
		}
	}
	if n := len(e.messages(t, obj{"direction": "inbound"})); n != 1 {
		t.Errorf("%d inbound messages from 20 concurrent repeats, want 1", n)
	}
	if n := len(e.emitted(t, sub)); n != 1 {
		t.Errorf("%d message.received events, want 1", n)
	}
	if q := e.outbox(t); len(q) != 1 {
		t.Errorf("%d replies queued for one STOP, want 1", len(q))
	}
}

// An empty keyword reply setting sends no reply (for carriers that answer keywords
// themselves); the keyword still acts.
func TestTwilioKeywordEmptyReply(t *testing.T) {
	e := newCarrierEnv(t, nil)
	empty := ""
	if _, err := e.st.UpdateWorkspace(e.ws.ID, store.WorkspaceSettings{StopReply: &empty}); err != nil {
		t.Fatal(err)
	}
	wantTwiML(t, e.signed(t, "/carrier/twilio/sms", inboundForm("SM0010aaaabbbbccccddddeeeeffff0010", contactPhone, twilioNumber, "unsubscribe")), "<Response></Response>")
	if out, _ := e.st.IsOptedOut(e.ws.ID, contactPhone); !out {
		t.Error("UNSUBSCRIBE with an empty reply setting did not opt the contact out")
	}
	if q := e.outbox(t); len(q) != 0 {
		t.Errorf("a reply was queued although the setting is empty: %+v", q)
	}
}

// Broadcast progress on the sandbox (§7): counters follow each copy's outcome, the status ends
// sent (failed when every copy failed), and the sandbox's refusing numbers play failures.
func TestBroadcastProgressOnSandbox(t *testing.T) {
	e := newCarrierEnv(t, map[string]carrier.Carrier{store.ProviderSandbox: carrier.Sandbox{}})
	e.post(t, "create-opt-out-action", e.body(obj{"phone": "+14155550300"})).want(t, http.StatusCreated)
	wait := func(id string) store.Broadcast {
		t.Helper()
		deadline := time.Now().Add(5 * time.Second)
		for {
			b, err := e.st.Broadcast(e.ws.ID, id)
			if err != nil {
				t.Fatal(err)
			}
			if b.Status != store.BroadcastSending || time.Now().After(deadline) {
				return b
			}
			time.Sleep(10 * time.Millisecond)
		}
	}
	r := e.post(t, "send-broadcast-action", e.body(obj{"from": fromNumber, "text": "sale", "recipients": []string{
		"+14155550301", "+14155550302", "+14155550303", "+14155550304", "+15005550001", "+15005550004", "+14155550300"}})).want(t, http.StatusAccepted).object(t)
	wantField(t, r, "totalOptedOut", float64(1))
	b := wait(r["id"].(string))
	if b.Status != store.BroadcastSent || b.TotalQueued != 6 || b.TotalSent != 4 || b.TotalDelivered != 4 || b.TotalFailed != 2 || b.TotalOptedOut != 1 {
		t.Errorf("broadcast %s queued %d sent %d delivered %d failed %d opted out %d; want sent 6/4/4/2/1",
			b.Status, b.TotalQueued, b.TotalSent, b.TotalDelivered, b.TotalFailed, b.TotalOptedOut)
	}
	opts, _ := e.st.OptOuts(e.ws.ID)
	reasons := map[string]string{}
	for _, o := range opts {
		reasons[o.Phone] = o.Reason
	}
	if reasons["+15005550004"] != store.OptOutCarrier {
		t.Errorf("the recipient the carrier reported unsubscribed has opt-out reason %q, want carrier", reasons["+15005550004"])
	}
	for _, m := range e.messages(t, obj{"limit": 100}) {
		if m["to"] == "+15005550001" && (m["status"] != "failed" || !strings.HasPrefix(m["error"].(string), "sandbox 21211")) {
			t.Errorf("copy to the invalid number: %v, want failed with the carrier's reason", m)
		}
	}

	r = e.post(t, "send-broadcast-action", e.body(obj{"from": fromNumber, "text": "sale", "recipients": []string{"+15005550001", "+15005550009"}})).want(t, http.StatusAccepted).object(t)
	b = wait(r["id"].(string))
	if b.Status != store.BroadcastFailed || b.TotalFailed != 2 || b.TotalSent != 0 {
		t.Errorf("all-failing broadcast %s failed %d sent %d, want failed 2/0", b.Status, b.TotalFailed, b.TotalSent)
	}

	// A group message goes to every member and is delivered.
	g := e.post(t, "send-group-message-action", e.body(obj{"from": fromNumber, "group": []string{"+14155550311", "+14155550312"}, "text": "team"})).want(t, http.StatusAccepted).object(t)
	e.waitStatus(t, g["id"].(string), "delivered")
}

// A STOP that arrives while a broadcast's copies wait: the contact's copy is not sent, counts
// as opted out, and the broadcast still finishes sent; the STOP confirmation goes out.
func TestStopWhileBroadcastQueued(t *testing.T) {
	e := newCarrierEnv(t, nil)
	failed := e.subscribe(t, "message.failed")
	r := e.post(t, "send-broadcast-action", e.body(obj{"from": twilioNumber, "text": "promo",
		"recipients": []string{"+14155550321", "+14155550322", contactPhone}})).want(t, http.StatusAccepted).object(t)
	wantTwiML(t, e.signed(t, "/carrier/twilio/sms", inboundForm("SM0011aaaabbbbccccddddeeeeffff0011", contactPhone, twilioNumber, "STOP")), "<Response></Response>")

	stub := &stubTwilio{}
	d := carrier.NewDispatcher(e.st, carrier.Options{Carriers: map[string]carrier.Carrier{store.ProviderTwilio: stub}})
	e.st.OnOutbox(d.Wake)
	if err := d.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(d.Stop)
	deadline := time.Now().Add(5 * time.Second)
	var b store.Broadcast
	for {
		var err error
		if b, err = e.st.Broadcast(e.ws.ID, r["id"].(string)); err != nil {
			t.Fatal(err)
		}
		if b.Status != store.BroadcastSending || time.Now().After(deadline) {
			break
		}
		time.Sleep(10 * time.Millisecond)
	}
	if b.Status != store.BroadcastSent || b.TotalSent != 2 || b.TotalOptedOut != 1 || b.TotalFailed != 0 {
		t.Errorf("broadcast %s sent %d opted out %d failed %d, want sent 2/1/0", b.Status, b.TotalSent, b.TotalOptedOut, b.TotalFailed)
	}
	d.Stop()
	var toContact []string
	for _, m := range stub.sent {
		if m.To == contactPhone {
			toContact = append(toContact, m.Text)
		}
	}
	if want := []string{strings.ReplaceAll(store.DefaultStopReply, "%s", "Acme")}; !slices.Equal(toContact, want) {
		t.Errorf("the contact who texted STOP was sent %q, want only %q", toContact, want)
	}
	if p := e.emitted(t, failed); len(p) != 1 || p[0]["to"] != contactPhone || p[0]["status"] != "failed" {
		t.Errorf("message.failed payloads %v, want one for the skipped copy", p)
	}
	if depth := e.st.OutboxDepth(); depth != 0 {
		t.Errorf("outbox depth %d after everything went out, want 0", depth)
	}
}
