package web

import (
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"testing"

	"switchboard/oauth"
	"switchboard/store"
)

// withOAuth serves e again with an OAuth provider the test can reach, and returns it.
func withOAuth(t *testing.T, e *uiEnv) *oauth.Provider {
	t.Helper()
	prov, err := oauth.New(e.st, oauth.Config{Session: e.sess})
	if err != nil {
		t.Fatal(err)
	}
	e.srv.Close()
	e.srv = httptest.NewServer(New(e.st, Config{Sessions: e.sess, OAuth: prov}))
	t.Cleanup(e.srv.Close)
	return prov
}

// connectApp connects an OAuth app for the signed-in c (consent, code, token) and returns its
// access token.
func connectApp(t *testing.T, e *uiEnv, prov *oauth.Provider, c *http.Client) string {
	t.Helper()
	client, secret, err := prov.CreateClient(oauth.NewClient{Name: "Zap", RedirectURIs: []string{"https://zap.example.com/cb"}})
	if err != nil {
		t.Fatal(err)
	}
	params := url.Values{"response_type": {"code"}, "client_id": {client.ID}, "redirect_uri": {"https://zap.example.com/cb"},
		"scope": {"integrations"}, "state": {"s1"}}
	if res, _ := e.send(t, c, "GET", "/oauth/authorize?"+params.Encode(), nil); res.StatusCode != http.StatusOK {
		t.Fatalf("consent page: %d", res.StatusCode)
	}
	params.Set("decision", "allow")
	res, _ := e.send(t, c, "POST", "/oauth/authorize", params)
	loc, err := url.Parse(res.Header.Get("Location"))
	if err != nil || loc.Query().Get("code") == "" {
		t.Fatalf("consent: %d to %q, want a code", res.StatusCode, res.Header.Get("Location"))
	}
	res, body := e.send(t, e.browser(t), "POST", "/oauth/token", url.Values{"grant_type": {"authorization_code"},
		"code": {loc.Query().Get("code")}, "redirect_uri": {"https://zap.example.com/cb"}, "client_id": {client.ID}, "client_secret": {secret}})
	var tok struct {
		AccessToken string `json:"access_token"`
	}
	if err := json.Unmarshal([]byte(body), &tok); err != nil || tok.AccessToken == "" {
		t.Fatalf("token: %d %s", res.StatusCode, body)
	}
	return tok.AccessToken
}

// apiAccess is alice's personal token, a webhook subscription made with it, and a connected
// app's access token.
type apiAccess struct {
	personal, app string
	sub           store.Subscription
}

func grantAccess(t *testing.T, e *uiEnv, prov *oauth.Provider, c *http.Client) apiAccess {
	t.Helper()
	tok, plain, err := e.st.CreateToken(e.alice.ID, "zap")
	if err != nil {
		t.Fatal(err)
	}
	sub, err := e.st.SubscribeAs(tok, e.a.ID, store.EventContactCreated, "https://hooks.example.com/a")
	if err != nil {
		t.Fatal(err)
	}
	return apiAccess{personal: plain, app: connectApp(t, e, prov, c), sub: sub}
}

// works reports which of the access still works: the tokens authenticate, the subscription
// exists.
func (a apiAccess) works(e *uiEnv) (personal, app, sub bool) {
	_, err1 := e.st.Authenticate(a.personal)
	_, err2 := e.st.Authenticate(a.app)
	_, err3 := e.st.FindSubscription(a.sub.ID)
	return err1 == nil, err2 == nil, err3 == nil
}

// TestResetRevokesAPIAccess: setting a password through a reset link also revokes the user's
// personal API tokens (with their webhook subscriptions) and disconnects their apps: whoever
// made the reset necessary loses what they could have made with the old password.
func TestResetRevokesAPIAccess(t *testing.T) {
	t.Parallel()
	e := newUIEnv(t)
	prov := withOAuth(t, e)
	a := grantAccess(t, e, prov, e.signIn(t, e.alice))
	if p, app, sub := a.works(e); !p || !app || !sub {
		t.Fatalf("before: personal %v, app %v, subscription %v", p, app, sub)
	}
	link, err := e.st.CreateReset(e.alice.ID, e.st.Now())
	if err != nil {
		t.Fatal(err)
	}
	res, body := e.send(t, e.browser(t), "POST", "/reset/"+link, url.Values{"password": {"a fresh password"}})
	if res.StatusCode != http.StatusOK || !strings.Contains(body, "API tokens") {
		t.Fatalf("reset: %d, want 200 saying the API tokens were revoked", res.StatusCode)
	}
	if p, app, sub := a.works(e); p || app || sub {
		t.Fatalf("after the reset: personal %v, app %v, subscription %v; want none left", p, app, sub)
	}
}

// TestPasswordChangeCanRevokeAPIAccess: a password change keeps API access unless "Also revoke"
// is ticked, which revokes the personal tokens and disconnects the apps.
func TestPasswordChangeCanRevokeAPIAccess(t *testing.T) {
	t.Parallel()
	e := newUIEnv(t)
	prov := withOAuth(t, e)
	c := e.signIn(t, e.alice)
	_, body := e.send(t, c, "GET", "/settings/profile", nil)
	if !strings.Contains(body, `<label for="revoke-access"`) {
		t.Fatal("the password form lacks a labelled \"also revoke\" box")
	}
	a := grantAccess(t, e, prov, c)
	res, _ := e.send(t, c, "POST", "/settings/profile/password", url.Values{"current_password": {uiPassword}, "password": {"second password"}})
	wantRedirect(t, res, "/settings/profile?done=password")
	if p, app, sub := a.works(e); !p || !app || !sub {
		t.Fatalf("a plain change: personal %v, app %v, subscription %v; want all kept", p, app, sub)
	}
	res, _ = e.send(t, c, "POST", "/settings/profile/password", url.Values{"current_password": {"second password"},
		"password": {"third password"}, "revoke_access": {"yes"}})
	wantRedirect(t, res, "/settings/profile?done=password-revoked")
	if p, app, sub := a.works(e); p || app || sub {
		t.Fatalf("a change with revoke: personal %v, app %v, subscription %v; want none left", p, app, sub)
	}
}
