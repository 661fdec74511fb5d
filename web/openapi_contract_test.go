package web

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"regexp"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/getkin/kin-openapi/openapi3"
	"github.com/getkin/kin-openapi/openapi3filter"
	"github.com/getkin/kin-openapi/routers"
	"github.com/getkin/kin-openapi/routers/gorillamux"

	"switchboard/carrier"
	"switchboard/store"
	"switchboard/webhooks"
)

// The document loads as OpenAPI 3.1, validates, and states the contract's fixed parts: the
// security schemes, the error statuses every action answers with, and one webhook per event.
func TestOpenAPIDocument(t *testing.T) {
	doc, _ := loadSpec(t)
	if doc.OpenAPI != "3.1.0" || !doc.IsOpenAPI31OrLater() {
		t.Fatalf("openapi = %q, want 3.1.0", doc.OpenAPI)
	}

	oauth := doc.Components.SecuritySchemes["oauth2"]
	if oauth == nil || oauth.Value.Type != "oauth2" || oauth.Value.Flows == nil || oauth.Value.Flows.AuthorizationCode == nil {
		t.Fatal("no oauth2 security scheme with an authorization-code flow")
	}
	flow := oauth.Value.Flows.AuthorizationCode
	if flow.AuthorizationURL != "/oauth/authorize" || flow.TokenURL != "/oauth/token" || flow.RefreshURL != "/oauth/token" {
		t.Errorf("authorization-code flow URLs %q, %q, %q; want /oauth/authorize, /oauth/token, /oauth/token",
			flow.AuthorizationURL, flow.TokenURL, flow.RefreshURL)
	}
	if _, ok := flow.Scopes["integrations"]; !ok || len(flow.Scopes) != 1 {
		t.Errorf("scopes %v, want only integrations", flow.Scopes)
	}
	bearer := doc.Components.SecuritySchemes["bearerToken"]
	if bearer == nil || bearer.Value.Type != "http" || bearer.Value.Scheme != "bearer" {
		t.Error("no http bearer security scheme for personal tokens")
	}
	if len(doc.Security) != 2 {
		t.Errorf("top-level security %v: want oauth2 (integrations) or bearerToken", doc.Security)
	}

	for path, item := range doc.Paths.Map() {
		op := item.Post
		if op == nil {
			continue // documentedActions reports it
		}
		for _, code := range []string{"400", "401", "403", "404", "413", "415", "429", "500"} {
			if op.Responses.Value(code) == nil {
				t.Errorf("%s: no %s response", path, code)
			}
		}
		if r := op.Responses.Value("401"); r != nil && r.Value.Headers["WWW-Authenticate"] == nil {
			t.Errorf("%s: 401 without the WWW-Authenticate header", path)
		}
		if r := op.Responses.Value("429"); r != nil && r.Value.Headers["Retry-After"] == nil {
			t.Errorf("%s: 429 without the Retry-After header", path)
		}
	}

	// The one server is "/": the document is relative to wherever it is served, so a router
	// routes a request to any host, as a client holding the served document would. (kin-openapi's
	// deprecated legacy router cannot match a relative server URL at all.)
	for name, mk := range map[string]func(*openapi3.T) (routers.Router, error){"gorillamux": gorillamux.NewRouter} {
		router, err := mk(doc)
		if err != nil {
			t.Fatalf("%s router: %v", name, err)
		}
		req, _ := http.NewRequest(http.MethodPost, "https://sms.example.com"+docPrefix+"me-action", nil)
		if _, _, err := router.FindRoute(req); err != nil {
			t.Errorf("%s router on the document as served: %v", name, err)
		}
	}

	var events []string
	for name := range doc.Webhooks {
		events = append(events, name)
	}
	slices.Sort(events)
	want := slices.Sorted(slices.Values(store.EventNames))
	if !slices.Equal(events, want) {
		t.Errorf("webhooks %q, want every event name %q", events, want)
	}
}

