package oauth_test

import (
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/url"
	"reflect"
	"slices"
	"strings"
	"testing"

	"golang.org/x/oauth2"

	"switchboard/oauth"
	"switchboard/web"
)

// TestDiscovery is what a discovery-based client does: read the RFC 8414 metadata, configure
// golang.org/x/oauth2 from it alone, and run the whole flow (PKCE S256 as advertised, exchange,
// API call, refresh, revoke at the advertised endpoint).
func TestDiscovery(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	res, err := http.Get(e.srv.URL + "/.well-known/oauth-authorization-server")
	if err != nil {
		t.Fatal(err)
	}
	raw, _ := io.ReadAll(res.Body)
	res.Body.Close()
	if res.StatusCode != http.StatusOK || !strings.HasPrefix(res.Header.Get("Content-Type"), "application/json") {
		t.Fatalf("metadata: expected 200 JSON, got %d %q: %s", res.StatusCode, res.Header.Get("Content-Type"), raw)
	}
	var md map[string]any
	if err := json.Unmarshal(raw, &md); err != nil {
		t.Fatalf("metadata is not JSON: %v", err)
	}
	want := map[string]any{
		"issuer":                                e.srv.URL,
		"authorization_endpoint":                e.srv.URL + "/oauth/authorize",
		"token_endpoint":                        e.srv.URL + "/oauth/token",
		"revocation_endpoint":                   e.srv.URL + "/oauth/revoke",
		"response_types_supported":              []any{"code"},
		"grant_types_supported":                 []any{"authorization_code", "refresh_token"},
		"code_challenge_methods_supported":      []any{"S256"},
		"token_endpoint_auth_methods_supported": []any{"client_secret_basic", "client_secret_post", "none"},
		"scopes_supported":                      []any{"integrations"},
		"service_documentation":                 e.srv.URL + "/docs",
	}
	if !reflect.DeepEqual(md, want) {
		t.Fatalf("metadata:\n got %v\nwant %v", md, want)
	}

	ctx := context.WithValue(context.Background(), oauth2.HTTPClient, e.srv.Client())
	authStyle := oauth2.AuthStyleInParams
	if slices.Contains(md["token_endpoint_auth_methods_supported"].([]any), any("client_secret_basic")) {
		authStyle = oauth2.AuthStyleInHeader
	}
	cfg := &oauth2.Config{
		ClientID: e.conf.ID, ClientSecret: e.secret, RedirectURL: clientURI,
		Scopes: []string{md["scopes_supported"].([]any)[0].(string)},
		Endpoint: oauth2.Endpoint{AuthURL: md["authorization_endpoint"].(string), TokenURL: md["token_endpoint"].(string),
			AuthStyle: authStyle},
	}
	verifier := oauth2.GenerateVerifier()
	back := e.authorize(t, e.sess, cfg.AuthCodeURL("st", oauth2.S256ChallengeOption(verifier)), "allow")
	if back.Query().Get("state") != "st" || back.Query().Get("code") == "" {
		t.Fatalf("expected a code and the state back, got %s", back)
	}
	tok, err := cfg.Exchange(ctx, back.Query().Get("code"), oauth2.VerifierOption(verifier))
	if err != nil {
		t.Fatalf("exchange at the advertised token endpoint: %v", err)
	}
	if st, _, me := e.api(t, tok.AccessToken, "me-action", map[string]any{"developerProvider": "zapier"}); st != http.StatusOK || str(me, "email") != e.user.Email {
		t.Fatalf("me-action with the discovered flow's token: %d %v", st, me)
	}
	refreshed, err := cfg.TokenSource(ctx, &oauth2.Token{RefreshToken: tok.RefreshToken}).Token()
	if err != nil {
		t.Fatalf("refresh at the advertised token endpoint: %v", err)
	}

	// Revocation at the advertised endpoint answers JSON {} (clients parse every answer).
	form := url.Values{"token": {refreshed.RefreshToken}, "client_id": {e.conf.ID}, "client_secret": {e.secret}}
	res, err = http.PostForm(md["revocation_endpoint"].(string), form)
	if err != nil {
		t.Fatal(err)
	}
	body, _ := io.ReadAll(res.Body)
	res.Body.Close()
	if res.StatusCode != http.StatusOK || res.Header.Get("Content-Type") != "application/json" || string(body) != "{}" {
		t.Fatalf("revoke: expected 200 application/json {}, got %d %q %q", res.StatusCode, res.Header.Get("Content-Type"), body)
	}
	e.expectRevoked(t, refreshed.AccessToken, "the access token of a revoked grant")
}

// TestDiscoveryIssuerIsThePublicURL: behind a proxy the configured public URL, not the address
// the request reached, is the issuer and the base of every endpoint.
func TestDiscoveryIssuerIsThePublicURL(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	h := web.New(e.s, web.Config{OAuth: e.p, BaseURL: "https://text.example.com"})
	rec := httptestRecorder(h, "GET", "/.well-known/oauth-authorization-server")
	var md oauth.Metadata
	if err := json.Unmarshal(rec.Body.Bytes(), &md); err != nil || rec.Code != http.StatusOK {
		t.Fatalf("metadata: %d %v", rec.Code, err)
	}
	if md.Issuer != "https://text.example.com" || md.TokenEndpoint != "https://text.example.com/oauth/token" ||
		md.ServiceDocumentation != "https://text.example.com/docs" {
		t.Fatalf("expected the public URL as issuer and endpoint base, got %+v", md)
	}
}
