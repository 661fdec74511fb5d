package web

import (
	"bytes"
	"encoding/json"
	"io"
	"net/http"
	"strconv"
	"strings"
	"testing"

	"switchboard/store"
)

func TestUnauthorized(t *testing.T) {
	e := newEnv(t, Config{})
	revoked, revokedPlain, err := e.st.CreateToken(e.user.ID, "old")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := e.st.RevokeToken(revokedPlain); err != nil {
		t.Fatal(err, revoked)
	}
	body, _ := json.Marshal(e.validBodies()["send-message-action"])
	const challenge = `Bearer realm="switchboard"`
	const invalid = `Bearer realm="switchboard", error="invalid_token"`
	cases := []struct {
		name, auth, want string
	}{
		{"no header", "", challenge},
		{"basic", "Basic YWxhZGRpbjpvcGVuc2VzYW1l", challenge},
		{"bearer without token", "Bearer", challenge},
		{"bearer blank", "Bearer    ", challenge},
		{"token alone", e.token, challenge},
		{"unknown token", "Bearer sbp_nope", invalid},
		{"revoked token", "Bearer " + revokedPlain, invalid},
		{"lower-case scheme unknown", "bearer nope", invalid},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			h := map[string]string{"Content-Type": "application/json"}
			if c.auth != "" {
				h["Authorization"] = c.auth
			}
			r := e.do(t, http.MethodPost, e.url("send-message-action"), h, body).want(t, http.StatusUnauthorized)
			if got := r.header.Get("WWW-Authenticate"); got != c.want {
				t.Errorf("WWW-Authenticate %q, want %q", got, c.want)
			}
			if r.errorText(t) == "" {
				t.Error("empty error message")
			}
		})
	}
	// Nothing was sent.
	if out, _ := e.st.Outbox(10); len(out) != 0 {
		t.Errorf("unauthorized requests queued %d messages", len(out))
	}
	// The token is checked before anything else about the request.
	r := e.do(t, http.MethodPost, e.url("send-message-action"), map[string]string{"Content-Type": "text/plain"}, []byte("garbage"))
	r.want(t, http.StatusUnauthorized)
}

func TestForbiddenForAnotherWorkspacesUser(t *testing.T) {
	e := newEnv(t, Config{})
	for action, b := range e.validBodies() {
		t.Run(action, func(t *testing.T) {
			r := e.postAs(t, e.otherToken, action, b).want(t, http.StatusForbidden)
			if r.errorText(t) == "" {
				t.Error("empty error message")
			}
		})
	}
	if out, _ := e.st.Outbox(10); len(out) != 0 {
		t.Errorf("forbidden requests queued %d messages", len(out))
	}
	if n, _ := e.st.CountConversations(e.ws.ID); n != 0 {
		t.Errorf("forbidden requests created %d conversations", n)
	}
	// Removing the membership takes effect on the next request.
	e.post(t, "list-phone-numbers-action", e.body(nil)).want(t, http.StatusOK)
	if err := e.st.RemoveMember(e.ws.ID, e.user.ID); err != nil {
		t.Fatal(err)
	}
	e.post(t, "list-phone-numbers-action", e.body(nil)).want(t, http.StatusForbidden)
}

func TestWorkspaceNotFound(t *testing.T) {
	e := newEnv(t, Config{})
	for _, ws := range []string{"01J00000000000000000000000", "nope", e.user.ID} {
		for action, b := range e.validBodies() {
			field := "id"
			if strings.Contains(action, "webhook") {
				field = "workspaceId"
			}
			r := e.post(t, action, with(b, obj{field: ws})).want(t, http.StatusNotFound)
			if !bytes.Equal(bytes.TrimSpace(r.raw), []byte(`{"error":"workspace not found"}`)) {
				t.Errorf("%s: body %s, want {\"error\":\"workspace not found\"}", action, r.raw)
			}
		}
	}
}

