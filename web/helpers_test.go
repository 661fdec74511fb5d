package web

import (
	"bytes"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"

	"switchboard/store"
)

// Numbers used throughout the tests. fromNumber belongs to env.ws, otherNumber to env.ws2.
const (
	fromNumber  = "+14155550100"
	fromNumber2 = "+14155550101"
	otherNumber = "+14155550199"
	toNumber    = "+14155550123"
)

// env is a running server over a real bbolt file, with two workspaces: ws (whose member is
// user, acting through token) and ws2 (whose member is other, acting through otherToken).
type env struct {
	t          *testing.T
	srv        *httptest.Server
	st         *store.Store
	ws, ws2    store.Workspace
	user       store.User
	other      store.User
	token      string
	otherToken string
	props      map[string]store.Property
	// contract holds every request and response of do to the OpenAPI document (nil in
	// benchmarks, which measure the server, not the validator).
	contract *contract
}

func newEnv(t testing.TB, cfg Config) *env {
	t.Helper()
	return newEnvWith(t, cfg, nil)
}

// newEnvWith is newEnv with a hook that sees the set-up store before the server starts, to wire
// parts that need it into cfg (the carrier receiver, a dispatcher, a shared registry).
func newEnvWith(t testing.TB, cfg Config, setup func(st *store.Store, cfg *Config)) *env {
	t.Helper()
	return newEnvOpts(t, cfg, store.Options{}, setup)
}

// newEnvOpts is newEnvWith with the store's options (its clock).
func newEnvOpts(t testing.TB, cfg Config, opts store.Options, setup func(st *store.Store, cfg *Config)) *env {
	t.Helper()
	st, err := store.Open(filepath.Join(t.TempDir(), "switchboard.db"), opts)
	if err != nil {
		t.Fatalf("open store: %v", err)
	}
	e := &env{st: st, props: map[string]store.Property{}}
	if tt, ok := t.(*testing.T); ok {
		e.t = tt
	}
	must := func(err error) {
		t.Helper()
		if err != nil {
			t.Fatalf("set up: %v", err)
		}
	}
	e.ws, err = st.CreateWorkspace("Acme")
	must(err)
	e.ws2, err = st.CreateWorkspace("Other Co")
	must(err)
	e.user, err = st.CreateUser(store.NewUser{Email: "ana@example.com", Name: "Ana Lima"})
	must(err)
	e.other, err = st.CreateUser(store.NewUser{Email: "bo@example.com", Name: "Bo Other"})
	must(err)
	_, err = st.AddMember(e.ws.ID, e.user.ID, "member")
	must(err)
	_, err = st.AddMember(e.ws2.ID, e.other.ID, "member")
	must(err)
	_, err = st.AddNumber(e.ws.ID, fromNumber, "Main line")
	must(err)
	_, err = st.AddNumber(e.ws.ID, fromNumber2, "Second line")
	must(err)
	_, err = st.AddNumber(e.ws2.ID, otherNumber, "Other line")
	must(err)
	for _, p := range []struct{ name, typ string }{
		{"plan", store.PropertyText}, {"seats", store.PropertyNumber},
		{"vip", store.PropertyBoolean}, {"renewal", store.PropertyDate},
	} {
		prop, err := st.AddProperty(e.ws.ID, p.name, p.typ)
		must(err)
		e.props[p.name] = prop
	}
	_, e.token, err = st.CreateToken(e.user.ID, "test")
	must(err)
	_, e.otherToken, err = st.CreateToken(e.other.ID, "test")
	must(err)
	if setup != nil {
		setup(st, &cfg)
	}
	e.srv = httptest.NewServer(New(st, cfg))
	if _, bench := t.(*testing.B); !bench {
		e.contract = newContract(t, cfg, e.srv.URL)
	}
	t.Cleanup(func() {
		e.srv.Close()
		st.Close()
	})
	return e
}

func (e *env) url(action string) string {
	return e.srv.URL + "/v1/integrations/developer/zapier/" + action
}

// obj is a request body.
type obj = map[string]any

// body returns a request body for ws with the base fields and the given ones (a nil value
// deletes a base field).
func (e *env) body(fields obj) obj {
	b := obj{"developerProvider": "zapier", "id": e.ws.ID, "userId": "ignored"}
	for k, v := range fields {
		if v == nil {
			delete(b, k)
			continue
		}
		b[k] = v
	}
	return b
}

// resp is an answered request.
type resp struct {
	status int
	header http.Header
	raw    []byte
}

func (r resp) String() string { return string(r.raw) }

// decode unmarshals the body into v, failing the test on error.
func (r resp) decode(t testing.TB, v any) {
	t.Helper()
	if err := json.Unmarshal(r.raw, v); err != nil {
		t.Fatalf("decode %q: %v", r.raw, err)
	}
}

// object decodes a JSON object body.
func (r resp) object(t testing.TB) map[string]any {
	t.Helper()
	var m map[string]any
	r.decode(t, &m)
	return m
}

// errorText decodes an {"error": …} body.
func (r resp) errorText(t testing.TB) string {
	t.Helper()
	m := r.object(t)
	if len(m) != 1 {
		t.Fatalf("error body %s: want exactly one key \"error\"", r.raw)
	}
	s, ok := m["error"].(string)
	if !ok {
		t.Fatalf("error body %s: \"error\" is not a string", r.raw)
	}
	return s
}

