package oauth

import (
	"bytes"
	"errors"
	"time"

	oerrors "github.com/go-oauth2/oauth2/v4/errors"

	"switchboard/store"
	"switchboard/store/kv"
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

// issue writes a new access token (into the store's api_tokens bucket, where the API finds
// it with one read) and a new refresh token for grant g.
func (p *Provider) issue(tx *kv.Tx, g Grant, clientName string, now time.Time) (tokenResponse, error) {
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

func deleteRefresh(tx *kv.Tx, hash []byte, rec refreshRecord) error {
	if err := tx.Bucket(bRefresh).Delete(hash); err != nil {
		return err
	}
	return tx.Bucket(bGrantTokens).Delete(grantTokenKey(rec.GrantID, kindRefresh, rec.ID))
}

func deleteAccess(tx *kv.Tx, grantID, tokenID string) error {
	if err := store.DeleteTokenByID(tx, tokenID); err != nil {
		return err
	}
	return tx.Bucket(bGrantTokens).Delete(grantTokenKey(grantID, kindAccess, tokenID))
}

// revokeGrant deletes a grant and every access and refresh token it issued, and the webhook
// subscriptions made through it (their pending deliveries cancelled), in the caller's transaction,
// so no subscription outlives the grant that made it; a grant that is already gone is not an error
// (a replay after revocation).
func (p *Provider) revokeGrant(tx *kv.Tx, grantID string) error {
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
	err := p.s.Write(func(tx *kv.Tx) error {
		done = false // a batch may run this again
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
	return p.s.Write(func(tx *kv.Tx) error { return deleteAccess(tx, t.GrantID, t.ID) })
}

// Grants lists the apps a user has connected, oldest first.
func (p *Provider) Grants(userID string) ([]Grant, error) {
	if _, ok := store.ParseID(userID); !ok {
		return nil, notFound("user not found")
	}
	var out []Grant
	err := p.s.View(func(tx *kv.Tx) error {
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
	return p.s.Write(func(tx *kv.Tx) error {
		if tx.Bucket(bGrants).Get(idKey(id)) == nil {
			return notFound("grant not found")
		}
		return p.revokeGrant(tx, id)
	})
}
