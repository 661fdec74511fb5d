package oauth_test

import (
	"context"
	"fmt"
	"net/http"
	"net/url"
	"strings"
	"testing"
	"time"

	"golang.org/x/oauth2"

	"switchboard/store"
)

func (e *env) oauthConfig(secret string) *oauth2.Config {
	return &oauth2.Config{
		ClientID: e.conf.ID, ClientSecret: secret, RedirectURL: clientURI, Scopes: []string{"integrations"},
		Endpoint: oauth2.Endpoint{AuthURL: e.srv.URL + "/oauth/authorize", TokenURL: e.srv.URL + "/oauth/token",
			AuthStyle: oauth2.AuthStyleInHeader},
	}
}

func (e *env) oauthCtx() context.Context {
	return context.WithValue(context.Background(), oauth2.HTTPClient, e.srv.Client())
}

// subscribe makes a subscription through the API with token and returns its id.
func (e *env) subscribe(t *testing.T, token, hook string) string {
	t.Helper()
	st, _, body := e.api(t, token, "subscribe-webhook", map[string]any{"developerProvider": "zapier",
		"workspaceId": e.ws.ID, "eventName": store.EventContactCreated, "hookUrl": hook})
	if st != http.StatusCreated || str(body, "id") == "" {
		t.Fatalf("subscribe-webhook: %d %v", st, body)
	}
	return str(body, "id")
}

// subs reports which subscriptions of the workspace exist.
func (e *env) subs(t *testing.T) map[string]bool {
	t.Helper()
	all, err := e.s.Subscriptions(e.ws.ID)
	if err != nil {
		t.Fatal(err)
	}
	out := map[string]bool{}
	for _, s := range all {
		out[s.ID] = true
	}
	return out
}

func (e *env) deliveryStatuses(t *testing.T, subID string) []string {
	t.Helper()
	ds, err := e.s.SubscriptionDeliveries(subID, 0)
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, d := range ds {
		out = append(out, d.Status)
	}
	return out
}

var phoneSeq = 100

// contact creates a contact through the API with token, which emits contact.created.
func (e *env) contact(t *testing.T, token string) {
	t.Helper()
	phoneSeq++
	st, _, body := e.api(t, token, "create-contact-action", map[string]any{"developerProvider": "zapier", "id": e.ws.ID,
		"firstName": "Ada", "phone": fmt.Sprintf("+1415555%04d", phoneSeq)})
	if st != http.StatusCreated {
		t.Fatalf("create-contact: %d %v", st, body)
	}
}

// TestSecretRotationByBehaviour rotates the client secret and checks what each secret can do
// from a real OAuth client: the old one is refused at once, the new one works, and tokens
// already issued keep working (they were issued to the same client).
func TestSecretRotationByBehaviour(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	ctx := e.oauthCtx()
	old := e.oauthConfig(e.secret)
	tok := e.connect(t, old, ctx)

	secret, err := e.p.RotateSecret(e.conf.ID)
	if err != nil || secret == e.secret {
		t.Fatalf("RotateSecret: %q, %v; want a new secret", secret, err)
	}
	_, err = old.TokenSource(ctx, &oauth2.Token{RefreshToken: tok.RefreshToken}).Token()
	expectOAuthError(t, err, "invalid_client", http.StatusUnauthorized)
	back := e.authorize(t, e.sess, old.AuthCodeURL("s"), "allow")
	_, err = old.Exchange(ctx, back.Query().Get("code"))
	expectOAuthError(t, err, "invalid_client", http.StatusUnauthorized)
	// Revocation authenticates the client too: the old secret revokes nothing.
	if st, _, _ := e.tokenCall(t, "/oauth/revoke", url.Values{"token": {tok.RefreshToken}}, e.conf.ID, e.secret); st != http.StatusUnauthorized {
		t.Fatalf("revoke with the old secret: %d, want 401", st)
	}

	if st, _ := e.createConversation(t, tok.AccessToken); st != http.StatusOK && st != http.StatusCreated {
		t.Fatalf("the access token issued before the rotation: %d, want it still working", st)
	}
	fresh, err := e.oauthConfig(secret).TokenSource(ctx, &oauth2.Token{RefreshToken: tok.RefreshToken}).Token()
	if err != nil {
		t.Fatalf("refresh with the new secret: %v", err)
	}
	if st, _ := e.createConversation(t, fresh.AccessToken); st != http.StatusOK {
		t.Fatalf("token from the new secret: %d", st)
	}
}

