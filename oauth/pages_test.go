package oauth_test

import (
	"net/http"
	"net/url"
	"strings"
	"testing"
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
