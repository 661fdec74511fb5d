package oauth_test

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"html"
	"io"
	"net/http"
	"net/http/cookiejar"
	"net/url"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"testing"
	"time"

	"net/http/httptest"

	"switchboard/internal/testutil"
	"switchboard/oauth"
	"switchboard/store"
	"switchboard/web"
)

const (
	password  = "correct horse battery"
	fromPhone = "+14155550100"
	toPhone   = "+14155550199"
	clientURI = "https://client.example/callback"
)

// env is a real server: store on a temp file, web.New with its browser session routing to the
// provider, served by httptest; a user who is a member of a workspace with a number.
type env struct {
	clock  *testutil.Clock
	s      *store.Store
	p      *oauth.Provider
	srv    *httptest.Server
	user   store.User
	ws     store.Workspace
	conf   oauth.Client // confidential client
	secret string
	pub    oauth.Client // public client
	// sess is the user's browser, reused so that it signs in once: bcrypt under -race costs
	// seconds per comparison.
	sess *http.Client
	h    http.Handler // the server's handler, for in-process calls (fuzz, benchmarks)
}

func httptestRecorder(h http.Handler, method, path string) *httptest.ResponseRecorder {
	rec := httptest.NewRecorder()
	h.ServeHTTP(rec, httptest.NewRequest(method, path, nil))
	return rec
}

var start = time.Date(2026, 11, 21, 12, 0, 0, 0, time.UTC)

// fixture is a database built once per test binary and copied for each env: creating a user
// and signing in each cost a bcrypt run, which takes seconds under -race.
type fixture struct {
	once    sync.Once
	err     error
	dir     string
	path    string
	user    store.User
	ws      store.Workspace
	conf    oauth.Client
	secret  string
	pub     oauth.Client
	session *http.Cookie
}

var shared fixture

func TestMain(m *testing.M) {
	code := m.Run()
	if shared.dir != "" {
		os.RemoveAll(shared.dir)
	}
	os.Exit(code)
}

func (f *fixture) build() error {
	var err error
	if f.dir, err = os.MkdirTemp("", "oauth-fixture-"); err != nil {
		return err
	}
	f.path = filepath.Join(f.dir, "fixture.db")
	s, err := store.Open(f.path, store.Options{Now: func() time.Time { return start }})
	if err != nil {
		return err
	}
	defer s.Close()
	if f.user, err = s.CreateUser(store.NewUser{Email: "ana@example.com", Name: "Ana Lima", Password: password}); err != nil {
		return err
	}
	if f.ws, err = s.CreateWorkspace("Acme Support"); err != nil {
		return err
	}
	if _, err := s.AddMember(f.ws.ID, f.user.ID, "member"); err != nil {
		return err
	}
	if _, err := s.AddNumber(f.ws.ID, fromPhone, "Main line"); err != nil {
		return err
	}
	sess, err := web.NewSessions(s, web.SessionConfig{KeyFile: filepath.Join(f.dir, "session.key")})
	if err != nil {
		return err
	}
	p, err := oauth.New(s, oauth.Config{Session: sess})
	if err != nil {
		return err
	}
	if f.conf, f.secret, err = p.CreateClient(oauth.NewClient{Name: "Zapier", RedirectURIs: []string{clientURI}}); err != nil {
		return err
	}
	if f.pub, _, err = p.CreateClient(oauth.NewClient{Name: "Desktop app", RedirectURIs: []string{"http://127.0.0.1:7777/cb"}, Public: true}); err != nil {
		return err
	}
	// Sign in once through the real form; the session lives in the copied database, the cookie
	// keys in the fixture's key file.
	srv := httptest.NewServer(web.New(s, web.Config{Sessions: sess, OAuth: p}))
	defer srv.Close()
	res, err := http.PostForm(srv.URL+"/oauth/login", url.Values{"email": {f.user.Email}, "password": {password}})
	if err != nil {
		return err
	}
	res.Body.Close()
	for _, c := range res.Cookies() {
		if c.Name == "sb_session" {
			f.session = c
		}
	}
	if f.session == nil {
		return fmt.Errorf("fixture: sign-in set no session cookie (status %d)", res.StatusCode)
	}
	return nil
}

