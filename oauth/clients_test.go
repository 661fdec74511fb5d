package oauth_test

import (
	"net/http"
	"net/url"
	"testing"

	"golang.org/x/oauth2"

	"switchboard/store"
)

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
