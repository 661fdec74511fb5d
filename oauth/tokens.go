package oauth

import (
	"bytes"
	"context"
	"crypto/sha256"
	"crypto/subtle"
	"encoding/base64"
	"encoding/json"
	"errors"
	"strings"
	"time"

	"github.com/go-oauth2/oauth2/v4"
	oerrors "github.com/go-oauth2/oauth2/v4/errors"
	"github.com/go-oauth2/oauth2/v4/models"
	"github.com/oklog/ulid/v2"
	bolt "go.etcd.io/bbolt"

	"switchboard/store"
)

// Grant is one user's authorization of one client: the chain of tokens that began with one
// authorization code. Revoking it deletes every access and refresh token it issued.
type Grant struct {
	ID         string    `json:"id"`
	ClientID   string    `json:"clientId"`
	ClientName string    `json:"clientName"`
	UserID     string    `json:"userId"`
	Scope      string    `json:"scope"`
	CreatedAt  time.Time `json:"createdAt"`
	LastUsedAt time.Time `json:"lastUsedAt"`
}

// codeRecord is an authorization code waiting to be redeemed, stored under sha256(code).
type codeRecord struct {
	ClientID    string    `json:"clientId"`
	UserID      string    `json:"userId"`
	RedirectURI string    `json:"redirectUri"`
	Scope       string    `json:"scope"`
	Challenge   string    `json:"challenge,omitempty"`
	Method      string    `json:"method,omitempty"`
	CreatedAt   time.Time `json:"createdAt"`
	ExpiresAt   time.Time `json:"expiresAt"`
}

// refreshRecord is a live refresh token, stored under sha256(token).
type refreshRecord struct {
	ID            string    `json:"id"`
	GrantID       string    `json:"grantId"`
	ClientID      string    `json:"clientId"`
	UserID        string    `json:"userId"`
	Scope         string    `json:"scope"`
	AccessTokenID string    `json:"accessTokenId"` // the access token issued with it
	CreatedAt     time.Time `json:"createdAt"`
	ExpiresAt     time.Time `json:"expiresAt"`
}

// usedRecord remembers a redeemed code or rotated refresh token, so that presenting it again
// is recognised as a replay and revokes its grant (RFC 6749 §4.1.2, RFC 9700 §4.14.2).
type usedRecord struct {
	GrantID   string    `json:"grantId"`
	ExpiresAt time.Time `json:"expiresAt"` // when the record may be swept
}

// Token-kind bytes in the grant-token index.
const (
	kindAccess  = 'a'
	kindRefresh = 'r'
)

// tokenResponse is the body of a successful token response (RFC 6749 §5.1).
type tokenResponse struct {
	AccessToken  string `json:"access_token"`
	TokenType    string `json:"token_type"`
	ExpiresIn    int64  `json:"expires_in"`
	RefreshToken string `json:"refresh_token"`
	Scope        string `json:"scope"`
}

// oauthError is an RFC 6749 §5.2 error: Code is one of go-oauth2's error values.
type oauthError struct {
	Code        error
	Description string
}

func (e *oauthError) Error() string { return e.Code.Error() + ": " + e.Description }

func invalidGrant(desc string) *oauthError {
	return &oauthError{Code: oerrors.ErrInvalidGrant, Description: desc}
}

// ---- redemption: each a check-and-delete in one write transaction ----