func newEnv(t testing.TB, opts ...func(*oauth.Config)) *env {
	t.Helper()
	shared.once.Do(func() { shared.err = shared.build() })
	if shared.err != nil {
		t.Fatal(shared.err)
	}
	path := filepath.Join(t.TempDir(), "test.db")
	data, err := os.ReadFile(shared.path)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, data, 0o600); err != nil {
		t.Fatal(err)
	}
	clk := testutil.NewClock(start)
	s, err := store.Open(path, store.Options{Now: clk.Now})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close() })
	sess, err := web.NewSessions(s, web.SessionConfig{BaseURL: "http://switchboard.test", KeyFile: filepath.Join(shared.dir, "session.key")})
	if err != nil {
		t.Fatal(err)
	}
	cfg := oauth.Config{AccessTokenTTL: time.Hour, Session: sess}
	for _, o := range opts {
		o(&cfg)
	}
	p, err := oauth.New(s, cfg)
	if err != nil {
		t.Fatal(err)
	}
	h := web.New(s, web.Config{Sessions: sess, OAuth: p})
	srv := httptest.NewServer(h)
	t.Cleanup(srv.Close)
	e := &env{clock: clk, s: s, p: p, srv: srv, h: h, user: shared.user, ws: shared.ws, conf: shared.conf, secret: shared.secret, pub: shared.pub}
	e.sess = e.browser(t)
	u, _ := url.Parse(srv.URL)
	e.sess.Jar.SetCookies(u, []*http.Cookie{{Name: shared.session.Name, Value: shared.session.Value, Path: "/"}})
	return e
}

// browser is a user agent with a cookie jar that stops at redirects leaving the server, so
// the test sees the redirect to the client with its code.
func (e *env) browser(t testing.TB) *http.Client {
	jar, _ := cookiejar.New(nil)
	host := strings.TrimPrefix(e.srv.URL, "http://")
	return &http.Client{Jar: jar, CheckRedirect: func(req *http.Request, via []*http.Request) error {
		if req.URL.Host != host {
			return http.ErrUseLastResponse
		}
		return nil
	}}
}

var hiddenRE = regexp.MustCompile(`<input type="hidden" name="([^"]+)" value="([^"]*)"`)

// signIn submits the login form and returns the page it lands on.
func (e *env) signIn(t testing.TB, b *http.Client, loginURL *url.URL, email, pw string) (*http.Response, string) {
	t.Helper()
	form := url.Values{"email": {email}, "password": {pw}, "next": {loginURL.Query().Get("next")}}
	return do(t, b, "POST", e.srv.URL+"/oauth/login", form)
}

// authorize drives the browser part of the flow from authURL (sign in when asked, then
// consent with decision) and returns the redirect to the client.
func (e *env) authorize(t testing.TB, b *http.Client, authURL, decision string) *url.URL {
	t.Helper()
	res, body := do(t, b, "GET", authURL, nil)
	if strings.Contains(body, `data-testid="login-form"`) {
		res, body = e.signIn(t, b, res.Request.URL, e.user.Email, password)
	}
	if res.StatusCode != http.StatusOK || !strings.Contains(body, `data-testid="consent"`) {
		if loc := res.Header.Get("Location"); loc != "" {
			u, _ := url.Parse(loc)
			return u
		}
		t.Fatalf("expected the consent page, got %d: %s", res.StatusCode, body)
	}
	form := url.Values{"decision": {decision}}
	for _, m := range hiddenRE.FindAllStringSubmatch(body, -1) {
		form.Set(html.UnescapeString(m[1]), html.UnescapeString(m[2]))
	}
	res, body = do(t, b, "POST", e.srv.URL+"/oauth/authorize", form)
	if res.StatusCode != http.StatusSeeOther {
		t.Fatalf("consent: expected 303 to the client, got %d: %s", res.StatusCode, body)
	}
	u, err := url.Parse(res.Header.Get("Location"))
	if err != nil {
		t.Fatal(err)
	}
	return u
}

// do sends a request (a form when form != nil) and returns the response and its body.
func do(t testing.TB, c *http.Client, method, u string, form url.Values) (*http.Response, string) {
	t.Helper()
	var body io.Reader
	if form != nil {
		body = strings.NewReader(form.Encode())
	}
	req, err := http.NewRequest(method, u, body)
	if err != nil {
		t.Fatal(err)
	}
	if form != nil {
		req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	}
	res, err := c.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer res.Body.Close()
	data, _ := io.ReadAll(res.Body)
	return res, string(data)
}