// fieldErrors decodes a validation array.
func (r resp) fieldErrors(t testing.TB) []store.FieldError {
	t.Helper()
	if r.status != http.StatusBadRequest {
		t.Fatalf("status %d, want 400; body %s", r.status, r.raw)
	}
	var errs []store.FieldError
	dec := json.NewDecoder(bytes.NewReader(r.raw))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&errs); err != nil {
		t.Fatalf("validation body %s: %v", r.raw, err)
	}
	return errs
}

// fields returns the failing field names of a validation body, checking they are sorted in
// byte order, unique and each has a message.
func (r resp) fields(t testing.TB) []string {
	t.Helper()
	errs := r.fieldErrors(t)
	names := make([]string, len(errs))
	for i, fe := range errs {
		names[i] = fe.Field
		if fe.Message == "" {
			t.Errorf("field %q has an empty message", fe.Field)
		}
	}
	if !slices.IsSorted(names) {
		t.Errorf("validation fields %q are not sorted in byte order", names)
	}
	if len(slices.Compact(slices.Clone(names))) != len(names) {
		t.Errorf("validation fields %q repeat a field", names)
	}
	return names
}

// message returns the message of field in a validation body.
func (r resp) message(t testing.TB, field string) string {
	t.Helper()
	for _, fe := range r.fieldErrors(t) {
		if fe.Field == field {
			return fe.Message
		}
	}
	t.Fatalf("no error on %q in %s", field, r.raw)
	return ""
}

// do sends a request with full control over headers and the raw body.
func (e *env) do(t testing.TB, method, url string, header map[string]string, body []byte) resp {
	t.Helper()
	req, err := http.NewRequest(method, url, bytes.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	for k, v := range header {
		req.Header.Set(k, v)
	}
	res, err := e.srv.Client().Do(req)
	if err != nil {
		t.Fatalf("%s %s: %v", method, url, err)
	}
	defer res.Body.Close()
	raw, err := io.ReadAll(res.Body)
	if err != nil {
		t.Fatal(err)
	}
	r := resp{status: res.StatusCode, header: res.Header, raw: raw}
	if r.header.Get("X-Request-Id") == "" {
		t.Errorf("%s %s answered %d without X-Request-Id", method, url, r.status)
	}
	if r.status == http.StatusInternalServerError {
		t.Errorf("%s %s answered 500: %s", method, url, raw)
	}
	if e.contract != nil {
		e.contract.check(t, method, url, header, body, r)
	}
	return r
}

// postRaw posts raw bytes as JSON with token.
func (e *env) postRaw(t testing.TB, action, token string, body []byte) resp {
	t.Helper()
	h := map[string]string{"Content-Type": "application/json"}
	if token != "" {
		h["Authorization"] = "Bearer " + token
	}
	return e.do(t, http.MethodPost, e.url(action), h, body)
}

// postAs posts body (marshalled) as the holder of token.
func (e *env) postAs(t testing.TB, token, action string, body any) resp {
	t.Helper()
	data, err := json.Marshal(body)
	if err != nil {
		t.Fatal(err)
	}
	return e.postRaw(t, action, token, data)
}

// post posts body as env.user.
func (e *env) post(t testing.TB, action string, body any) resp {
	t.Helper()
	return e.postAs(t, e.token, action, body)
}

// want fails unless r has status.
func (r resp) want(t testing.TB, status int) resp {
	t.Helper()
	if r.status != status {
		t.Fatalf("status %d, want %d; body %s", r.status, status, r.raw)
	}
	return r
}

// wantKeys checks that the JSON object m has exactly keys.
func wantKeys(t testing.TB, m map[string]any, keys ...string) {
	t.Helper()
	got := make([]string, 0, len(m))
	for k := range m {
		got = append(got, k)
	}
	slices.Sort(got)
	want := slices.Sorted(slices.Values(keys))
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("result keys %q, want %q", got, want)
	}
}

// wantStrings checks that m[key] is a JSON array of strings equal to want (never null).
func wantStrings(t testing.TB, m map[string]any, key string, want ...string) {
	t.Helper()
	arr, ok := m[key].([]any)
	if !ok {
		t.Fatalf("%s = %#v, want an array", key, m[key])
	}
	got := make([]string, len(arr))
	for i, v := range arr {
		s, ok := v.(string)
		if !ok {
			t.Fatalf("%s[%d] = %#v, want a string", key, i, v)
		}
		got[i] = s
	}
	if want == nil {
		want = []string{}
	}
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("%s = %q, want %q", key, got, want)
	}
}

// wantField checks m[key] == want.
func wantField(t testing.TB, m map[string]any, key string, want any) {
	t.Helper()
	if !reflect.DeepEqual(m[key], want) {
		t.Fatalf("%s = %#v, want %#v (in %v)", key, m[key], want, m)
	}
}

func isULID(s string) bool {
	_, ok := store.ParseID(s)
	return ok
}

// repeat returns n copies of s.
func repeat(s string, n int) string { return strings.Repeat(s, n) }