// TestDeletedClient: deleting a client stops its tokens at once, refuses its refresh tokens and
// deletes the subscriptions made through it with their pending deliveries; the user's
// subscription made with a personal token stays.
func TestDeletedClient(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	ctx := e.oauthCtx()
	cfg := e.oauthConfig(e.secret)
	tok := e.connect(t, cfg, ctx)
	_, personal, err := e.s.CreateToken(e.user.ID, "script")
	if err != nil {
		t.Fatal(err)
	}
	viaApp := e.subscribe(t, tok.AccessToken, "https://hooks.example.com/app")
	viaPersonal := e.subscribe(t, personal, "https://hooks.example.com/personal")
	e.contact(t, personal)
	if n, _ := e.s.QueueDepth(); n != 2 {
		t.Fatalf("queue depth %d, want 2 pending deliveries", n)
	}

	if err := e.p.DeleteClient(e.conf.ID); err != nil {
		t.Fatal(err)
	}
	e.expectRevoked(t, tok.AccessToken, "an access token of a deleted client")
	_, err = cfg.TokenSource(ctx, &oauth2.Token{RefreshToken: tok.RefreshToken}).Token()
	expectOAuthError(t, err, "invalid_client", http.StatusUnauthorized)

	subs := e.subs(t)
	if subs[viaApp] {
		t.Fatal("the subscription made through the deleted client survived")
	}
	if !subs[viaPersonal] {
		t.Fatal("the subscription made with a personal token was deleted with the client")
	}
	if got := e.deliveryStatuses(t, viaApp); len(got) != 1 || got[0] != store.DeliveryCancelled {
		t.Fatalf("deliveries of the deleted client's subscription: %v, want one cancelled", got)
	}
	if n, _ := e.s.QueueDepth(); n != 1 {
		t.Fatalf("queue depth %d after the deletion, want 1", n)
	}
	// Unsubscribing the deleted one is a 404 now; the next event goes only to the survivor.
	if st, _, _ := e.api(t, personal, "unsubscribe-webhook", map[string]any{"developerProvider": "zapier", "workspaceId": e.ws.ID, "id": viaApp}); st != http.StatusNotFound {
		t.Fatalf("unsubscribe the deleted subscription: %d, want 404", st)
	}
	e.contact(t, personal)
	if got := e.deliveryStatuses(t, viaPersonal); len(got) != 2 {
		t.Fatalf("the personal subscription has %d deliveries, want 2", len(got))
	}
}

// TestRevokedGrantEndsItsSubscriptions: a subscription belongs to the grant it was made
// through, not to the access token (which each refresh replaces): refreshing keeps it, revoking
// the grant (RFC 7009 with the refresh token, or the admin) deletes exactly that grant's ones.
func TestRevokedGrantEndsItsSubscriptions(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	ctx := e.oauthCtx()
	cfg := e.oauthConfig(e.secret)
	a := e.connect(t, cfg, ctx)
	b := e.connect(t, cfg, ctx)
	subA := e.subscribe(t, a.AccessToken, "https://hooks.example.com/a")
	subB := e.subscribe(t, b.AccessToken, "https://hooks.example.com/b")

	// A refresh replaces the access token; the subscription made with the old one stays.
	b2, err := cfg.TokenSource(ctx, &oauth2.Token{RefreshToken: b.RefreshToken}).Token()
	if err != nil {
		t.Fatal(err)
	}
	if !e.subs(t)[subB] {
		t.Fatal("refreshing deleted the grant's subscription")
	}
	e.contact(t, b2.AccessToken)

	if st, _, _ := e.tokenCall(t, "/oauth/revoke", url.Values{"token": {a.RefreshToken}}, e.conf.ID, e.secret); st != http.StatusOK {
		t.Fatalf("revoke: %d", st)
	}
	subs := e.subs(t)
	if subs[subA] {
		t.Fatal("the revoked grant's subscription survived")
	}
	if !subs[subB] {
		t.Fatal("revoking one grant deleted another grant's subscription")
	}
	if got := e.deliveryStatuses(t, subA); len(got) != 1 || got[0] != store.DeliveryCancelled {
		t.Fatalf("deliveries of the revoked grant's subscription: %v, want one cancelled", got)
	}

	gs, err := e.p.Grants(e.user.ID)
	if err != nil || len(gs) != 1 {
		t.Fatalf("grants %v, %v; want the one left", gs, err)
	}
	if err := e.p.RevokeGrant(gs[0].ID); err != nil {
		t.Fatal(err)
	}
	if e.subs(t)[subB] {
		t.Fatal("the subscription survived the admin's revocation of its grant")
	}
	if n, _ := e.s.QueueDepth(); n != 0 {
		t.Fatalf("queue depth %d, want 0", n)
	}
}

