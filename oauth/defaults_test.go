package oauth_test

import (
	"encoding/base64"
	"net/http"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/go-oauth2/oauth2/v4/manage"

	"switchboard/oauth"
)

// Each test here checks one of go-oauth2's unsafe defaults that the provider replaces; each
// would fail against the default behaviour named in its comment.

// Default: manage.DefaultValidateURI accepts any redirect URI whose host ends with the
// registered host.
func TestRedirectURIMustMatchExactly(t *testing.T) {
	t.Parallel()
	if manage.DefaultValidateURI("https://client.example/callback", "https://evil-client.example/steal") != nil {
		t.Fatal("premise: go-oauth2's default accepts a host with the registered host as suffix")
	}
	e := newEnv(t)
	for _, uri := range []string{
		"https://evil-client.example/callback", "https://client.example/callback/more",
		"https://client.example/callback?x=1", "https://client.example/Callback", "http://client.example/callback",
		"https://client.example:8443/callback", "https://client.example/callback#frag",
	} {
		res, body := do(t, e.sess, "GET", e.authURL(map[string]string{"response_type": "code", "client_id": e.conf.ID,
			"redirect_uri": uri, "state": "s"}), nil)
		if res.StatusCode != http.StatusBadRequest || res.Header.Get("Location") != "" || !strings.Contains(body, `data-testid="error"`) {
			t.Errorf("redirect_uri %s: expected a 400 error page and no redirect, got %d %q", uri, res.StatusCode, res.Header.Get("Location"))
		}
	}
	// Unknown client: an error page too, never a redirect.
	res, _ := do(t, e.sess, "GET", e.authURL(map[string]string{"response_type": "code", "client_id": "01J00000000000000000000000",
		"redirect_uri": clientURI}), nil)
	if res.StatusCode != http.StatusBadRequest || res.Header.Get("Location") != "" {
		t.Errorf("unknown client: expected 400 without redirect, got %d", res.StatusCode)
	}
	// At the token endpoint, a redirect_uri other than the authorize request's is invalid_grant.
	code := e.code(t, e.conf, clientURI, "")
	st, _, body := e.tokenCall(t, "/oauth/token", url.Values{"grant_type": {"authorization_code"}, "code": {code},
		"redirect_uri": {"https://client.example/other"}}, e.conf.ID, e.secret)
	if st != http.StatusBadRequest || str(body, "error") != "invalid_grant" {
		t.Fatalf("token with another redirect_uri: expected 400 invalid_grant, got %d %v", st, body)
	}
	// The failed attempt did not burn the code for its rightful holder.
	if st, body := e.exchange(t, code); st != http.StatusOK {
		t.Fatalf("expected the code to still work with the right redirect_uri, got %d %v", st, body)
	}
}

// Default: Manager.RefreshAccessToken neither authenticates the client nor checks that the
// refresh token belongs to it.
func TestRefreshAuthenticatesTheClient(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	other, otherSecret, err := e.p.CreateClient(oauth.NewClient{Name: "Other", RedirectURIs: []string{"https://other.example/cb"}})
	if err != nil {
		t.Fatal(err)
	}
	_, tok := e.exchange(t, e.code(t, e.conf, clientURI, ""))
	refresh := str(tok, "refresh_token")
	form := url.Values{"grant_type": {"refresh_token"}, "refresh_token": {refresh}}

	st, _, body := e.tokenCall(t, "/oauth/token", form, other.ID, otherSecret)
	if st != http.StatusBadRequest || str(body, "error") != "invalid_grant" {
		t.Fatalf("another client's refresh token: expected 400 invalid_grant, got %d %v", st, body)
	}
	st, hdr, body := e.tokenCall(t, "/oauth/token", form, e.conf.ID, "wrong-secret")
	if st != http.StatusUnauthorized || str(body, "error") != "invalid_client" || !strings.HasPrefix(hdr.Get("WWW-Authenticate"), "Basic") {
		t.Fatalf("wrong secret in the Authorization header: expected 401 invalid_client with WWW-Authenticate, got %d %v %q", st, body, hdr.Get("WWW-Authenticate"))
	}
	st, _, body = e.tokenCall(t, "/oauth/token", form, "", "")
	if st != http.StatusUnauthorized || str(body, "error") != "invalid_client" {
		t.Fatalf("no client credentials: expected 401 invalid_client, got %d %v", st, body)
	}
	post := url.Values{"grant_type": {"refresh_token"}, "refresh_token": {refresh}, "client_id": {e.conf.ID}, "client_secret": {"wrong"}}
	if st, _, body = e.tokenCall(t, "/oauth/token", post, "", ""); st != http.StatusUnauthorized || str(body, "error") != "invalid_client" {
		t.Fatalf("wrong client_secret in the body: expected 401 invalid_client, got %d %v", st, body)
	}
	// None of the refused attempts consumed the token.
	if st, body := e.refreshCall(t, refresh); st != http.StatusOK {
		t.Fatalf("expected the rightful client's refresh to work, got %d %v", st, body)
	}
}