func TestCheckOrder(t *testing.T) {
	e := newEnv(t, Config{})
	unknownWS := "01J00000000000000000000000"
	e.post(t, "create-contact-action", e.body(obj{"firstName": "Taken", "phone": toNumber})).want(t, http.StatusCreated)
	e.post(t, "create-opt-out-action", e.body(obj{"phone": "+14155550777"})).want(t, http.StatusCreated)
	cases := []struct {
		name   string
		token  string
		action string
		body   obj
		want   int
	}{
		{"bad body, unknown workspace → 400", e.token, "send-message-action", obj{"developerProvider": "zapier", "id": unknownWS, "from": "x", "to": toNumber, "text": "t"}, 400},
		{"valid body, unknown workspace → 404", e.token, "send-message-action", obj{"developerProvider": "zapier", "id": unknownWS, "from": fromNumber, "to": toNumber, "text": "t"}, 404},
		{"long userId, unknown workspace → 400", e.token, "me-action", obj{"developerProvider": "zapier", "id": unknownWS, "userId": repeat("u", 46)}, 400},
		{"bad body, non-member → 400", e.otherToken, "send-message-action", with(e.validBodies()["send-message-action"], obj{"text": nil}), 400},
		{"non-member, foreign from → 403", e.otherToken, "send-message-action", with(e.validBodies()["send-message-action"], obj{"from": otherNumber}), 403},
		{"non-member, unknown property → 403", e.otherToken, "create-contact-action", with(e.validBodies()["create-contact-action"], obj{"properties": obj{"nope": 1}}), 403},
		{"non-member, non-member mention → 403", e.otherToken, "create-comment-action", with(e.validBodies()["create-comment-action"], obj{"mentions": []string{e.other.ID}}), 403},
		{"non-member, unknown workspace → 404", e.otherToken, "send-message-action", with(e.validBodies()["send-message-action"], obj{"id": unknownWS}), 404},
		{"unknown property before taken phone → 400", e.token, "create-contact-action", e.body(obj{"firstName": "A", "phone": toNumber, "properties": obj{"nope": 1}}), 400},
		{"bad property value before taken phone → 400", e.token, "create-contact-action", e.body(obj{"firstName": "A", "phone": toNumber, "properties": obj{"seats": "x"}}), 400},
		{"taken phone → 409", e.token, "create-contact-action", e.body(obj{"firstName": "A", "phone": toNumber}), 409},
		{"foreign from before opt-out → 400", e.token, "send-message-action", e.body(obj{"from": otherNumber, "to": "+14155550777", "text": "t"}), 400},
		{"opted out → 422", e.token, "send-message-action", e.body(obj{"from": fromNumber, "to": "+14155550777", "text": "t"}), 422},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			r := e.postAs(t, c.token, c.action, c.body).want(t, c.want)
			if c.want == 404 && r.errorText(t) != "workspace not found" {
				t.Errorf("404 error %q", r.errorText(t))
			}
		})
	}
}

func TestUnknownProviderAndRoutes(t *testing.T) {
	e := newEnv(t, Config{})
	body, _ := json.Marshal(e.validBodies()["me-action"])
	h := map[string]string{"Content-Type": "application/json", "Authorization": "Bearer " + e.token}
	for _, p := range []string{"make", "Zapier", "zapier2"} {
		for _, action := range []string{"me-action", "no-such-action"} {
			r := e.do(t, http.MethodPost, e.srv.URL+"/v1/integrations/developer/"+p+"/"+action, h, body).want(t, http.StatusNotFound)
			if !bytes.Equal(bytes.TrimSpace(r.raw), []byte(`{"error":"unknown provider"}`)) {
				t.Errorf("provider %s: body %s", p, r.raw)
			}
		}
	}
	// Without a token too: the provider segment is wrong whoever asks.
	e.do(t, http.MethodPost, e.srv.URL+"/v1/integrations/developer/make/me-action", nil, body).want(t, http.StatusNotFound)

	r := e.do(t, http.MethodPost, e.url("no-such-action"), h, body).want(t, http.StatusNotFound)
	if r.errorText(t) == "" {
		t.Error("empty error")
	}
	r = e.do(t, http.MethodGet, e.url("me-action"), h, nil).want(t, http.StatusMethodNotAllowed)
	if r.header.Get("Allow") != http.MethodPost {
		t.Errorf("Allow %q, want POST", r.header.Get("Allow"))
	}
	e.do(t, http.MethodGet, e.srv.URL+"/v2/integrations/developer/zapier/me-action", h, nil).want(t, http.StatusNotFound)
	e.do(t, http.MethodGet, e.srv.URL+"/nothing-here", nil, nil).want(t, http.StatusNotFound)
	e.do(t, http.MethodGet, e.srv.URL+"/healthz", nil, nil).want(t, http.StatusOK)
	e.do(t, http.MethodGet, e.srv.URL+"/readyz", nil, nil).want(t, http.StatusOK)
	r = e.do(t, http.MethodGet, e.srv.URL+"/metrics", nil, nil).want(t, http.StatusOK)
	if !strings.Contains(r.String(), "switchboard_http_requests_total") {
		t.Error("/metrics lacks switchboard_http_requests_total")
	}
	// The backup endpoint needs its token.
	e.do(t, http.MethodGet, e.srv.URL+"/admin/backup", nil, nil).want(t, http.StatusUnauthorized)
	e.do(t, http.MethodGet, e.srv.URL+"/admin/backup", map[string]string{"Authorization": "Bearer "}, nil).want(t, http.StatusUnauthorized)
}