// TestSweeper: the sweeper deletes grants whose refresh token expired (their subscriptions
// with them) and keeps live ones. The server runs it hourly (cli's sweeper, tested there).
func TestSweeper(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	ctx := e.oauthCtx()
	cfg := e.oauthConfig(e.secret)
	old := e.connect(t, cfg, ctx)
	oldSub := e.subscribe(t, old.AccessToken, "https://hooks.example.com/old")
	e.clock.Advance(61 * 24 * time.Hour) // past the refresh token's 60 days
	live := e.connect(t, cfg, ctx)
	liveSub := e.subscribe(t, live.AccessToken, "https://hooks.example.com/live")
	if gs, _ := e.p.Grants(e.user.ID); len(gs) != 2 {
		t.Fatalf("%d grants before the sweep, want 2 (nothing deletes the expired one but the sweeper)", len(gs))
	}

	if err := e.p.Sweep(); err != nil {
		t.Fatalf("sweep: %v", err)
	}
	if gs, _ := e.p.Grants(e.user.ID); len(gs) != 1 {
		t.Fatalf("the sweep left %d grants, want the expired one gone", len(gs))
	}

	subs := e.subs(t)
	if subs[oldSub] {
		t.Fatal("the swept grant's subscription survived")
	}
	if !subs[liveSub] {
		t.Fatal("the sweeper deleted a live grant's subscription")
	}
	if st, _ := e.createConversation(t, live.AccessToken); st != http.StatusCreated && st != http.StatusOK {
		t.Fatalf("the live grant's access token after the sweep: %d", st)
	}
	if _, err := cfg.TokenSource(ctx, &oauth2.Token{RefreshToken: live.RefreshToken}).Token(); err != nil {
		t.Fatalf("the live grant's refresh token after the sweep: %v", err)
	}
}

// TestOversizedFormsRefused: the sign-in, setup and consent forms and the token endpoint read
// at most 64 KiB; a larger body is refused (413 on the pages, invalid_request at the endpoint)
// and signs no one in.
func TestOversizedFormsRefused(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	big := strings.Repeat("a", 100<<10)
	for _, path := range []string{"/oauth/login", "/setup", "/oauth/authorize"} {
		res, _ := do(t, e.browser(t), "POST", e.srv.URL+path, url.Values{"email": {e.user.Email}, "password": {password}, "pad": {big}})
		if res.StatusCode != http.StatusRequestEntityTooLarge {
			t.Errorf("POST %s with a 100 KiB form: %d, want 413", path, res.StatusCode)
		}
		for _, c := range res.Cookies() {
			if c.Name == "sb_session" && c.Value != "" {
				t.Errorf("POST %s with a 100 KiB form set a session", path)
			}
		}
	}
	st, _, out := e.tokenCall(t, "/oauth/token", url.Values{"grant_type": {"authorization_code"}, "code": {big}}, e.conf.ID, e.secret)
	if st != http.StatusBadRequest || str(out, "error") != "invalid_request" {
		t.Errorf("token endpoint with a 100 KiB form: %d %v, want 400 invalid_request", st, out)
	}
}