// Default: a code redeemed twice is refused, but what it issued keeps working.
func TestReusedCodeRevokesItsTokens(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	code := e.code(t, e.conf, clientURI, "")
	st, tok := e.exchange(t, code)
	if st != http.StatusOK {
		t.Fatalf("first redemption: expected 200, got %d %v", st, tok)
	}
	if st, _ := e.createConversation(t, str(tok, "access_token")); st != http.StatusCreated {
		t.Fatalf("expected the access token to work, got %d", st)
	}
	st, body := e.exchange(t, code)
	if st != http.StatusBadRequest || str(body, "error") != "invalid_grant" {
		t.Fatalf("second redemption: expected 400 invalid_grant, got %d %v", st, body)
	}
	e.expectRevoked(t, str(tok, "access_token"), "the access token of a reused code")
	if st, body := e.refreshCall(t, str(tok, "refresh_token")); st != http.StatusBadRequest || str(body, "error") != "invalid_grant" {
		t.Fatalf("the refresh token of a reused code: expected 400 invalid_grant, got %d %v", st, body)
	}
}

// Default: codes live 10 minutes in go-oauth2 too, but by time.Now; here by the injected clock.
func TestCodeExpires(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	code := e.code(t, e.conf, clientURI, "")
	e.clock.Advance(oauth.CodeTTL)
	if st, body := e.exchange(t, code); st != http.StatusBadRequest || str(body, "error") != "invalid_grant" {
		t.Fatalf("expired code: expected 400 invalid_grant, got %d %v", st, body)
	}
}

// Default: the implicit response type and the password and client_credentials grants are on.
func TestOnlyCodeAndRefreshGrants(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	for _, gt := range []string{"password", "client_credentials", "implicit", "urn:ietf:params:oauth:grant-type:device_code"} {
		form := url.Values{"grant_type": {gt}, "username": {e.user.Email}, "password": {password}, "scope": {"integrations"}}
		st, _, body := e.tokenCall(t, "/oauth/token", form, e.conf.ID, e.secret)
		if st != http.StatusBadRequest || str(body, "error") != "unsupported_grant_type" {
			t.Errorf("grant_type=%s: expected 400 unsupported_grant_type, got %d %v", gt, st, body)
		}
	}
	st, _, body := e.tokenCall(t, "/oauth/token", url.Values{"code": {"x"}}, e.conf.ID, e.secret)
	if st != http.StatusBadRequest || str(body, "error") != "invalid_request" {
		t.Errorf("no grant_type: expected 400 invalid_request, got %d %v", st, body)
	}
	for _, rt := range []string{"token", "code token", "id_token"} {
		u := e.authorizeRedirect(t, map[string]string{"response_type": rt, "client_id": e.conf.ID, "redirect_uri": clientURI, "state": "s1"})
		if u.Query().Get("error") != "unsupported_response_type" || u.Query().Get("state") != "s1" || u.Fragment != "" {
			t.Errorf("response_type=%s: expected a redirect with error=unsupported_response_type and the state, got %s", rt, u)
		}
	}
}

