package oauth

import (
	"crypto/sha256"
	"crypto/subtle"
	"encoding/base64"
	"strings"
	"time"

	"github.com/go-oauth2/oauth2/v4"
	oerrors "github.com/go-oauth2/oauth2/v4/errors"

	"switchboard/store"
	"switchboard/store/kv"
)

// ---- redemption: each a check-and-delete in one write transaction ----
//
// A refusal is kept in the caller's variable and the transaction commits (what the refusal
// itself writes, such as revoking a replayed grant, is kept): the store's write rule.

// redeemCode exchanges an authorization code for tokens. Looking the code up, checking it and
// deleting it happen in one bbolt write transaction, so of two concurrent redemptions exactly
// one succeeds. A code presented after its redemption revokes the grant it started. A failed
// check (another client, redirect URI, verifier) leaves the code, so that an attacker cannot
// burn the rightful client's code.
func (p *Provider) redeemCode(c Client, code, redirectURI, verifier string) (tokenResponse, error) {
	h := store.HashToken(code)
	var res tokenResponse
	var refused error
	err := p.s.Write(func(tx *kv.Tx) error {
		res, refused = tokenResponse{}, nil // a batch may run this again
		codes := tx.Bucket(bCodes)
		var rec codeRecord
		ok, err := getJSON(codes, h, &rec)
		if err != nil {
			return err
		}
		if !ok {
			var used usedRecord
			if ok, err := getJSON(tx.Bucket(bUsedCodes), h, &used); err != nil || !ok {
				refused = invalidGrant("unknown or expired authorization code")
				return err
			}
			refused = invalidGrant("authorization code was already used: the tokens issued for it are revoked")
			return p.revokeGrant(tx, used.GrantID)
		}
		now := p.now().UTC()
		switch {
		case !now.Before(rec.ExpiresAt):
			refused = invalidGrant("authorization code expired")
			return codes.Delete(h)
		case rec.ClientID != c.ID:
			refused = invalidGrant("authorization code was issued to another client")
			return nil
		case rec.RedirectURI != redirectURI:
			refused = invalidGrant("redirect_uri differs from the authorization request's")
			return nil
		}
		if msg := checkPKCE(rec, verifier, c.Public); msg != "" {
			refused = invalidGrant(msg)
			return nil
		}
		// A disabled user's grants issue nothing (their tokens are refused anyway).
		if store.UserDisabledIn(tx, rec.UserID) {
			refused = invalidGrant("the user of this grant is disabled")
			return nil
		}
		if err := codes.Delete(h); err != nil {
			return err
		}
		g := Grant{ID: p.s.NewID(), ClientID: c.ID, ClientName: c.Name, UserID: rec.UserID, Scope: rec.Scope, CreatedAt: now, LastUsedAt: now}
		if err := putJSON(tx.Bucket(bGrants), idKey(g.ID), g); err != nil {
			return err
		}
		if err := tx.Bucket(bUserGrants).Put(pairKey(g.UserID, g.ID), nil); err != nil {
			return err
		}
		// Kept a day past the code's expiry: a replay later than that finds nothing to revoke
		// that the code could still have reached, and the bucket stays small.
		if err := putJSON(tx.Bucket(bUsedCodes), h, usedRecord{GrantID: g.ID, ExpiresAt: rec.ExpiresAt.Add(24 * time.Hour)}); err != nil {
			return err
		}
		res, err = p.issue(tx, g, c.Name, now)
		return err
	})
	if err != nil {
		return tokenResponse{}, err
	}
	return res, refused
}

// checkPKCE verifies the code_verifier against the code's S256 challenge (RFC 7636 §4.6).
// A verifier without a challenge is refused too: accepting it would let an attacker who
// stripped the challenge from the authorization request pass (RFC 9700 §2.1.1).
func checkPKCE(rec codeRecord, verifier string, public bool) string {
	if rec.Challenge == "" {
		if verifier != "" {
			return "code_verifier given but the authorization request had no code_challenge"
		}
		if public {
			return "public clients must use PKCE"
		}
		return ""
	}
	if verifier == "" {
		return "code_verifier is required: the authorization request had a code_challenge"
	}
	if rec.Method != string(oauth2.CodeChallengeS256) || !validVerifier(verifier) {
		return "code_verifier does not match the code_challenge"
	}
	sum := sha256.Sum256([]byte(verifier))
	want := base64.RawURLEncoding.EncodeToString(sum[:])
	if subtle.ConstantTimeCompare([]byte(want), []byte(rec.Challenge)) != 1 {
		return "code_verifier does not match the code_challenge"
	}
	return ""
}

