package oauth

import (
	"context"
	"errors"

	"github.com/go-oauth2/oauth2/v4"
	"github.com/go-oauth2/oauth2/v4/models"

	"switchboard/store"
	"switchboard/store/kv"
)

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
	return ts.p.s.Write(func(tx *kv.Tx) error {
		return putJSON(tx.Bucket(bCodes), store.HashToken(ti.GetCode()), rec)
	})
}

func (ts tokenStore) RemoveByCode(_ context.Context, code string) error {
	return ts.p.s.Write(func(tx *kv.Tx) error { return tx.Bucket(bCodes).Delete(store.HashToken(code)) })
}

func (ts tokenStore) RemoveByAccess(_ context.Context, access string) error {
	t, err := ts.p.s.Authenticate(access)
	if err != nil || t.Kind != store.TokenOAuth {
		return nil
	}
	return ts.p.s.Write(func(tx *kv.Tx) error { return deleteAccess(tx, t.GrantID, t.ID) })
}

func (ts tokenStore) RemoveByRefresh(_ context.Context, refresh string) error {
	return ts.p.s.Write(func(tx *kv.Tx) error {
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
	err := ts.p.s.View(func(tx *kv.Tx) error {
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
	err := ts.p.s.View(func(tx *kv.Tx) error {
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