// Default: PKCE "plain" is allowed, public clients need no PKCE, and a missing method means
// plain.
func TestPKCERules(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	verifier := strings.Repeat("v", 50)
	refusals := []struct {
		name   string
		client oauth.Client
		params map[string]string
	}{
		{"plain", e.conf, map[string]string{"code_challenge": verifier, "code_challenge_method": "plain"}},
		{"challenge without method", e.conf, map[string]string{"code_challenge": challenge(verifier)}},
		{"unknown method", e.conf, map[string]string{"code_challenge": challenge(verifier), "code_challenge_method": "S512"}},
		{"public client without PKCE", e.pub, nil},
		{"public client with plain", e.pub, map[string]string{"code_challenge": verifier, "code_challenge_method": "plain"}},
	}
	for _, r := range refusals {
		params := map[string]string{"response_type": "code", "client_id": r.client.ID, "redirect_uri": r.client.RedirectURIs[0], "state": "pk"}
		for k, v := range r.params {
			params[k] = v
		}
		u := e.authorizeRedirect(t, params)
		if u.Query().Get("error") != "invalid_request" || u.Query().Get("state") != "pk" || u.Query().Has("code") {
			t.Errorf("%s: expected a redirect with error=invalid_request and the state, got %s", r.name, u)
		}
	}

	// At the token endpoint: a missing or wrong verifier, or one without a challenge, is invalid_grant.
	withPKCE := e.code(t, e.conf, clientURI, verifier)
	for name, v := range map[string]string{"missing verifier": "", "wrong verifier": strings.Repeat("w", 50), "malformed verifier": "short"} {
		form := url.Values{"grant_type": {"authorization_code"}, "code": {withPKCE}, "redirect_uri": {clientURI}}
		if v != "" {
			form.Set("code_verifier", v)
		}
		if st, _, body := e.tokenCall(t, "/oauth/token", form, e.conf.ID, e.secret); st != http.StatusBadRequest || str(body, "error") != "invalid_grant" {
			t.Errorf("%s: expected 400 invalid_grant, got %d %v", name, st, body)
		}
	}
	without := e.code(t, e.conf, clientURI, "")
	form := url.Values{"grant_type": {"authorization_code"}, "code": {without}, "redirect_uri": {clientURI}, "code_verifier": {verifier}}
	if st, _, body := e.tokenCall(t, "/oauth/token", form, e.conf.ID, e.secret); st != http.StatusBadRequest || str(body, "error") != "invalid_grant" {
		t.Errorf("verifier without a challenge: expected 400 invalid_grant, got %d %v", st, body)
	}
	form = url.Values{"grant_type": {"authorization_code"}, "code": {withPKCE}, "redirect_uri": {clientURI}, "code_verifier": {verifier}}
	if st, _, body := e.tokenCall(t, "/oauth/token", form, e.conf.ID, e.secret); st != http.StatusOK {
		t.Errorf("right verifier: expected 200, got %d %v", st, body)
	}
}

