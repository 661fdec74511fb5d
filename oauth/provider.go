// Package oauth makes Switchboard an OAuth 2.0 authorization server (DESIGN §5) on
// github.com/go-oauth2/oauth2/v4: clients, codes, grants and refresh tokens live in this
// package's bbolt buckets; access tokens live in the store's api_tokens bucket, so that the
// integration API authenticates them with the same single read as personal tokens.
//
// go-oauth2 parses and validates the authorize and token requests, builds redirects and
// error bodies, and issues codes through its Manager with this package's client store, code
// store, generator and exact redirect-URI check. The redemption of codes and refresh tokens is
// this package's own: go-oauth2's Manager reads a code and deletes it in two steps, so two
// concurrent redemptions could both win; here each is one bbolt write transaction.
package oauth

import (
	"context"
	"crypto/rand"
	"fmt"
	"io/fs"
	"net/http"
	"net/url"
	"strings"
	"sync"
	"time"

	"github.com/go-oauth2/oauth2/v4"
	"github.com/go-oauth2/oauth2/v4/manage"
	"github.com/go-oauth2/oauth2/v4/server"
	"github.com/gorilla/sessions"
	bolt "go.etcd.io/bbolt"

	"switchboard/store"
)

// Lifetimes fixed by DESIGN §5; only the access token's is configurable.
const (
	DefaultAccessTokenTTL = 24 * time.Hour
	RefreshTokenTTL       = 60 * 24 * time.Hour
	CodeTTL               = 10 * time.Minute
	// Scope is the one scope; an authorize request without scope gets it.
	Scope = "integrations"
	// A browser session ends after sessionIdle without a request, and sessionMax after sign-in
	// whatever happens (DESIGN §10). The cookie lives as long as the longer bound; the server
	// checks both against its own clock.
	sessionIdle = 12 * time.Hour
	sessionMax  = 7 * 24 * time.Hour
)

// Bucket names, declared in one place. Keys of ULID ids are their 16 bytes.
var (
	bMeta         = []byte("oauth_meta")             // session keys
	bClients      = []byte("oauth_clients")          // client id -> Client
	bCodes        = []byte("oauth_codes")            // sha256(code) -> codeRecord
	bUsedCodes    = []byte("oauth_used_codes")       // sha256(code) -> usedRecord (replay detection)
	bRefresh      = []byte("oauth_refresh")          // sha256(refresh) -> refreshRecord
	bUsedRefresh  = []byte("oauth_used_refresh")     // sha256(refresh) -> usedRecord (replay detection)
	bGrants       = []byte("oauth_grants")           // grant id -> Grant
	bUserGrants   = []byte("idx_oauth_user_grants")  // user id | grant id -> empty
	bGrantTokens  = []byte("idx_oauth_grant_tokens") // grant id | kind | token id -> sha256 (refresh) or empty (access)
	allBuckets    = [][]byte{bMeta, bClients, bCodes, bUsedCodes, bRefresh, bUsedRefresh, bGrants, bUserGrants, bGrantTokens}
	keySessionKey = []byte("session_keys") // 64-byte HMAC key | 32-byte AES key
)

// Config is what the provider needs beyond the store.
type Config struct {
	// BaseURL is the public URL; an https one makes the session cookie Secure.
	BaseURL string
	// AccessTokenTTL is the access token lifetime (-access-token-ttl); 0 means 24 h.
	AccessTokenTTL time.Duration
	// Now is the clock; nil means the store's, which store.Authenticate checks expiry against.
	Now func() time.Time
	// Static, when set, is served under /static/ (its files are under a "static" directory).
	Static fs.FS
}

// Provider is the OAuth 2.0 authorization server: its routes, the pages and their session.
type Provider struct {
	s        *store.Store
	db       *bolt.DB
	cfg      Config
	now      func() time.Time
	srv      *server.Server
	sessions *sessions.CookieStore
	limits   *loginLimits

	setupMu   sync.Mutex
	setupHash []byte // sha256 of the one-time setup token; nil when none is pending

	dummyOnce sync.Once
	dummyHash []byte
}