func TestBackupEndpoint(t *testing.T) {
	e := newEnv(t, Config{BackupToken: "s3cret"})
	e.do(t, http.MethodGet, e.srv.URL+"/admin/backup", map[string]string{"Authorization": "Bearer wrong"}, nil).want(t, http.StatusUnauthorized)
	r := e.do(t, http.MethodGet, e.srv.URL+"/admin/backup", map[string]string{"Authorization": "Bearer s3cret"}, nil).want(t, http.StatusOK)
	if len(r.raw) < 4096 || strconv.Itoa(len(r.raw)) != r.header.Get("Content-Length") {
		t.Errorf("backup of %d bytes, Content-Length %q", len(r.raw), r.header.Get("Content-Length"))
	}
}

func TestContentTypeAndSize(t *testing.T) {
	e := newEnv(t, Config{})
	body, _ := json.Marshal(e.validBodies()["create-conversation-action"])
	auth := "Bearer " + e.token
	for _, ct := range []string{"", "text/plain", "application/x-www-form-urlencoded", "multipart/form-data; boundary=x", "application/jsonx", "json", ";;"} {
		r := e.do(t, http.MethodPost, e.url("create-conversation-action"), map[string]string{"Authorization": auth, "Content-Type": ct}, body)
		r.want(t, http.StatusUnsupportedMediaType)
		if r.errorText(t) == "" {
			t.Errorf("Content-Type %q: empty error", ct)
		}
	}
	for _, ct := range []string{"application/json", "application/json; charset=utf-8", "Application/JSON", "application/vnd.api+json"} {
		r := e.do(t, http.MethodPost, e.url("create-conversation-action"), map[string]string{"Authorization": auth, "Content-Type": ct}, body)
		if r.status != http.StatusCreated && r.status != http.StatusOK {
			t.Errorf("Content-Type %q: status %d, want 201/200 (%s)", ct, r.status, r)
		}
	}

	// Exactly 1 MiB is read (and judged on its fields); one byte more is 413.
	pad := func(total int) []byte {
		head := `{"developerProvider":"zapier","id":"` + e.ws.ID + `","from":"` + fromNumber + `","to":"` + toNumber + `","pad":"`
		return []byte(head + strings.Repeat("a", total-len(head)-2) + `"}`)
	}
	r := e.postRaw(t, "create-conversation-action", e.token, pad(MaxBody))
	if r.status != http.StatusOK {
		t.Errorf("a 1 MiB body: status %d, want 200 (%s)", r.status, r)
	}
	r = e.postRaw(t, "create-conversation-action", e.token, pad(MaxBody+1)).want(t, http.StatusRequestEntityTooLarge)
	if r.errorText(t) == "" {
		t.Error("empty 413 error")
	}
	r = e.postRaw(t, "send-message-action", e.token, pad(5*MaxBody)).want(t, http.StatusRequestEntityTooLarge)
	// Chunked (no Content-Length) is limited the same way.
	req, _ := http.NewRequest(http.MethodPost, e.url("create-conversation-action"), io.MultiReader(bytes.NewReader(pad(2*MaxBody))))
	req.Header.Set("Authorization", auth)
	req.Header.Set("Content-Type", "application/json")
	req.ContentLength = -1
	res, err := e.srv.Client().Do(req)
	if err != nil {
		t.Fatal(err)
	}
	res.Body.Close()
	if res.StatusCode != http.StatusRequestEntityTooLarge {
		t.Errorf("chunked 2 MiB body: status %d, want 413", res.StatusCode)
	}
}

func TestRateLimit(t *testing.T) {
	e := newEnv(t, Config{RateLimit: 1}) // burst 2
	body := e.validBodies()["me-action"]
	e.post(t, "me-action", body).want(t, http.StatusOK)
	e.post(t, "me-action", body).want(t, http.StatusOK)
	r := e.post(t, "me-action", body).want(t, http.StatusTooManyRequests)
	secs, err := strconv.Atoi(r.header.Get("Retry-After"))
	if err != nil || secs < 1 {
		t.Errorf("Retry-After %q, want a positive number of seconds", r.header.Get("Retry-After"))
	}
	if r.errorText(t) == "" {
		t.Error("empty 429 error")
	}
	// The limit is per token.
	e.postAs(t, e.otherToken, "me-action", with(body, obj{"id": e.ws2.ID})).want(t, http.StatusOK)
	// Unauthenticated requests do not spend a token's budget (and are 401, not 429).
	e.postAs(t, "", "me-action", body).want(t, http.StatusUnauthorized)

	// A rate below 1 keeps a burst of at least one request: 0.2/s lets one through, then one
	// every 5 s (a burst of 0 refused every request for ever).
	slow := newEnv(t, Config{RateLimit: 0.2})
	slowBody := slow.validBodies()["me-action"]
	slow.post(t, "me-action", slowBody).want(t, http.StatusOK)
	r = slow.post(t, "me-action", slowBody).want(t, http.StatusTooManyRequests)
	if secs, _ := strconv.Atoi(r.header.Get("Retry-After")); secs < 4 || secs > 5 {
		t.Errorf("at 0.2 requests/s Retry-After %q, want 5 seconds", r.header.Get("Retry-After"))
	}
	slow.postAs(t, slow.otherToken, "me-action", with(slowBody, obj{"id": slow.ws2.ID})).want(t, http.StatusOK)

	// 0 turns it off.
	off := newEnv(t, Config{RateLimit: 0})
	for range 50 {
		off.post(t, "me-action", off.validBodies()["me-action"]).want(t, http.StatusOK)
	}
}