// Every routed action is documented and every documented action is routed: the route table
// (h.actions) and the document's paths hold the same names, and each documented path reaches
// an action (401 without a token), not the unknown-action answer.
func TestOpenAPIRoutesMatchDocument(t *testing.T) {
	doc, _ := loadSpec(t)
	documented := documentedActions(t, doc)
	var routed []string
	for _, a := range (&Handler{}).actions() {
		routed = append(routed, a.name)
	}
	slices.Sort(routed)
	for _, name := range routed {
		if !slices.Contains(documented, name) {
			t.Errorf("action %q is routed but the OpenAPI document lacks %s%s", name, docPrefix, name)
		}
	}
	for _, name := range documented {
		if !slices.Contains(routed, name) {
			t.Errorf("the OpenAPI document has %s%s, but no such action is routed", docPrefix, name)
		}
	}

	e := newEnv(t, Config{})
	for _, name := range documented {
		r := e.postRaw(t, name, "", []byte(`{}`))
		if r.status != http.StatusUnauthorized {
			t.Errorf("documented %s without a token: status %d, want 401 (routed); body %s", name, r.status, r.raw)
		}
	}
	if r := e.post(t, "no-such-action", e.body(nil)); r.status != http.StatusNotFound || r.errorText(t) != "unknown action" {
		t.Errorf("an undocumented action answered %d %s, want 404 unknown action", r.status, r.raw)
	}
}

// /openapi.json serves the embedded document as JSON; /docs is an HTML page that loads only
// from this server (the vendored Redoc and /openapi.json), with a CSP that says so.
func TestOpenAPIServedAndDocsPage(t *testing.T) {
	_, raw := loadSpec(t)
	e := newEnv(t, Config{OpenAPI: raw})

	r := e.do(t, http.MethodGet, e.srv.URL+"/openapi.json", nil, nil)
	if r.status != http.StatusOK || r.header.Get("Content-Type") != "application/json" {
		t.Fatalf("GET /openapi.json: %d %q, want 200 application/json", r.status, r.header.Get("Content-Type"))
	}
	if !bytes.Equal(r.raw, raw) {
		t.Error("GET /openapi.json is not the document")
	}
	if _, err := openapi3.NewLoader().LoadFromData(r.raw); err != nil {
		t.Errorf("the served document does not load: %v", err)
	}

	d := e.do(t, http.MethodGet, e.srv.URL+"/docs", nil, nil)
	if d.status != http.StatusOK || !strings.HasPrefix(d.header.Get("Content-Type"), "text/html") {
		t.Fatalf("GET /docs: %d %q, want 200 text/html", d.status, d.header.Get("Content-Type"))
	}
	page := string(d.raw)
	refs := regexp.MustCompile(`(?i)\b(?:src|href|data-spec-url)="([^"]*)"`).FindAllStringSubmatch(page, -1)
	var urls []string
	for _, m := range refs {
		u := m[1]
		urls = append(urls, u)
		if !strings.HasPrefix(u, "/") || strings.HasPrefix(u, "//") {
			t.Errorf("/docs references %q, which is not on this server", u)
		}
	}
	for _, want := range []string{"/static/redoc.standalone.js", "/static/docs.js", "/openapi.json"} {
		if !slices.Contains(urls, want) {
			t.Errorf("/docs does not reference %s (references %q)", want, urls)
		}
	}
	if strings.Contains(page, "fonts.googleapis") || strings.Contains(page, "cdn.") {
		t.Error("/docs mentions a CDN or Google Fonts")
	}
	csp := d.header.Get("Content-Security-Policy")
	if !strings.Contains(csp, "default-src 'self'") || strings.Contains(csp, "http") {
		t.Errorf("/docs CSP %q: want only this origin", csp)
	}

	for _, f := range []string{"redoc.standalone.js", "redoc.LICENSE", "docs.js"} {
		data, err := os.ReadFile("../static/" + f)
		if err != nil || len(data) == 0 {
			t.Errorf("static/%s is missing: %v", f, err)
		}
		if f == "docs.js" && (strings.Contains(string(data), "http://") || strings.Contains(string(data), "https://")) {
			t.Errorf("static/docs.js names an outside URL")
		}
	}

	// Without a document neither route exists.
	bare := newEnv(t, Config{})
	if r := bare.do(t, http.MethodGet, bare.srv.URL+"/openapi.json", nil, nil); r.status != http.StatusNotFound {
		t.Errorf("GET /openapi.json without a document: %d, want 404", r.status)
	}
}