// redeemCode exchanges an authorization code for tokens. Looking the code up, checking it and
// deleting it happen in one bbolt write transaction, so of two concurrent redemptions exactly
// one succeeds. A code presented after its redemption revokes the grant it started. A failed
// check (another client, redirect URI, verifier) leaves the code, so that an attacker cannot
// burn the rightful client's code.
func (p *Provider) redeemCode(c Client, code, redirectURI, verifier string) (tokenResponse, error) {
	h := store.HashToken(code)
	var res tokenResponse
	var refused error
	err := p.db.Update(func(tx *bolt.Tx) error {
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
	err := p.db.Update(func(tx *bolt.Tx) error {
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
		// Refreshing invalidates the previous access token (DESIGN §5).
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

// issue writes a new access token (into the store's api_tokens bucket, where the API finds
// it with one read) and a new refresh token for grant g.
func (p *Provider) issue(tx *bolt.Tx, g Grant, clientName string, now time.Time) (tokenResponse, error) {
	access := store.RandomToken(prefixAccess)
	exp := now.Add(p.cfg.AccessTokenTTL)
	t := store.Token{ID: p.s.NewID(), UserID: g.UserID, Name: clientName, Kind: store.TokenOAuth,
		ClientID: g.ClientID, GrantID: g.ID, CreatedAt: now, ExpiresAt: &exp}
	if err := store.PutToken(tx, access, t); err != nil {
		return tokenResponse{}, err
	}
	idx := tx.Bucket(bGrantTokens)
	if err := idx.Put(grantTokenKey(g.ID, kindAccess, t.ID), nil); err != nil {
		return tokenResponse{}, err
	}
	refresh := store.RandomToken(prefixRefresh)
	rh := store.HashToken(refresh)
	rr := refreshRecord{ID: p.s.NewID(), GrantID: g.ID, ClientID: g.ClientID, UserID: g.UserID, Scope: g.Scope,
		AccessTokenID: t.ID, CreatedAt: now, ExpiresAt: now.Add(RefreshTokenTTL)}
	if err := putJSON(tx.Bucket(bRefresh), rh, rr); err != nil {
		return tokenResponse{}, err
	}
	if err := idx.Put(grantTokenKey(g.ID, kindRefresh, rr.ID), rh); err != nil {
		return tokenResponse{}, err
	}
	return tokenResponse{AccessToken: access, TokenType: "Bearer", ExpiresIn: int64(p.cfg.AccessTokenTTL / time.Second),
		RefreshToken: refresh, Scope: g.Scope}, nil
}

func deleteRefresh(tx *bolt.Tx, hash []byte, rec refreshRecord) error {
	if err := tx.Bucket(bRefresh).Delete(hash); err != nil {
		return err
	}
	return tx.Bucket(bGrantTokens).Delete(grantTokenKey(rec.GrantID, kindRefresh, rec.ID))
}

func deleteAccess(tx *bolt.Tx, grantID, tokenID string) error {
	if err := store.DeleteTokenByID(tx, tokenID); err != nil {
		return err
	}
	return tx.Bucket(bGrantTokens).Delete(grantTokenKey(grantID, kindAccess, tokenID))
}

// revokeGrant deletes a grant and every access and refresh token it issued, and the webhook
// subscriptions made through it (their pending deliveries cancelled), in the caller's
// transaction (DESIGN §6); a grant that is already gone is not an error (a replay after
// revocation).
func (p *Provider) revokeGrant(tx *bolt.Tx, grantID string) error {
	if _, err := p.s.EndGrantSubscriptions(tx, grantID); err != nil {
		return err
	}
	idx := tx.Bucket(bGrantTokens)
	prefix := idKey(grantID)
	type entry struct {
		key, val []byte
	}
	var entries []entry
	c := idx.Cursor()
	for k, v := c.Seek(prefix); k != nil && bytes.HasPrefix(k, prefix); k, v = c.Next() {
		entries = append(entries, entry{append([]byte(nil), k...), append([]byte(nil), v...)})
	}
	for _, e := range entries { // deleted after the scan: deleting under a cursor skips keys
		if len(e.key) != 33 {
			continue
		}
		switch e.key[16] {
		case kindAccess:
			if err := store.DeleteTokenByID(tx, idString(e.key[17:])); err != nil {
				return err
			}
		case kindRefresh:
			if err := tx.Bucket(bRefresh).Delete(e.val); err != nil {
				return err
			}
		}
		if err := idx.Delete(e.key); err != nil {
			return err
		}
	}
	var g Grant
	ok, err := getJSON(tx.Bucket(bGrants), idKey(grantID), &g)
	if err != nil || !ok {
		return err
	}
	if err := tx.Bucket(bUserGrants).Delete(pairKey(g.UserID, g.ID)); err != nil {
		return err
	}
	return tx.Bucket(bGrants).Delete(idKey(grantID))
}

// ---- revocation and grants ----

// revokeToken implements RFC 7009 for client c: a refresh token revokes its whole grant (its
// access tokens included); an access token is deleted alone. Unknown tokens, and tokens of
// other clients, change nothing and are not reported, so the endpoint reveals nothing.
func (p *Provider) revokeToken(c Client, token string) error {
	h := store.HashToken(token)
	var done bool
	err := p.db.Update(func(tx *bolt.Tx) error {
		var rec refreshRecord
		ok, err := getJSON(tx.Bucket(bRefresh), h, &rec)
		if err != nil || !ok {
			return err
		}
		done = true
		if rec.ClientID != c.ID {
			return nil
		}
		return p.revokeGrant(tx, rec.GrantID)
	})
	if err != nil || done {
		return err
	}
	// Not a refresh token: an access token in the store's bucket? Read outside the write
	// transaction (no read transaction nested in a write one).
	t, err := p.s.Authenticate(token)
	if err != nil {
		if errors.Is(err, store.ErrNotFound) {
			return nil
		}
		return err
	}
	if t.Kind != store.TokenOAuth || t.ClientID != c.ID {
		return nil
	}
	return p.db.Update(func(tx *bolt.Tx) error { return deleteAccess(tx, t.GrantID, t.ID) })
}

// Grants lists the apps a user has connected, oldest first.
func (p *Provider) Grants(userID string) ([]Grant, error) {
	if _, ok := store.ParseID(userID); !ok {
		return nil, notFound("user not found")
	}
	var out []Grant
	err := p.db.View(func(tx *bolt.Tx) error {
		prefix := idKey(userID)
		c := tx.Bucket(bUserGrants).Cursor()
		for k, _ := c.Seek(prefix); k != nil && bytes.HasPrefix(k, prefix); k, _ = c.Next() {
			var g Grant
			ok, err := getJSON(tx.Bucket(bGrants), k[16:], &g)
			if err != nil {
				return err
			}
			if ok {
				out = append(out, g)
			}
		}
		return nil
	})
	return out, err
}

// RevokeGrant disconnects an app: every token of the grant stops working at once.
func (p *Provider) RevokeGrant(id string) error {
	if _, ok := store.ParseID(id); !ok {
		return notFound("grant not found")
	}
	return p.db.Update(func(tx *bolt.Tx) error {
		if tx.Bucket(bGrants).Get(idKey(id)) == nil {
			return notFound("grant not found")
		}
		return p.revokeGrant(tx, id)
	})
}

// Sweep deletes what has expired: codes, replay records, and grants whose refresh token
// expired (with their access tokens), so the buckets do not grow without bound.
func (p *Provider) Sweep() error {
	now := p.now().UTC()
	return p.db.Update(func(tx *bolt.Tx) error {
		var dead [][]byte
		collect := func(b *bolt.Bucket, expired func(v []byte) bool) {
			dead = dead[:0]
			_ = b.ForEach(func(k, v []byte) error {
				if expired(v) {
					dead = append(dead, append([]byte(nil), k...))
				}
				return nil
			})
		}
		for _, name := range [][]byte{bCodes, bUsedCodes, bUsedRefresh} {
			b := tx.Bucket(name)
			collect(b, func(v []byte) bool {
				var r struct {
					ExpiresAt time.Time `json:"expiresAt"`
				}
				return json.Unmarshal(v, &r) != nil || !now.Before(r.ExpiresAt)
			})
			for _, k := range dead {
				if err := b.Delete(k); err != nil {
					return err
				}
			}
		}
		var grants []string
		_ = tx.Bucket(bRefresh).ForEach(func(_, v []byte) error {
			var r refreshRecord
			if json.Unmarshal(v, &r) == nil && !now.Before(r.ExpiresAt) {
				grants = append(grants, r.GrantID)
			}
			return nil
		})
		for _, g := range grants {
			if err := p.revokeGrant(tx, g); err != nil {
				return err
			}
		}
		return nil
	})
}

// ---- go-oauth2's TokenStore: codes are issued through its Manager ----

// tokenStore is go-oauth2's TokenStore over this package's buckets. The Manager stores codes
// through Create; access and refresh tokens are issued only by the token endpoint's
// one-transaction redemption, so Create refuses them rather than store them a second way.
type tokenStore struct{ p *Provider }

func (ts tokenStore) Create(_ context.Context, ti oauth2.TokenInfo) error {
	if ti.GetCode() == "" {
		return errors.New("oauth: access and refresh tokens are issued by the token endpoint only")
	}
	// The expiry follows the provider's clock, not the Manager's time.Now.
	now := ts.p.now().UTC()
	rec := codeRecord{ClientID: ti.GetClientID(), UserID: ti.GetUserID(), RedirectURI: ti.GetRedirectURI(),
		Scope: ti.GetScope(), Challenge: ti.GetCodeChallenge(), Method: string(ti.GetCodeChallengeMethod()),
		CreatedAt: now, ExpiresAt: now.Add(CodeTTL)}
	if rec.Challenge == "" {
		rec.Method = ""
	}
	return ts.p.db.Update(func(tx *bolt.Tx) error {
		return putJSON(tx.Bucket(bCodes), store.HashToken(ti.GetCode()), rec)
	})
}

func (ts tokenStore) RemoveByCode(_ context.Context, code string) error {
	return ts.p.db.Update(func(tx *bolt.Tx) error { return tx.Bucket(bCodes).Delete(store.HashToken(code)) })
}

func (ts tokenStore) RemoveByAccess(_ context.Context, access string) error {
	t, err := ts.p.s.Authenticate(access)
	if err != nil || t.Kind != store.TokenOAuth {
		return nil
	}
	return ts.p.db.Update(func(tx *bolt.Tx) error { return deleteAccess(tx, t.GrantID, t.ID) })
}

func (ts tokenStore) RemoveByRefresh(_ context.Context, refresh string) error {
	return ts.p.db.Update(func(tx *bolt.Tx) error {
		var rec refreshRecord
		ok, err := getJSON(tx.Bucket(bRefresh), store.HashToken(refresh), &rec)
		if err != nil || !ok {
			return err
		}
		return ts.p.revokeGrant(tx, rec.GrantID)
	})
}

func (ts tokenStore) GetByCode(_ context.Context, code string) (oauth2.TokenInfo, error) {
	var rec codeRecord
	var ok bool
	err := ts.p.db.View(func(tx *bolt.Tx) error {
		var err error
		ok, err = getJSON(tx.Bucket(bCodes), store.HashToken(code), &rec)
		return err
	})
	if err != nil || !ok {
		return nil, err
	}
	ti := &models.Token{ClientID: rec.ClientID, UserID: rec.UserID, RedirectURI: rec.RedirectURI, Scope: rec.Scope,
		Code: code, CodeChallenge: rec.Challenge, CodeChallengeMethod: rec.Method,
		CodeCreateAt: rec.CreatedAt, CodeExpiresIn: rec.ExpiresAt.Sub(rec.CreatedAt)}
	return ti, nil
}

func (ts tokenStore) GetByAccess(_ context.Context, access string) (oauth2.TokenInfo, error) {
	t, err := ts.p.s.Authenticate(access)
	if err != nil || t.Kind != store.TokenOAuth || t.ExpiresAt == nil {
		return nil, nil
	}
	return &models.Token{ClientID: t.ClientID, UserID: t.UserID, Scope: Scope, Access: access,
		AccessCreateAt: t.CreatedAt, AccessExpiresIn: t.ExpiresAt.Sub(t.CreatedAt)}, nil
}

func (ts tokenStore) GetByRefresh(_ context.Context, refresh string) (oauth2.TokenInfo, error) {
	var rec refreshRecord
	var ok bool
	err := ts.p.db.View(func(tx *bolt.Tx) error {
		var err error
		ok, err = getJSON(tx.Bucket(bRefresh), store.HashToken(refresh), &rec)
		return err
	})
	if err != nil || !ok {
		return nil, err
	}
	return &models.Token{ClientID: rec.ClientID, UserID: rec.UserID, Scope: rec.Scope, Refresh: refresh,
		RefreshCreateAt: rec.CreatedAt, RefreshExpiresIn: rec.ExpiresAt.Sub(rec.CreatedAt)}, nil
}

// ---- keys and encoding ----

func idKey(id string) []byte { return store.IDKey(id) }

func idString(b []byte) string {
	var u ulid.ULID
	copy(u[:], b)
	return u.String()
}

func pairKey(a, b string) []byte { return append(idKey(a), idKey(b)...) }

func grantTokenKey(grantID string, kind byte, tokenID string) []byte {
	k := append(idKey(grantID), kind)
	return append(k, idKey(tokenID)...)
}

func putJSON(b *bolt.Bucket, key []byte, v any) error { return store.PutJSON(b, key, v) }

func getJSON(b *bolt.Bucket, key []byte, v any) (bool, error) { return store.GetJSON(b, key, v) }

func notFound(msg string) error { return &store.Error{Err: store.ErrNotFound, Msg: msg} }
