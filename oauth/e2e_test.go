package oauth_test

import (
	"context"
	"errors"
	"net/http"
	"net/url"
	"strings"
	"testing"
	"time"

	"golang.org/x/oauth2"
)

// TestFlowEndToEnd drives the whole flow with golang.org/x/oauth2 as the client: sign in
// through the form, consent, exchange, call the API, refresh, replay, revoke, expire.
func TestFlowEndToEnd(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	ctx := context.WithValue(context.Background(), oauth2.HTTPClient, e.srv.Client())
	cfg := &oauth2.Config{
		ClientID: e.conf.ID, ClientSecret: e.secret, RedirectURL: clientURI, Scopes: []string{"integrations"},
		Endpoint: oauth2.Endpoint{AuthURL: e.srv.URL + "/oauth/authorize", TokenURL: e.srv.URL + "/oauth/token",
			AuthStyle: oauth2.AuthStyleInHeader},
	}
	for _, pkce := range []bool{false, true} {
		name := map[bool]string{false: "confidential without PKCE", true: "confidential with PKCE"}[pkce]
		t.Run(name, func(t *testing.T) {
			var opts, exOpts []oauth2.AuthCodeOption
			if pkce {
				v := oauth2.GenerateVerifier()
				opts, exOpts = []oauth2.AuthCodeOption{oauth2.S256ChallengeOption(v)}, []oauth2.AuthCodeOption{oauth2.VerifierOption(v)}
			}
			// The first run signs in through the form with a fresh cookie jar.
			b := e.sess
			if !pkce {
				b = e.browser(t)
			}
			back := e.authorize(t, b, cfg.AuthCodeURL("xyz-state", opts...), "allow")
			if got := back.Scheme + "://" + back.Host + back.Path; got != clientURI {
				t.Fatalf("expected the redirect to the registered URI %s, got %s", clientURI, got)
			}
			if back.Query().Get("state") != "xyz-state" {
				t.Fatalf("expected state xyz-state back, got %q", back.Query().Get("state"))
			}
			tok, err := cfg.Exchange(ctx, back.Query().Get("code"), exOpts...)
			if err != nil {
				t.Fatalf("exchange: %v", err)
			}
			if tok.TokenType != "Bearer" || tok.RefreshToken == "" || tok.Extra("scope") != "integrations" {
				t.Fatalf("unexpected token response: %+v scope=%v", tok, tok.Extra("scope"))
			}
			if left := time.Until(tok.Expiry); left < 59*time.Minute || left > 61*time.Minute {
				t.Fatalf("expected expires_in of the configured hour, token expires in %s", left)
			}
			st, _ := e.createConversation(t, tok.AccessToken)
			if st != http.StatusCreated && st != http.StatusOK {
				t.Fatalf("create-conversation with the access token: expected 201/200, got %d", st)
			}
			st, _, me := e.api(t, tok.AccessToken, "me-action", map[string]any{"developerProvider": "zapier"})
			if st != http.StatusOK || str(me, "userId") != e.user.ID || str(me, "email") != e.user.Email {
				t.Fatalf("me-action: expected the token's user %s, got %d %v", e.user.ID, st, me)
			}

			// Refresh: a new pair; the old access token stops working.
			refreshed, err := cfg.TokenSource(ctx, &oauth2.Token{RefreshToken: tok.RefreshToken}).Token()
			if err != nil {
				t.Fatalf("refresh: %v", err)
			}
			if refreshed.RefreshToken == tok.RefreshToken || refreshed.AccessToken == tok.AccessToken {
				t.Fatal("expected refresh to rotate both tokens")
			}
			e.expectRevoked(t, tok.AccessToken, "the access token before the refresh")
			if st, _ := e.createConversation(t, refreshed.AccessToken); st != http.StatusOK {
				t.Fatalf("create-conversation after refresh: expected 200 (existing), got %d", st)
			}

			// Replaying the rotated refresh token revokes the whole grant.
			_, err = cfg.TokenSource(ctx, &oauth2.Token{RefreshToken: tok.RefreshToken}).Token()
			expectOAuthError(t, err, "invalid_grant", http.StatusBadRequest)
			e.expectRevoked(t, refreshed.AccessToken, "the current access token after a replayed refresh token")
			_, err = cfg.TokenSource(ctx, &oauth2.Token{RefreshToken: refreshed.RefreshToken}).Token()
			expectOAuthError(t, err, "invalid_grant", http.StatusBadRequest)
		})
	}

	t.Run("revoke", func(t *testing.T) {
		tok := e.connect(t, cfg, ctx)
		// RFC 7009 with client_secret_post this time.
		st, hdr, _ := e.tokenCall(t, "/oauth/revoke", url.Values{"token": {tok.RefreshToken}, "token_type_hint": {"refresh_token"},
			"client_id": {e.conf.ID}, "client_secret": {e.secret}}, "", "")
		if st != http.StatusOK || hdr.Get("Cache-Control") != "no-store" {
			t.Fatalf("revoke: expected 200 no-store, got %d %q", st, hdr.Get("Cache-Control"))
		}
		e.expectRevoked(t, tok.AccessToken, "the access token of a revoked refresh token")
		_, err := cfg.TokenSource(ctx, &oauth2.Token{RefreshToken: tok.RefreshToken}).Token()
		expectOAuthError(t, err, "invalid_grant", http.StatusBadRequest)

		// Revoking an access token alone.
		tok = e.connect(t, cfg, ctx)
		if st, _, _ := e.tokenCall(t, "/oauth/revoke", url.Values{"token": {tok.AccessToken}}, e.conf.ID, e.secret); st != http.StatusOK {
			t.Fatalf("revoke access token: expected 200, got %d", st)
		}
		e.expectRevoked(t, tok.AccessToken, "a revoked access token")
		// Unknown tokens are 200 too (RFC 7009 §2.2).
		if st, _, _ := e.tokenCall(t, "/oauth/revoke", url.Values{"token": {"nope"}}, e.conf.ID, e.secret); st != http.StatusOK {
			t.Fatalf("revoke unknown token: expected 200, got %d", st)
		}
	})

	t.Run("membership removal is effective on the next request", func(t *testing.T) {
		tok := e.connect(t, cfg, ctx)
		if st, _ := e.createConversation(t, tok.AccessToken); st != http.StatusOK {
			t.Fatalf("expected 200 as a member, got %d", st)
		}
		if err := e.s.RemoveMember(e.ws.ID, e.user.ID); err != nil {
			t.Fatal(err)
		}
		defer e.s.AddMember(e.ws.ID, e.user.ID, "member")
		if st, _ := e.createConversation(t, tok.AccessToken); st != http.StatusForbidden {
			t.Fatalf("expected 403 after the membership was removed, got %d", st)
		}
	})

	t.Run("public client with PKCE and client_secret_post", func(t *testing.T) {
		pub := &oauth2.Config{ClientID: e.pub.ID, RedirectURL: e.pub.RedirectURIs[0],
			Endpoint: oauth2.Endpoint{AuthURL: cfg.Endpoint.AuthURL, TokenURL: cfg.Endpoint.TokenURL, AuthStyle: oauth2.AuthStyleInParams}}
		v := oauth2.GenerateVerifier()
		back := e.authorize(t, e.sess, pub.AuthCodeURL("s", oauth2.S256ChallengeOption(v)), "allow")
		tok, err := pub.Exchange(ctx, back.Query().Get("code"), oauth2.VerifierOption(v))
		if err != nil {
			t.Fatalf("public exchange: %v", err)
		}
		if st, _ := e.createConversation(t, tok.AccessToken); st != http.StatusOK {
			t.Fatalf("public client's token: expected 200, got %d", st)
		}
		if _, err := pub.TokenSource(ctx, &oauth2.Token{RefreshToken: tok.RefreshToken}).Token(); err != nil {
			t.Fatalf("public refresh: %v", err)
		}
	})

	t.Run("deny", func(t *testing.T) {
		back := e.authorize(t, e.sess, cfg.AuthCodeURL("deny-state"), "deny")
		if back.Query().Get("error") != "access_denied" || back.Query().Get("state") != "deny-state" || back.Query().Has("code") {
			t.Fatalf("deny: expected error=access_denied with the state and no code, got %s", back)
		}
	})

	t.Run("grants are listed and revocable", func(t *testing.T) {
		tok := e.connect(t, cfg, ctx)
		gs, err := e.p.Grants(e.user.ID)
		if err != nil || len(gs) == 0 {
			t.Fatalf("expected grants for the user, got %v %v", gs, err)
		}
		for _, g := range gs {
			if err := e.p.RevokeGrant(g.ID); err != nil {
				t.Fatal(err)
			}
		}
		e.expectRevoked(t, tok.AccessToken, "a token of a revoked grant")
		if gs, _ := e.p.Grants(e.user.ID); len(gs) != 0 {
			t.Fatalf("expected no grants after revoking them, got %d", len(gs))
		}
	})

	t.Run("expiry", func(t *testing.T) {
		tok := e.connect(t, cfg, ctx)
		e.clock.Advance(59 * time.Minute)
		if st, _ := e.createConversation(t, tok.AccessToken); st != http.StatusOK {
			t.Fatalf("before expiry: expected 200, got %d", st)
		}
		e.clock.Advance(time.Minute)
		e.expectRevoked(t, tok.AccessToken, "an expired access token")
		// The refresh token outlives it.
		fresh, err := cfg.TokenSource(ctx, &oauth2.Token{RefreshToken: tok.RefreshToken}).Token()
		if err != nil {
			t.Fatalf("refresh after access expiry: %v", err)
		}
		e.clock.Advance(60 * 24 * time.Hour)
		_, err = cfg.TokenSource(ctx, &oauth2.Token{RefreshToken: fresh.RefreshToken}).Token()
		expectOAuthError(t, err, "invalid_grant", http.StatusBadRequest)
	})
}

// connect runs the flow once and returns fresh tokens.
func (e *env) connect(t *testing.T, cfg *oauth2.Config, ctx context.Context) *oauth2.Token {
	t.Helper()
	back := e.authorize(t, e.sess, cfg.AuthCodeURL("s"), "allow")
	tok, err := cfg.Exchange(ctx, back.Query().Get("code"))
	if err != nil {
		t.Fatalf("exchange: %v", err)
	}
	return tok
}

func expectOAuthError(t *testing.T, err error, code string, status int) {
	t.Helper()
	var re *oauth2.RetrieveError
	if !errors.As(err, &re) {
		t.Fatalf("expected %s (%d), got %v", code, status, err)
	}
	if re.ErrorCode != code || re.Response.StatusCode != status {
		t.Fatalf("expected %s with %d, got %s with %d: %s", code, status, re.ErrorCode, re.Response.StatusCode, strings.TrimSpace(string(re.Body)))
	}
}