// The contract check itself fails a test for a response the document does not allow, and
// skips request validation for refused requests only.
func TestOpenAPIContractCatchesMismatches(t *testing.T) {
	e := newEnv(t, Config{})
	url := e.url("create-opt-out-action")
	h := map[string]string{"Content-Type": "application/json", "Authorization": "Bearer " + e.token}
	good := []byte(`{"developerProvider":"zapier","id":"` + e.ws.ID + `","phone":"+14155550123"}`)
	for _, tc := range []struct {
		name    string
		body    []byte
		r       resp
		wantErr string
	}{
		{"undocumented status", good, resp{status: http.StatusTeapot, header: jsonHeader(), raw: []byte(`{"error":"x"}`)}, "status is not supported"},
		{"missing result field", good, resp{status: http.StatusCreated, header: jsonHeader(), raw: []byte(`{"id":"a","phone":"+14155550123"}`)}, "workspaceId"},
		{"extra result field", good, resp{status: http.StatusOK, header: jsonHeader(), raw: []byte(`{"id":"a","phone":"p","workspaceId":"w","x":1}`)}, "x"},
		{"validation body as an object", good, resp{status: http.StatusBadRequest, header: jsonHeader(), raw: []byte(`{"error":"x"}`)}, "400"},
		{"401 without its challenge", good, resp{status: http.StatusUnauthorized, header: jsonHeader(), raw: []byte(`{"error":"x"}`)}, "WWW-Authenticate"},
		{"2xx to an invalid request", []byte(`{"developerProvider":"zapier","id":"` + e.ws.ID + `","phone":"555"}`),
			resp{status: http.StatusCreated, header: jsonHeader(), raw: []byte(`{"id":"a","phone":"p","workspaceId":"w"}`)}, "request is invalid"},
		{"undocumented path answering an odd error", good, resp{status: http.StatusNotFound, header: jsonHeader(), raw: []byte(`[]`)}, "no Error"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			rec := &errRecorder{TB: t}
			u := url
			if strings.HasPrefix(tc.name, "undocumented path") {
				u = e.url("no-such-action")
			}
			e.contract.check(rec, http.MethodPost, u, h, tc.body, tc.r)
			if len(rec.errs) == 0 || !strings.Contains(strings.Join(rec.errs, "\n"), tc.wantErr) {
				t.Errorf("contract check reported %q, want an error mentioning %q", rec.errs, tc.wantErr)
			}
		})
	}
	// A broken body the server refused (400) is not held to the request schema.
	rec := &errRecorder{TB: t}
	e.contract.check(rec, http.MethodPost, url, h, []byte(`{"phone":`), resp{status: http.StatusBadRequest, header: jsonHeader(),
		raw: []byte(`[{"field":"body","message":"is not valid JSON"}]`)})
	if len(rec.errs) != 0 {
		t.Errorf("a refused broken body was reported: %q", rec.errs)
	}
}

func jsonHeader() http.Header {
	return http.Header{"Content-Type": {"application/json; charset=utf-8"}, "X-Request-Id": {"01TEST"}}
}

// errRecorder is a testing.TB that keeps Errorf's messages instead of failing.
type errRecorder struct {
	testing.TB
	errs []string
}

func (r *errRecorder) Errorf(format string, args ...any) {
	r.errs = append(r.errs, fmt.Sprintf(format, args...))
}

func (r *errRecorder) Helper() {}

// failingCarrier is the sandbox, except that it refuses messages to failTo for good.
type failingCarrier struct{ carrier.Sandbox }

const failTo = "+14155550166"

func (c failingCarrier) Send(ctx context.Context, m carrier.Outbound) (string, error) {
	if m.To == failTo {
		return "", &carrier.PermanentError{Reason: "test carrier: refused"}
	}
	return c.Sandbox.Send(ctx, m)
}

// startCarrier runs a dispatcher on e's store: sends go out through the sandbox.
func (e *env) startCarrier(t *testing.T) {
	t.Helper()
	d := carrier.NewDispatcher(e.st, carrier.Options{Carriers: map[string]carrier.Carrier{store.ProviderSandbox: failingCarrier{}}})
	e.st.SetHooks(store.Hooks{Outbox: d.Wake})
	if err := d.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(d.Stop)
}