func TestRequestID(t *testing.T) {
	e := newEnv(t, Config{})
	body, _ := json.Marshal(e.validBodies()["me-action"])
	// A safe client id is echoed; an unsafe one is replaced.
	r := e.do(t, http.MethodPost, e.url("me-action"), map[string]string{"Authorization": "Bearer " + e.token,
		"Content-Type": "application/json", "X-Request-Id": "abc-123.X_y"}, body)
	if got := r.header.Get("X-Request-Id"); got != "abc-123.X_y" {
		t.Errorf("X-Request-Id %q, want the client's", got)
	}
	r = e.do(t, http.MethodPost, e.url("me-action"), map[string]string{"X-Request-Id": "bad id\"<>"}, body)
	if got := r.header.Get("X-Request-Id"); got == "" || strings.ContainsAny(got, " \"<>") {
		t.Errorf("X-Request-Id %q, want a fresh safe id", got)
	}
	// Two requests get two ids.
	a := e.do(t, http.MethodGet, e.srv.URL+"/nowhere", nil, nil).header.Get("X-Request-Id")
	b := e.do(t, http.MethodGet, e.srv.URL+"/nowhere", nil, nil).header.Get("X-Request-Id")
	if a == b {
		t.Errorf("two requests share X-Request-Id %q", a)
	}
}

// TestInternalErrorHasNoDetail closes the store under the server: the answer is a bare 500
// with a request id, never a Go error string.
func TestInternalErrorHasNoDetail(t *testing.T) {
	e := newEnv(t, Config{})
	body, _ := json.Marshal(e.validBodies()["send-message-action"])
	e.st.Close()
	req, _ := http.NewRequest(http.MethodPost, e.url("send-message-action"), bytes.NewReader(body))
	req.Header.Set("Authorization", "Bearer "+e.token)
	req.Header.Set("Content-Type", "application/json")
	res, err := e.srv.Client().Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer res.Body.Close()
	raw, _ := io.ReadAll(res.Body)
	if res.StatusCode != http.StatusInternalServerError {
		t.Fatalf("status %d, want 500 (%s)", res.StatusCode, raw)
	}
	if got := string(bytes.TrimSpace(raw)); got != `{"error":"internal error"}` {
		t.Errorf("500 body %s", raw)
	}
	if res.Header.Get("X-Request-Id") == "" {
		t.Error("500 without X-Request-Id")
	}
	_ = store.ErrNotFound
}

// TestPanicBecomes500 checks the recovery middleware through a mounted route.
func TestPanicBecomes500(t *testing.T) {
	st, err := store.Open(t.TempDir()+"/p.db", store.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	h := New(st, Config{Mount: []func(*http.ServeMux){func(mux *http.ServeMux) {
		mux.HandleFunc("GET /boom", func(http.ResponseWriter, *http.Request) { panic("boom") })
	}}})
	req, _ := http.NewRequest(http.MethodGet, "/boom", nil)
	rec := newRecorder()
	h.ServeHTTP(rec, req)
	if rec.status != http.StatusInternalServerError || rec.header.Get("X-Request-Id") == "" ||
		strings.TrimSpace(rec.body.String()) != `{"error":"internal error"}` {
		t.Errorf("panic answered %d %q (X-Request-Id %q)", rec.status, rec.body.String(), rec.header.Get("X-Request-Id"))
	}
}

type recorder struct {
	header http.Header
	status int
	body   bytes.Buffer
}

func newRecorder() *recorder                    { return &recorder{header: http.Header{}} }
func (r *recorder) Header() http.Header         { return r.header }
func (r *recorder) Write(b []byte) (int, error) { return r.body.Write(b) }
func (r *recorder) WriteHeader(code int)        { r.status = code }