// New creates the provider's buckets and session key (persisted, so sign-ins survive
// restarts) and configures go-oauth2 with this package's stores and safe settings.
func New(s *store.Store, cfg Config) (*Provider, error) {
	if cfg.AccessTokenTTL <= 0 {
		cfg.AccessTokenTTL = DefaultAccessTokenTTL
	}
	if cfg.Now == nil {
		cfg.Now = s.Now
	}
	p := &Provider{s: s, db: s.DB(), cfg: cfg, now: cfg.Now}
	var keys []byte
	err := p.db.Update(func(tx *bolt.Tx) error {
		for _, name := range allBuckets {
			if _, err := tx.CreateBucketIfNotExists(name); err != nil {
				return fmt.Errorf("oauth: create bucket %s: %w", name, err)
			}
		}
		meta := tx.Bucket(bMeta)
		if k := meta.Get(keySessionKey); len(k) == 96 {
			keys = append([]byte(nil), k...)
			return nil
		}
		keys = make([]byte, 96)
		if _, err := rand.Read(keys); err != nil {
			return fmt.Errorf("oauth: session key: %w", err)
		}
		return meta.Put(keySessionKey, keys)
	})
	if err != nil {
		return nil, err
	}
	p.sessions = sessions.NewCookieStore(keys[:64], keys[64:])
	p.sessions.Options = &sessions.Options{
		Path: "/", MaxAge: int(sessionMax / time.Second), HttpOnly: true,
		SameSite: http.SameSiteLaxMode, Secure: strings.HasPrefix(cfg.BaseURL, "https://"),
	}
	p.sessions.MaxAge(int(sessionMax / time.Second))
	p.limits = newLoginLimits()
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

// Mount adds the provider's routes to mux (web.Config.Mount). Browser form posts go through
// http.CrossOriginProtection; the token and revocation endpoints do not, since clients call
// them server to server without cookies (and browser-based public clients cross-origin).
func (p *Provider) Mount(mux *http.ServeMux) {
	forms := http.NewCrossOriginProtection()
	mux.HandleFunc("GET /oauth/authorize", p.authorize)
	mux.Handle("POST /oauth/authorize", forms.Handler(http.HandlerFunc(p.authorize)))
	mux.HandleFunc("GET /oauth/login", p.loginPage)
	mux.Handle("POST /oauth/login", forms.Handler(http.HandlerFunc(p.login)))
	mux.Handle("POST /oauth/logout", forms.Handler(http.HandlerFunc(p.logout)))
	// The admin UI's names for the same pages (DESIGN §10); the UI shares this session.
	mux.HandleFunc("GET /login", p.loginPage)
	mux.Handle("POST /login", forms.Handler(http.HandlerFunc(p.login)))
	mux.Handle("POST /logout", forms.Handler(http.HandlerFunc(p.logout)))
	mux.HandleFunc("POST /oauth/token", p.token)
	mux.HandleFunc("POST /oauth/revoke", p.revoke)
	mux.HandleFunc("GET /setup", p.setupPage)
	mux.Handle("POST /setup", forms.Handler(http.HandlerFunc(p.setup)))
	if p.cfg.Static != nil {
		files := http.FileServerFS(p.cfg.Static)
		mux.Handle("GET /static/", http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			if strings.HasSuffix(r.URL.Path, "/") { // no directory listings
				http.NotFound(w, r)
				return
			}
			w.Header().Set("Cache-Control", "public, max-age=3600")
			files.ServeHTTP(w, r)
		}))
	}
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

// localPath reports whether next is a path on this server (an open-redirect guard).
func localPath(next string) bool {
	if !strings.HasPrefix(next, "/") || strings.HasPrefix(next, "//") || strings.HasPrefix(next, "/\\") {
		return false
	}
	u, err := url.Parse(next)
	return err == nil && u.Scheme == "" && u.Host == ""
}