// list-messages-action's results (every status, both directions) match the document; the
// check runs in env.do like every API call.
func TestOpenAPIListMessages(t *testing.T) {
	e := newEnv(t, Config{})
	e.startCarrier(t)
	e.post(t, "send-message-action", e.body(obj{"from": fromNumber, "to": toNumber, "text": "Hello {{firstName|there}}"})).want(t, http.StatusAccepted)
	e.post(t, "send-message-action", e.body(obj{"from": fromNumber, "to": failTo, "text": "this one fails"})).want(t, http.StatusAccepted)
	e.post(t, "send-group-message-action", e.body(obj{"from": fromNumber, "group": []string{toNumber, "+14155550124"}, "text": "group"})).want(t, http.StatusAccepted)
	if _, err := e.st.ReceiveMessage(e.ws.ID, store.InboundMessage{From: toNumber, To: fromNumber, Text: "a reply", Provider: store.ProviderSandbox}); err != nil {
		t.Fatal(err)
	}
	var all []map[string]any
	deadline := time.Now().Add(10 * time.Second)
	for {
		all = nil
		e.post(t, "list-messages-action", e.body(obj{"limit": 100})).want(t, http.StatusOK).decode(t, &all)
		statuses := map[string]bool{}
		for _, m := range all {
			statuses[m["status"].(string)] = true
		}
		if len(all) == 4 && statuses["delivered"] && statuses["failed"] && statuses["received"] {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("messages never reached delivered, failed and received: %v", all)
		}
		time.Sleep(20 * time.Millisecond)
	}
	if all[0]["direction"] != "inbound" || all[0]["text"] != "a reply" {
		t.Errorf("newest first: first message %v, want the inbound reply", all[0])
	}
	var in []map[string]any
	e.post(t, "list-messages-action", e.body(obj{"direction": "inbound", "limit": 1})).want(t, http.StatusOK).decode(t, &in)
	if len(in) != 1 || in[0]["direction"] != "inbound" {
		t.Errorf("direction inbound, limit 1: %v", in)
	}
	e.post(t, "list-messages-action", e.body(obj{"limit": 0})).want(t, http.StatusBadRequest)
	e.post(t, "list-messages-action", e.body(obj{"conversationId": "01ARZ3NDEKTSV4RRFFQ69G5FAV"})).want(t, http.StatusNotFound)
}

// Every webhook the server delivers matches the document's webhooks section: its Standard
// Webhooks headers and its payload, for every event.
func TestOpenAPIWebhookDeliveries(t *testing.T) {
	doc, _ := loadSpec(t)
	e := newEnv(t, Config{})
	e.startCarrier(t)

	var mu sync.Mutex
	got := map[string][]*http.Request{}
	bodies := map[*http.Request][]byte{}
	hook := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(r.Body)
		mu.Lock()
		ev := r.Header.Get("webhook-event")
		got[ev] = append(got[ev], r)
		bodies[r] = body
		mu.Unlock()
	}))
	t.Cleanup(hook.Close)
	_, lo, _ := net.ParseCIDR("127.0.0.0/8")
	w := webhooks.New(e.st, webhooks.Options{Guard: webhooks.NewGuard([]*net.IPNet{lo}), Logger: slog.New(slog.DiscardHandler)})
	e.st.SetHooks(store.Hooks{Events: w.Wake})
	w.Start()
	t.Cleanup(w.Stop)

	for _, ev := range store.EventNames {
		e.post(t, "subscribe-webhook", obj{"developerProvider": "zapier", "workspaceId": e.ws.ID, "eventName": ev, "hookUrl": hook.URL + "/hook"}).
			want(t, http.StatusCreated)
	}
	// One change for each event.
	if _, err := e.st.ReceiveMessage(e.ws.ID, store.InboundMessage{From: toNumber, To: fromNumber, Text: "hi", Provider: store.ProviderSandbox}); err != nil {
		t.Fatal(err) // message.received, contact.created
	}
	e.post(t, "send-message-action", e.body(obj{"from": fromNumber, "to": toNumber, "text": "sent"})).want(t, http.StatusAccepted)
	e.post(t, "send-message-action", e.body(obj{"from": fromNumber, "to": failTo, "text": "fails"})).want(t, http.StatusAccepted)
	e.post(t, "create-comment-action", e.body(obj{"from": fromNumber, "to": toNumber, "text": "note"})).want(t, http.StatusCreated)
	// conversation.assigned and conversation.closed: a person assigns and closes in the inbox.
	conv, _, err := e.st.CreateConversation(e.ws.ID, fromNumber, toNumber)
	if err != nil {
		t.Fatal(err)
	}
	closed := store.ConversationClosed
	if _, err := e.st.UpdateConversation(e.ws.ID, conv.ID, store.ConversationUpdate{AssignedUserIDs: &[]string{e.user.ID},
		Status: &closed, ActorID: e.user.ID}); err != nil {
		t.Fatal(err)
	}
	e.post(t, "create-or-update-contact-action", e.body(obj{"phone": toNumber, "firstName": "Ana", "properties": obj{"plan": "gold"}})).want(t, http.StatusOK)
	e.post(t, "create-opt-out-action", e.body(obj{"phone": toNumber})).want(t, http.StatusCreated)
	e.post(t, "delete-contact-action", e.body(obj{"phone": toNumber})).want(t, http.StatusOK) // contact.deleted
	if _, _, err := e.st.RecordInboundCall(e.ws.ID, "+14155550177", fromNumber); err != nil {
		t.Fatal(err)
	}

	deadline := time.Now().Add(15 * time.Second)
	for {
		mu.Lock()
		n := 0
		for _, ev := range store.EventNames {
			if len(got[ev]) > 0 {
				n++
			}
		}
		mu.Unlock()
		if n == len(store.EventNames) {
			break
		}
		if time.Now().After(deadline) {
			mu.Lock()
			t.Fatalf("deliveries of %d of %d events arrived: %v", n, len(store.EventNames), got)
		}
		time.Sleep(20 * time.Millisecond)
	}

	mu.Lock()
	defer mu.Unlock()
	for _, ev := range store.EventNames {
		item := doc.Webhooks[ev]
		if item == nil || item.Post == nil {
			t.Errorf("the document has no webhook %s", ev)
			continue
		}
		route := &routers.Route{Spec: doc, Path: ev, PathItem: item, Method: http.MethodPost, Operation: item.Post}
		for _, r := range got[ev] {
			req := r.Clone(context.Background())
			req.Body = io.NopCloser(bytes.NewReader(bodies[r]))
			in := &openapi3filter.RequestValidationInput{Request: req, Route: route,
				Options: &openapi3filter.Options{AuthenticationFunc: openapi3filter.NoopAuthenticationFunc, MultiError: true}}
			if err := openapi3filter.ValidateRequest(context.Background(), in); err != nil {
				t.Errorf("webhook %s does not match the document: %v\nbody: %s", ev, err, bodies[r])
			}
			if sig := r.Header.Get("webhook-signature"); !strings.HasPrefix(sig, "v1,") {
				t.Errorf("webhook %s: webhook-signature %q, want v1,<base64>", ev, sig)
			}
			var payload map[string]any
			if err := json.Unmarshal(bodies[r], &payload); err != nil || payload["workspaceId"] != e.ws.ID {
				t.Errorf("webhook %s: payload %s, want the workspace's", ev, bodies[r])
			}
		}
	}
}