// authURL builds an authorize URL by hand (for requests golang.org/x/oauth2 would not make).
func (e *env) authURL(params map[string]string) string {
	v := url.Values{}
	for k, val := range params {
		v.Set(k, val)
	}
	return e.srv.URL + "/oauth/authorize?" + v.Encode()
}

// code runs the browser flow for client c and returns the code.
func (e *env) code(t testing.TB, c oauth.Client, redirectURI, verifier string) string {
	t.Helper()
	params := map[string]string{"response_type": "code", "client_id": c.ID, "redirect_uri": redirectURI, "state": "st"}
	if verifier != "" {
		params["code_challenge"] = challenge(verifier)
		params["code_challenge_method"] = "S256"
	}
	u := e.authorize(t, e.sess, e.authURL(params), "allow")
	code := u.Query().Get("code")
	if code == "" || u.Query().Get("state") != "st" {
		t.Fatalf("expected a code and the state in %s", u)
	}
	return code
}

func challenge(verifier string) string {
	sum := sha256.Sum256([]byte(verifier))
	return base64.RawURLEncoding.EncodeToString(sum[:])
}

// tokenCall posts a form to /oauth/token (or revoke), with Basic credentials when user != "".
func (e *env) tokenCall(t testing.TB, path string, form url.Values, user, pass string) (int, http.Header, map[string]any) {
	t.Helper()
	req, _ := http.NewRequest("POST", e.srv.URL+path, strings.NewReader(form.Encode()))
	req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	if user != "" {
		req.SetBasicAuth(user, pass)
	}
	res, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer res.Body.Close()
	var out map[string]any
	data, _ := io.ReadAll(res.Body)
	if len(bytes.TrimSpace(data)) > 0 {
		if err := json.Unmarshal(data, &out); err != nil {
			t.Fatalf("%s: body is not JSON: %q", path, data)
		}
	}
	return res.StatusCode, res.Header, out
}

// exchange redeems a code as the confidential client (client_secret_basic).
func (e *env) exchange(t testing.TB, code string) (int, map[string]any) {
	t.Helper()
	st, _, body := e.tokenCall(t, "/oauth/token", url.Values{"grant_type": {"authorization_code"}, "code": {code},
		"redirect_uri": {clientURI}}, e.conf.ID, e.secret)
	return st, body
}

func (e *env) refreshCall(t testing.TB, refresh string) (int, map[string]any) {
	t.Helper()
	st, _, body := e.tokenCall(t, "/oauth/token", url.Values{"grant_type": {"refresh_token"}, "refresh_token": {refresh}},
		e.conf.ID, e.secret)
	return st, body
}

// api calls an integration API action with a bearer token and returns status, challenge and body.
func (e *env) api(t testing.TB, token, action string, body map[string]any) (int, string, map[string]any) {
	t.Helper()
	data, _ := json.Marshal(body)
	req, _ := http.NewRequestWithContext(context.Background(), "POST", e.srv.URL+"/v1/integrations/developer/zapier/"+action, bytes.NewReader(data))
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Authorization", "Bearer "+token)
	res, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer res.Body.Close()
	var out map[string]any
	_ = json.NewDecoder(res.Body).Decode(&out)
	return res.StatusCode, res.Header.Get("WWW-Authenticate"), out
}

func (e *env) createConversation(t testing.TB, token string) (int, string) {
	st, challenge, _ := e.api(t, token, "create-conversation-action",
		map[string]any{"developerProvider": "zapier", "id": e.ws.ID, "from": fromPhone, "to": toPhone})
	return st, challenge
}

const invalidTokenChallenge = `Bearer realm="switchboard", error="invalid_token"`

// expectRevoked checks that token is refused by the API with the RFC 6750 invalid_token challenge.
func (e *env) expectRevoked(t testing.TB, token, why string) {
	t.Helper()
	st, ch := e.createConversation(t, token)
	if st != http.StatusUnauthorized || ch != invalidTokenChallenge {
		t.Fatalf("%s: expected 401 with %s, got %d %q", why, invalidTokenChallenge, st, ch)
	}
}

func str(m map[string]any, k string) string { s, _ := m[k].(string); return s }