// Default: go-oauth2 answers invalid_grant and unsupported_grant_type with 401.
func TestTokenEndpointResponses(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	st, hdr, body := e.tokenCall(t, "/oauth/token", url.Values{"grant_type": {"authorization_code"}, "code": {"nope"},
		"redirect_uri": {clientURI}}, e.conf.ID, e.secret)
	if st != http.StatusBadRequest || str(body, "error") != "invalid_grant" || hdr.Get("Cache-Control") != "no-store" {
		t.Fatalf("unknown code: expected 400 invalid_grant, no-store; got %d %v %q", st, body, hdr.Get("Cache-Control"))
	}
	// Parameters in the URL, repeated parameters, a non-form body: invalid_request.
	req, _ := http.NewRequest("POST", e.srv.URL+"/oauth/token?client_secret="+url.QueryEscape(e.secret), strings.NewReader("grant_type=refresh_token&refresh_token=x"))
	req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	req.SetBasicAuth(e.conf.ID, e.secret)
	res, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	res.Body.Close()
	if res.StatusCode != http.StatusBadRequest {
		t.Errorf("parameters in the URL: expected 400, got %d", res.StatusCode)
	}
	form := url.Values{"grant_type": {"refresh_token"}, "refresh_token": {"a", "b"}}
	if st, _, body := e.tokenCall(t, "/oauth/token", form, e.conf.ID, e.secret); st != http.StatusBadRequest || str(body, "error") != "invalid_request" {
		t.Errorf("repeated parameter: expected 400 invalid_request, got %d %v", st, body)
	}

	// A success: every token and the code carry 256 random bits, and nothing is cached.
	code := e.code(t, e.conf, clientURI, "")
	st, hdr, body = e.tokenCall(t, "/oauth/token", url.Values{"grant_type": {"authorization_code"}, "code": {code},
		"redirect_uri": {clientURI}}, e.conf.ID, e.secret)
	if st != http.StatusOK || hdr.Get("Cache-Control") != "no-store" || hdr.Get("Pragma") != "no-cache" {
		t.Fatalf("success: expected 200 with Cache-Control no-store, got %d %q", st, hdr.Get("Cache-Control"))
	}
	if body["expires_in"] != float64(3600) || str(body, "token_type") != "Bearer" || str(body, "scope") != "integrations" {
		t.Errorf("unexpected token response %v", body)
	}
	for _, v := range []string{code, str(body, "access_token"), str(body, "refresh_token"), e.secret} {
		raw, err := base64.RawURLEncoding.DecodeString(v[4:])
		if err != nil || len(raw) != 32 {
			t.Errorf("%s…: expected a 4-character prefix and 32 random bytes, got %d bytes (%v)", v[:4], len(raw), err)
		}
	}
}

// Default: Manager.RefreshAccessToken keeps the old access token unless configured, and a
// replayed refresh token is only refused.
func TestRefreshRotationAndReplay(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	_, first := e.exchange(t, e.code(t, e.conf, clientURI, ""))
	e.clock.Advance(time.Minute)
	st, second := e.refreshCall(t, str(first, "refresh_token"))
	if st != http.StatusOK {
		t.Fatalf("refresh: expected 200, got %d %v", st, second)
	}
	e.expectRevoked(t, str(first, "access_token"), "the access token replaced by a refresh")
	if st, _ := e.createConversation(t, str(second, "access_token")); st != http.StatusCreated {
		t.Fatalf("the new access token: expected 201, got %d", st)
	}
	if st, body := e.refreshCall(t, str(first, "refresh_token")); st != http.StatusBadRequest || str(body, "error") != "invalid_grant" {
		t.Fatalf("replayed refresh token: expected 400 invalid_grant, got %d %v", st, body)
	}
	e.expectRevoked(t, str(second, "access_token"), "the grant's access token after a replay")
	if st, _ := e.refreshCall(t, str(second, "refresh_token")); st != http.StatusBadRequest {
		t.Fatalf("the grant's refresh token after a replay: expected 400, got %d", st)
	}
}

// authorizeRedirect sends an authorize request from the signed-in browser and returns the
// redirect to the client (for refusals, before any consent).
func (e *env) authorizeRedirect(t *testing.T, params map[string]string) *url.URL {
	t.Helper()
	res, body := do(t, e.sess, "GET", e.authURL(params), nil)
	loc := res.Header.Get("Location")
	if res.StatusCode != http.StatusFound || loc == "" {
		t.Fatalf("expected a redirect to the client, got %d: %.200s", res.StatusCode, body)
	}
	u, err := url.Parse(loc)
	if err != nil {
		t.Fatal(err)
	}
	return u
}