// A server with another stage and provider serves the document rewritten to them, and its
// traffic is held to that document.
func TestOpenAPIFollowsStageAndProvider(t *testing.T) {
	_, raw := loadSpec(t)
	e := newEnv(t, Config{Stage: "v2", Provider: "acme", OpenAPI: raw})
	r := e.do(t, http.MethodGet, e.srv.URL+"/openapi.json", nil, nil)
	doc, err := openapi3.NewLoader().LoadFromData(r.raw)
	if err != nil {
		t.Fatalf("served document: %v", err)
	}
	if err := doc.Validate(context.Background()); err != nil {
		t.Fatalf("served document: %v", err)
	}
	for path, item := range doc.Paths.Map() {
		if !strings.HasPrefix(path, "/v2/integrations/developer/acme/") {
			t.Errorf("path %q, want it under /v2/integrations/developer/acme/", path)
		}
		dp := item.Post.RequestBody.Value.Content.Get("application/json").Schema.Value.Properties["developerProvider"]
		if dp == nil || len(dp.Value.Enum) != 1 || dp.Value.Enum[0] != "acme" {
			t.Errorf("%s: developerProvider is not the enum [acme]", path)
		}
	}
	if strings.Contains(doc.Info.Description, "defaults `v1` and `zapier`") {
		t.Error("the description still says the paths use the defaults")
	}

	url := e.srv.URL + "/v2/integrations/developer/acme/me-action"
	h := map[string]string{"Content-Type": "application/json", "Authorization": "Bearer " + e.token}
	e.do(t, http.MethodPost, url, h, []byte(`{"developerProvider":"acme"}`)).want(t, http.StatusOK)
	rec := &errRecorder{TB: t}
	e.contract.check(rec, http.MethodPost, url, h, []byte(`{"developerProvider":"zapier"}`),
		resp{status: http.StatusOK, header: jsonHeader(), raw: []byte(`{"userId":"u","email":"e","name":"n","workspaces":[]}`)})
	if len(rec.errs) == 0 {
		t.Error("a request with the default provider, accepted by an acme server, passed the acme document")
	}
}
