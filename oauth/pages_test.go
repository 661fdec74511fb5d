package oauth_test

import (
	"net/http"
	"net/url"
	"strings"
	"testing"
	"testing/fstest"

	"switchboard/oauth"
	"switchboard/web"
)

func TestConsentPageNamesClientAndWorkspaces(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	res, body := do(t, e.sess, "GET", e.authURL(map[string]string{"response_type": "code", "client_id": e.conf.ID,
		"redirect_uri": clientURI, "state": `"><script>`}), nil)
	if res.StatusCode != http.StatusOK {
		t.Fatalf("expected the consent page, got %d", res.StatusCode)
	}
	for _, want := range []string{`data-testid="consent-client">Zapier<`, `data-testid="consent-workspace">Acme Support<`,
		`data-testid="consent-user">Ana Lima<`, `href="/static/app.css"`, `value="&#34;&gt;&lt;script&gt;"`} {
		if !strings.Contains(body, want) {
			t.Errorf("consent page: expected %s in\n%s", want, body)
		}
	}
	if res.Header.Get("X-Frame-Options") != "DENY" || !strings.Contains(res.Header.Get("Content-Security-Policy"), "frame-ancestors 'none'") {
		t.Error("expected the consent page to refuse framing (clickjacking)")
	}
}

func TestSignInRequiredBeforeConsent(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	b := e.browser(t) // no session
	authURL := e.authURL(map[string]string{"response_type": "code", "client_id": e.conf.ID, "redirect_uri": clientURI, "state": "s"})
	res, body := do(t, b, "GET", authURL, nil)
	if res.Request.URL.Path != "/oauth/login" || !strings.Contains(body, `data-testid="login-form"`) {
		t.Fatalf("expected the sign-in page, got %s", res.Request.URL)
	}
	// A consent post without a session does not issue a code.
	form := url.Values{"response_type": {"code"}, "client_id": {e.conf.ID}, "redirect_uri": {clientURI}, "decision": {"allow"}}
	res, _ = do(t, b, "POST", e.srv.URL+"/oauth/authorize", form)
	if res.Request.URL.Path != "/oauth/login" {
		t.Fatalf("consent without a session: expected the sign-in page, got %d %s", res.StatusCode, res.Request.URL)
	}
	// next must stay on this server.
	_, body = do(t, b, "GET", e.srv.URL+"/oauth/login?next="+url.QueryEscape("//evil.example/x"), nil)
	if strings.Contains(body, "evil.example") {
		t.Fatal("expected an off-site next to be dropped")
	}
}

func TestCrossSiteFormPostsRefused(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	for _, path := range []string{"/oauth/login", "/oauth/authorize", "/setup", "/oauth/logout"} {
		req, _ := http.NewRequest("POST", e.srv.URL+path, strings.NewReader("decision=allow&email=a@b.c&password=x"))
		req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
		req.Header.Set("Sec-Fetch-Site", "cross-site")
		req.Header.Set("Origin", "https://evil.example")
		res, err := e.sess.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		res.Body.Close()
		if res.StatusCode != http.StatusForbidden {
			t.Errorf("cross-site POST %s: expected 403, got %d", path, res.StatusCode)
		}
	}
}

func TestFailedSignInsAreRateLimited(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	oauth.FailLogins(e.p, e.user.Email, "127.0.0.1", 5)
	// The right password is refused too while the account is locked, without a bcrypt run.
	res, body := do(t, e.browser(t), "POST", e.srv.URL+"/oauth/login", url.Values{"email": {e.user.Email}, "password": {password}})
	if res.StatusCode != http.StatusTooManyRequests || res.Header.Get("Retry-After") == "" || !strings.Contains(body, `data-testid="login-error"`) {
		t.Fatalf("expected 429 with Retry-After and an error on the form, got %d", res.StatusCode)
	}
	for _, c := range res.Cookies() {
		if c.Name == "sb_session" {
			t.Fatal("expected no session from a refused sign-in")
		}
	}
}

func TestSetup(t *testing.T) {
	t.Parallel()
	e := newEnv(t, func(c *oauth.Config) { c.BaseURL = "https://sb.example" })
	link, err := e.p.SetupURL()
	if err != nil || !strings.HasPrefix(link, "https://sb.example/setup?token=") {
		t.Fatalf("expected a setup URL under the base URL, got %q %v", link, err)
	}
	token := strings.TrimPrefix(link, "https://sb.example/setup?token=")
	b := e.browser(t)
	if res, _ := do(t, b, "GET", e.srv.URL+"/setup?token=wrong", nil); res.StatusCode != http.StatusForbidden {
		t.Fatalf("wrong token: expected 403, got %d", res.StatusCode)
	}
	res, body := do(t, b, "GET", e.srv.URL+"/setup?token="+token, nil)
	if res.StatusCode != http.StatusOK || !strings.Contains(body, `data-testid="setup-form"`) {
		t.Fatalf("expected the setup form, got %d", res.StatusCode)
	}
	form := url.Values{"token": {token}, "email": {"not an email"}, "name": {"Root"}, "password": {"long enough pw"}}
	res, body = do(t, b, "POST", e.srv.URL+"/setup", form)
	if res.StatusCode != http.StatusUnprocessableEntity || !strings.Contains(body, `data-testid="field-error"`) {
		t.Fatalf("bad email: expected 422 with a field error, got %d", res.StatusCode)
	}
	form.Set("email", "root@example.com")
	res, _ = do(t, b, "POST", e.srv.URL+"/setup", form)
	if res.StatusCode != http.StatusCreated {
		t.Fatalf("setup: expected 201, got %d", res.StatusCode)
	}
	var session *http.Cookie
	for _, c := range res.Cookies() {
		if c.Name == "sb_session" {
			session = c
		}
	}
	if session == nil || !session.HttpOnly || !session.Secure || session.SameSite != http.SameSiteLaxMode {
		t.Fatalf("expected an HttpOnly, Secure (https base URL), SameSite=Lax session cookie, got %+v", session)
	}
	// Single use: the link and the page refuse once an admin exists.
	form.Set("email", "second@example.com")
	if res, _ := do(t, e.browser(t), "POST", e.srv.URL+"/setup", form); res.StatusCode != http.StatusGone {
		t.Fatalf("second setup: expected 410, got %d", res.StatusCode)
	}
	if link, err := e.p.SetupURL(); link != "" || err != nil {
		t.Fatalf("expected no setup URL once a superuser exists, got %q %v", link, err)
	}
}

func TestStaticFiles(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	p, err := oauth.New(e.s, oauth.Config{Static: fstest.MapFS{"static/app.css": {Data: []byte("body{}")}}})
	if err != nil {
		t.Fatal(err)
	}
	h := web.New(e.s, web.Config{Mount: []func(*http.ServeMux){p.Mount}})
	for path, want := range map[string]int{"/static/app.css": 200, "/static/": 404, "/static/missing.css": 404} {
		rec := httptestRecorder(h, "GET", path)
		if rec.Code != want {
			t.Errorf("GET %s: expected %d, got %d", path, want, rec.Code)
		}
	}
}
