// Package oauth makes Switchboard an OAuth 2.0 authorization server on
// github.com/go-oauth2/oauth2/v4: clients, codes, grants and refresh tokens live in this
// package's bbolt buckets (declared by the store, store.OAuthBuckets, and written through the
// store's write transactions, store.Store.Write); access tokens live in the store's api_tokens
// bucket, so that the integration API authenticates them with the same single read as personal
// tokens.
//
// go-oauth2 parses and validates the authorize and token requests, builds redirects and
// error bodies, and issues codes through its Manager with this package's client store, code
// store, generator and exact redirect-URI check. The redemption of codes and refresh tokens is
// this package's own: go-oauth2's Manager reads a code and deletes it in two steps, so two
// concurrent redemptions could both win; here each is one bbolt write transaction.
package oauth

import (
	"context"
	"net/http"
	"time"

	"github.com/go-oauth2/oauth2/v4"
	"github.com/go-oauth2/oauth2/v4/manage"
	"github.com/go-oauth2/oauth2/v4/server"

	"switchboard/store"
)

// Lifetimes of codes, refresh tokens and replay records are fixed; only the access token's is
// configurable.
const (
	DefaultAccessTokenTTL = 24 * time.Hour
	RefreshTokenTTL       = 60 * 24 * time.Hour
	CodeTTL               = 10 * time.Minute
	// Scope is the one scope; an authorize request without scope gets it.
	Scope = "integrations"
)

// The buckets of this package's records, declared and created by the store with its own.
var (
	bClients     = store.OAuthBuckets.Clients     // client id -> Client
	bCodes       = store.OAuthBuckets.Codes       // sha256(code) -> codeRecord
	bUsedCodes   = store.OAuthBuckets.UsedCodes   // sha256(code) -> usedRecord (replay detection)
	bRefresh     = store.OAuthBuckets.Refresh     // sha256(refresh) -> refreshRecord
	bUsedRefresh = store.OAuthBuckets.UsedRefresh // sha256(refresh) -> usedRecord (replay detection)
	bGrants      = store.OAuthBuckets.Grants      // grant id -> Grant
	bUserGrants  = store.OAuthBuckets.UserGrants  // user id | grant id -> empty
	bGrantTokens = store.OAuthBuckets.GrantTokens // grant id | kind | token id -> sha256 (refresh) or empty (access)
)

// Config is what the provider needs beyond the store.
type Config struct {
	// AccessTokenTTL is the access token lifetime (-access-token-ttl); 0 means 24 h.
	AccessTokenTTL time.Duration
	// Now is the clock; nil means the store's, which store.Authenticate checks expiry against.
	Now func() time.Time
	// Session tells who is signed in in the browser at the authorize endpoint (web's browser
	// session); nil means no one is, and every authorize request goes to the sign-in page.
	Session Session
}

// Session is the browser session the authorization server asks for the signed-in user; sign-in
// and its pages belong to web (oauth stays free of pages and cookies), which implements it.
type Session interface {
	// CurrentUser is the signed-in user of r; false when no one is signed in.
	CurrentUser(r *http.Request) (store.User, bool)
}

// Provider is the OAuth 2.0 authorization server: its endpoints' handlers (Authorize, Token,
// Revoke, which web routes to), clients, grants and tokens.
type Provider struct {
	s   *store.Store
	cfg Config
	now func() time.Time
	srv *server.Server
}

// New configures go-oauth2 with this package's stores and safe settings; the store has created
// the buckets.
func New(s *store.Store, cfg Config) (*Provider, error) {
	if cfg.AccessTokenTTL <= 0 {
		cfg.AccessTokenTTL = DefaultAccessTokenTTL
	}
	if cfg.Now == nil {
		cfg.Now = s.Now
	}
	p := &Provider{s: s, cfg: cfg, now: cfg.Now}
	p.srv = p.newServer()
	return p, nil
}

// newServer configures go-oauth2, replacing each unsafe default.
func (p *Provider) newServer() *server.Server {
	m := manage.NewManager()
	m.MapClientStorage(clientStore{p})
	m.MapTokenStorage(tokenStore{p})
	m.MapAuthorizeGenerate(codeGenerator{})
	m.MapAccessGenerate(accessGenerator{})
	m.SetAuthorizeCodeExp(CodeTTL)
	// The default accepts any redirect URI whose host ends with the registered host
	// (evil-example.com for example.com); ours must equal a registered URI exactly.
	m.SetValidateURIHandler(validateRedirectURI)

	cfg := server.NewConfig()
	// The defaults also allow the implicit response type, the password and client-credentials
	// grants, and PKCE "plain". "plain" stays in go-oauth2's list only because its parser
	// treats a request without any PKCE as "plain"; authorize refuses a real "plain" first.
	cfg.AllowedResponseTypes = []oauth2.ResponseType{oauth2.Code}
	cfg.AllowedGrantTypes = []oauth2.GrantType{oauth2.AuthorizationCode, oauth2.Refreshing}
	cfg.AllowedCodeChallengeMethods = []oauth2.CodeChallengeMethod{oauth2.CodeChallengePlain, oauth2.CodeChallengeS256}
	srv := server.NewServer(cfg, m)
	srv.ClientInfoHandler = clientCredentials
	return srv
}

// ---- random values ----

// codeGenerator and accessGenerator issue codes and tokens of 256 bits from crypto/rand
// (go-oauth2's defaults derive them from UUIDs and hashes of predictable inputs). Access
// tokens are issued by this package's token endpoint; the access generator is mapped so
// that no go-oauth2 path can fall back to the default.
type codeGenerator struct{}

func (codeGenerator) Token(context.Context, *oauth2.GenerateBasic) (string, error) {
	return store.RandomToken(prefixCode), nil
}

type accessGenerator struct{}

func (accessGenerator) Token(_ context.Context, _ *oauth2.GenerateBasic, refresh bool) (string, string, error) {
	var r string
	if refresh {
		r = store.RandomToken(prefixRefresh)
	}
	return store.RandomToken(prefixAccess), r, nil
}

// Prefixes make a leaked value recognisable (secret scanners, logs); the 256 random bits follow.
const (
	prefixCode    = "sbc_"
	prefixAccess  = "sba_"
	prefixRefresh = "sbr_"
	prefixSecret  = "sbs_"
)

// signedIn is the browser session's user (Config.Session).
func (p *Provider) signedIn(r *http.Request) (store.User, bool) {
	if p.cfg.Session == nil {
		return store.User{}, false
	}
	return p.cfg.Session.CurrentUser(r)
}
