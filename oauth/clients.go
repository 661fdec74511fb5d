package oauth

import (
	"context"
	"crypto/subtle"
	"encoding/json"
	"fmt"
	"net"
	"net/http"
	"net/url"
	"strings"
	"time"

	"github.com/go-oauth2/oauth2/v4"
	oerrors "github.com/go-oauth2/oauth2/v4/errors"

	"switchboard/store"
	"switchboard/store/kv"
)

// Client is a registered integration. A confidential client authenticates with its secret,
// of which only the SHA-256 hash is kept; a public client has none and must use PKCE.
type Client struct {
	ID           string    `json:"id"`
	Name         string    `json:"name"`
	RedirectURIs []string  `json:"redirectUris"`
	Public       bool      `json:"public"`
	SecretHash   []byte    `json:"secretHash,omitempty"`
	CreatedAt    time.Time `json:"createdAt"`
}

// NewClient is the input of CreateClient.
type NewClient struct {
	Name         string
	RedirectURIs []string
	Public       bool
}

// CreateClient registers a client; for a confidential client it returns the secret, which is
// shown this once.
func (p *Provider) CreateClient(in NewClient) (Client, string, error) {
	var errs store.ValidationError
	name := strings.TrimSpace(in.Name)
	if name == "" || len([]rune(name)) > 100 {
		errs = append(errs, store.FieldError{Field: "name", Message: "is required, at most 100 characters"})
	}
	uris, msg := checkRedirectURIs(in.RedirectURIs)
	if msg != "" {
		errs = append(errs, store.FieldError{Field: "redirect-uri", Message: msg})
	}
	if errs != nil {
		return Client{}, "", errs
	}
	c := Client{ID: p.s.NewID(), Name: name, RedirectURIs: uris, Public: in.Public, CreatedAt: p.now().UTC()}
	var secret string
	if !in.Public {
		secret = store.RandomToken(prefixSecret)
		c.SecretHash = store.HashToken(secret)
	}
	err := p.s.Write(func(tx *kv.Tx) error { return putJSON(tx.Bucket(bClients), idKey(c.ID), c) })
	return c, secret, err
}

// checkRedirectURIs validates registered redirect URIs: absolute, no fragment or user info,
// https — or http on a loopback host, for local development and native apps (RFC 8252 §7.3).
func checkRedirectURIs(in []string) ([]string, string) {
	if len(in) == 0 {
		return nil, "at least one is required"
	}
	seen := map[string]bool{}
	var out []string
	for _, raw := range in {
		raw = strings.TrimSpace(raw)
		u, err := url.Parse(raw)
		if err != nil || !u.IsAbs() || u.Host == "" || u.Fragment != "" || u.User != nil || len(raw) > 2048 || strings.ContainsAny(raw, " \n\r\t") {
			return nil, fmt.Sprintf("%q must be an absolute URL without fragment, such as https://example.com/callback", raw)
		}
		switch {
		case u.Scheme == "https":
		case u.Scheme == "http" && isLoopback(u.Hostname()):
		default:
			return nil, fmt.Sprintf("%q must use https (http only for localhost)", raw)
		}
		if !seen[raw] {
			seen[raw] = true
			out = append(out, raw)
		}
	}
	return out, ""
}

func isLoopback(host string) bool {
	if host == "localhost" {
		return true
	}
	ip := net.ParseIP(host)
	return ip != nil && ip.IsLoopback()
}

// Client returns a client by id.
func (p *Provider) Client(id string) (Client, error) {
	var c Client
	err := p.s.View(func(tx *kv.Tx) error {
		var err error
		c, err = getClient(tx, id)
		return err
	})
	return c, err
}

func getClient(tx *kv.Tx, id string) (Client, error) {
	var c Client
	if _, ok := store.ParseID(id); !ok {
		return c, notFound("client not found")
	}
	ok, err := getJSON(tx.Bucket(bClients), idKey(id), &c)
	if err == nil && !ok {
		err = notFound("client not found")
	}
	return c, err
}

// Clients lists the registered clients in order of creation.
func (p *Provider) Clients() ([]Client, error) {
	var out []Client
	err := p.s.View(func(tx *kv.Tx) error {
		return tx.Bucket(bClients).ForEach(func(_, v []byte) error {
			var c Client
			if err := json.Unmarshal(v, &c); err != nil {
				return err
			}
			out = append(out, c)
			return nil
		})
	})
	return out, err
}

