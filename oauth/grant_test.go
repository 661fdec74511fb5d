package oauth_test

import (
	"context"
	"fmt"
	"net/http"
	"net/url"
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