// validVerifier checks RFC 7636 §4.1: 43 to 128 unreserved characters.
func validVerifier(v string) bool {
	if len(v) < 43 || len(v) > 128 {
		return false
	}
	for i := 0; i < len(v); i++ {
		c := v[i]
		if !('A' <= c && c <= 'Z' || 'a' <= c && c <= 'z' || '0' <= c && c <= '9' || c == '-' || c == '.' || c == '_' || c == '~') {
			return false
		}
	}
	return true
}

// refresh rotates a refresh token: in one write transaction the token is checked and
// deleted, its access token deleted, and a new pair issued. A rotated token presented again
// revokes the whole grant, since one of its two holders is not the client (RFC 9700 §4.14.2).
func (p *Provider) refresh(c Client, token, scope string) (tokenResponse, error) {
	h := store.HashToken(token)
	var res tokenResponse
	var refused error
	err := p.s.Write(func(tx *kv.Tx) error {
		res, refused = tokenResponse{}, nil // a batch may run this again
		live := tx.Bucket(bRefresh)
		var rec refreshRecord
		ok, err := getJSON(live, h, &rec)
		if err != nil {
			return err
		}
		if !ok {
			var used usedRecord
			if ok, err := getJSON(tx.Bucket(bUsedRefresh), h, &used); err != nil || !ok {
				refused = invalidGrant("unknown, expired or revoked refresh token")
				return err
			}
			refused = invalidGrant("refresh token was already used: every token of this grant is revoked")
			return p.revokeGrant(tx, used.GrantID)
		}
		now := p.now().UTC()
		if rec.ClientID != c.ID {
			refused = invalidGrant("refresh token was issued to another client")
			return nil
		}
		if !now.Before(rec.ExpiresAt) {
			refused = invalidGrant("refresh token expired")
			return p.revokeGrant(tx, rec.GrantID)
		}
		// A disabled user's grants issue nothing; enabling the user makes them work again.
		if store.UserDisabledIn(tx, rec.UserID) {
			refused = invalidGrant("the user of this grant is disabled")
			return nil
		}
		if scope != "" && !subsetScope(scope, rec.Scope) {
			refused = &oauthError{Code: oerrors.ErrInvalidScope, Description: "scope may only narrow the granted scope: " + rec.Scope}
			return nil
		}
		var g Grant
		if ok, err := getJSON(tx.Bucket(bGrants), idKey(rec.GrantID), &g); err != nil || !ok {
			refused = invalidGrant("the grant of this refresh token is revoked")
			return err
		}
		if err := deleteRefresh(tx, h, rec); err != nil {
			return err
		}
		if err := putJSON(tx.Bucket(bUsedRefresh), h, usedRecord{GrantID: g.ID, ExpiresAt: rec.ExpiresAt}); err != nil {
			return err
		}
		// Refreshing invalidates the previous access token: one live access token per refresh token.
		if err := deleteAccess(tx, g.ID, rec.AccessTokenID); err != nil {
			return err
		}
		g.LastUsedAt = now
		if err := putJSON(tx.Bucket(bGrants), idKey(g.ID), g); err != nil {
			return err
		}
		res, err = p.issue(tx, g, g.ClientName, now)
		return err
	})
	if err != nil {
		return tokenResponse{}, err
	}
	return res, refused
}

func subsetScope(asked, granted string) bool {
	have := strings.Fields(granted)
	for _, s := range strings.Fields(asked) {
		found := false
		for _, h := range have {
			found = found || h == s
		}
		if !found {
			return false
		}
	}
	return true
}