// DeleteClient removes a client and revokes every grant it holds (their tokens stop working
// at once, the webhook subscriptions made through them are deleted); codes it was issued fail at
// redemption, since the client is gone.
func (p *Provider) DeleteClient(id string) error {
	return p.s.Write(func(tx *kv.Tx) error {
		if _, err := getClient(tx, id); err != nil {
			return err
		}
		var grants []string
		if err := tx.Bucket(bGrants).ForEach(func(_, v []byte) error {
			var g Grant
			if err := json.Unmarshal(v, &g); err != nil {
				return err
			}
			if g.ClientID == id {
				grants = append(grants, g.ID)
			}
			return nil
		}); err != nil {
			return err
		}
		for _, g := range grants {
			if err := p.revokeGrant(tx, g); err != nil {
				return err
			}
		}
		// Grants already swept or revoked took their subscriptions with them; this catches any
		// left indexed under the client alone.
		if _, err := p.s.EndClientSubscriptions(tx, id); err != nil {
			return err
		}
		return tx.Bucket(bClients).Delete(idKey(id))
	})
}

// RotateSecret gives a confidential client a new secret (shown once); the old one stops
// working at once. Issued tokens are kept: they were issued to the same client.
func (p *Provider) RotateSecret(id string) (string, error) {
	secret := store.RandomToken(prefixSecret)
	err := p.s.Write(func(tx *kv.Tx) error {
		c, err := getClient(tx, id)
		if err != nil {
			return err
		}
		if c.Public {
			return &store.Error{Err: store.ErrConflict, Msg: "client " + id + " is public: it has no secret"}
		}
		c.SecretHash = store.HashToken(secret)
		return putJSON(tx.Bucket(bClients), idKey(c.ID), c)
	})
	if err != nil {
		return "", err
	}
	return secret, nil
}

// verifySecret compares the hash of secret with the stored hash in constant time.
func (c Client) verifySecret(secret string) bool {
	if c.Public || len(c.SecretHash) == 0 {
		return false
	}
	return subtle.ConstantTimeCompare(store.HashToken(secret), c.SecretHash) == 1
}

// hasRedirectURI reports whether uri is exactly one of the registered URIs.
func (c Client) hasRedirectURI(uri string) bool {
	for _, r := range c.RedirectURIs {
		if r == uri {
			return true
		}
	}
	return false
}

// ---- go-oauth2 adapters ----

// clientStore is go-oauth2's ClientStore over the clients bucket.
type clientStore struct{ p *Provider }

func (cs clientStore) GetByID(_ context.Context, id string) (oauth2.ClientInfo, error) {
	c, err := cs.p.Client(id)
	if err != nil {
		return nil, oerrors.ErrInvalidClient
	}
	return clientInfo{c}, nil
}

// clientInfo presents a Client to go-oauth2. GetSecret is empty because the secret is not
// kept; go-oauth2 verifies through VerifyPassword. GetDomain carries every registered URI,
// one a line (a URL cannot contain a newline), for validateRedirectURI.
type clientInfo struct{ c Client }

func (ci clientInfo) GetID() string                { return ci.c.ID }
func (ci clientInfo) GetSecret() string            { return "" }
func (ci clientInfo) GetDomain() string            { return strings.Join(ci.c.RedirectURIs, "\n") }
func (ci clientInfo) IsPublic() bool               { return ci.c.Public }
func (ci clientInfo) GetUserID() string            { return "" }
func (ci clientInfo) VerifyPassword(s string) bool { return ci.c.verifySecret(s) }

// validateRedirectURI replaces go-oauth2's suffix-of-host check: the redirect URI must equal
// one registered URI byte for byte.
func validateRedirectURI(registered, redirectURI string) error {
	for _, r := range strings.Split(registered, "\n") {
		if r != "" && r == redirectURI {
			return nil
		}
	}
	return oerrors.ErrInvalidRedirectURI
}

// clientCredentials reads client_secret_basic or client_secret_post (RFC 6749 §2.3.1); a
// public client sends only client_id. Using both methods at once is invalid_request.
func clientCredentials(r *http.Request) (string, string, error) {
	if _, ok := r.Header["Authorization"]; ok {
		id, secret, ok := r.BasicAuth()
		if !ok {
			return "", "", oerrors.ErrInvalidClient
		}
		if r.PostForm.Get("client_secret") != "" {
			return "", "", oerrors.ErrInvalidRequest
		}
		// The Basic credentials are form-urlencoded first (RFC 6749 §2.3.1).
		if v, err := url.QueryUnescape(id); err == nil {
			id = v
		}
		if v, err := url.QueryUnescape(secret); err == nil {
			secret = v
		}
		if formID := r.PostForm.Get("client_id"); formID != "" && formID != id {
			return "", "", oerrors.ErrInvalidRequest
		}
		return id, secret, nil
	}
	id := r.PostForm.Get("client_id")
	if id == "" {
		return "", "", oerrors.ErrInvalidClient
	}
	return id, r.PostForm.Get("client_secret"), nil
}
