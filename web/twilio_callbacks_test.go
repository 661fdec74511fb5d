package web

import (
	"fmt"
	"io"
	"net/http"
	"net/url"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/twilio/twilio-go/client"

	"switchboard/carrier"
	"switchboard/store"
)

// The Twilio callbacks (inbound SMS, status, voice) as Twilio meets them over HTTP.

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
