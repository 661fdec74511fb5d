// Package web serves Switchboard over HTTP from one route table: the integration API, health
// and metrics endpoints, the browser session with sign-in, sign-out and /setup, the admin UI,
// /static/, and the OAuth endpoints, whose handlers are the authorization server's (oauth).
package web

import (
	"context"
	"crypto/ed25519"
	"errors"
	"io"
	"io/fs"
	"log/slog"
	"mime"
	"net/http"
	"strings"
	"sync"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"golang.org/x/time/rate"

	"switchboard/assist"
	"switchboard/backup"
	"switchboard/carrier"
	"switchboard/oauth"
	"switchboard/store"
)

// MaxBody is the largest request body the integration API reads.
const MaxBody = 1 << 20

// Config is what the web layer needs to know of the server's configuration.
type Config struct {
	Stage    string // path prefix, "v1"
	Provider string // the one developerProvider value, "zapier"
	// RateLimit is requests per second per token (burst twice that); 0 turns it off.
	RateLimit float64
	// ValidateHookURL refuses webhook URLs (SSRF guard); nil accepts any http(s) URL.
	ValidateHookURL func(ctx context.Context, rawURL string) error
	// LogRequests logs one line per request.
	LogRequests bool
	// BackupToken authorizes GET /admin/backup (the `switchboard backup` command); "" disables it.
	BackupToken string
	// Registry receives the HTTP metrics; nil makes a private one.
	Registry *prometheus.Registry
	// Mount adds further routes to the mux (tests).
	Mount []func(mux *http.ServeMux)
	// BaseURL is the public URL (no trailing slash): Twilio signs callbacks with it.
	BaseURL string
	// TwilioAuthToken verifies X-Twilio-Signature; "" refuses every Twilio callback.
	TwilioAuthToken string
	// TelnyxPublicKey verifies Telnyx webhooks (Ed25519); nil refuses every Telnyx callback.
	TelnyxPublicKey ed25519.PublicKey
	// Telnyx says the server has both Telnyx keys: the admin UI offers telnyx numbers.
	Telnyx bool
	// Accounts are the carrier accounts in use — the flags', else those connected in the
	// browser: callbacks are verified with them when TwilioAuthToken or TelnyxPublicKey are not
	// set, /admin/carriers connects them, and the numbers pages add, buy, check and release
	// numbers through them. nil leaves those pages out.
	Accounts *carrier.Accounts
	// Receiver records what carriers send back; nil leaves the /carrier/ endpoints out.
	Receiver *carrier.Receiver
	// OpenAPI is the OpenAPI document of the integration API, served at /openapi.json and
	// rendered at /docs; nil leaves both out.
	OpenAPI []byte
	// APIServer is the servers URL of the served OpenAPI document: the public URL when one is
	// configured; "" keeps the document's "/" (wherever the document was fetched from).
	APIServer string
	// Sessions is the browser session with sign-in, sign-out and /setup; nil
	// leaves those pages and the admin UI out.
	Sessions *Sessions
	// OAuth is the authorization server: web routes its endpoints to it, and the superuser pages
	// manage its clients and grants; nil leaves the endpoints out and those pages empty.
	OAuth *oauth.Provider
	// Backups is the scheduler of off-site backups, listed on /admin/backup with BackupRestore
	// (the command that restores the newest); nil when -backup-url is not set.
	Backups       *backup.Scheduler
	BackupRestore string
	// Static, when set, is served under /static/ (its files are under a "static" directory).
	Static fs.FS
	// StreamAccess, when set, is asked when a GET /events stream opens and before each event it
	// sends whether the request's session may still read (false for a session signed out or
	// revoked elsewhere, or a disabled user): false ends the stream. Membership is checked anyway.
	StreamAccess func(r *http.Request, userID string) bool
	// Done, when closed, ends every open GET /events stream (server shutdown).
	Done <-chan struct{}
	// Cluster is this node's place in a cluster (§26); nil on one node.
	Cluster Cluster
	// AdminRun runs a `switchboard admin` command line on the server's store (POST /admin/run,
	// the command's way in while the server holds the file): what it printed, and its error.
	AdminRun func(args []string, stdin string) (stdout string, err error)
	// PushKey is the VAPID public key (base64url) of Web Push, served at GET /push/key; ""
	// leaves Web Push out (no /push/ routes, nothing about it on the profile).
	PushKey string
	// CheckPushEndpoint refuses a subscription's endpoint by where it points (the webhooks' SSRF
	// rules); its error is the message shown. nil accepts any endpoint of the right form.
	CheckPushEndpoint func(ctx context.Context, endpoint string) error
	// MaxStreamsPerSession and MaxStreamsPerUser bound the open GET /events streams of one
	// session and of one user; one more is refused with 429. 0 means the default (10 and 30),
	// less than 0 no bound (benchmarks that open hundreds from one session).
	MaxStreamsPerSession, MaxStreamsPerUser int
	// Assist is the installation's model (-assist-url); nil leaves the thread's assist buttons
	// and the workspace's switch out.
	Assist *assist.Client
}

// Handler holds what every handler needs; handlers are its methods, one file per action.
type Handler struct {
	store       *store.Store
	cfg         Config
	logRequests bool
	metrics     *metrics
	limiters    limiterSet
	searches    keyGate // one contact search at a time per token
	assists     keyGate // one assist request at a time per user
	now         func() time.Time
	// backupPage is the superuser's /admin/backup page, for a browser (no Authorization header).
	backupPage http.Handler
	// broker wakes the GET /events streams after a commit.
	broker *broker
	// presence knows who has a stream open, for the notification e-mails.
	presence *presence
	// streamCaps bounds the open streams per session and per user.
	streamCaps *streamCaps
	// imports holds the ids of the contact imports running in this process.
	imports sync.Map
	// pwa is the service worker made from this build's static files.
	pwa pwaFiles
}

// New builds the HTTP handler with every route and the middleware chain.
func New(s *store.Store, cfg Config) http.Handler {
	if cfg.Stage == "" {
		cfg.Stage = "v1"
	}
	if cfg.Provider == "" {
		cfg.Provider = "zapier"
	}
	if cfg.Registry == nil {
		cfg.Registry = prometheus.NewRegistry()
	}
	if cfg.OpenAPI != nil {
		cfg.OpenAPI = localizeOpenAPI(cfg.OpenAPI, cfg.Stage, cfg.Provider)
		cfg.OpenAPI = withAPIServer(cfg.OpenAPI, cfg.APIServer)
	}
	h := &Handler{store: s, cfg: cfg, logRequests: cfg.LogRequests, metrics: newMetrics(cfg.Registry), now: s.Now}
	h.limiters.m = map[string]*limiterEntry{}
	var err error
	if h.pwa, err = newPWAFiles(cfg.Static); err != nil {
		// The static files are embedded in the binary: only a broken build gets here, and it
		// serves its pages without the service worker.
		slog.Error("web: the service worker cannot be made from the static files", "error", err)
	}
	h.broker = newBroker(cfg.Done)
	s.SetHooks(store.Hooks{Live: h.broker.wake})
	h.presence = newPresence(h.now)
	h.streamCaps = newStreamCaps(capOf(cfg.MaxStreamsPerSession, defaultStreamsPerSession), capOf(cfg.MaxStreamsPerUser, defaultStreamsPerUser))
	// Mentions and assignments e-mail the users who are away, when e-mail is configured.
	if cfg.Sessions.mailer() != nil {
		s.NotifyByMail(store.MailNotify{Away: h.presence.away, BaseURL: cfg.Sessions.cfg.BaseURL})
	}
	return h.routes()
}

// action is one integration API action: POST {stage}/integrations/developer/{provider}/<name>.
type action struct {
	name string
	fn   func(http.ResponseWriter, *http.Request, *call)
}

// actions is the route table of the integration API: routes registers exactly these, and the
// tests compare it with the OpenAPI document's paths in both directions.
func (h *Handler) actions() []action {
	return []action{
		{"create-comment-action", h.createComment},
		{"send-group-message-action", h.sendGroupMessage},
		{"create-conversation-action", h.createConversation},
		{"find-contact-action", h.findContact},
		{"send-message-action", h.sendMessage},
		{"send-broadcast-action", h.sendBroadcast},
		{"create-contact-action", h.createContact},
		{"create-or-update-contact-action", h.createOrUpdateContact},
		{"create-opt-out-action", h.createOptOut},
		{"list-contact-properties-action", h.listContactProperties},
		{"list-phone-numbers-action", h.listPhoneNumbers},
		{"me-action", h.me},
		{"list-messages-action", h.listMessages},
		{"cancel-broadcast-action", h.cancelBroadcast},
		{"list-groups-action", h.listGroups},
		{"add-contact-to-group-action", h.addContactToGroup},
		{"subscribe-webhook", h.subscribeWebhook},
		{"unsubscribe-webhook", h.unsubscribeWebhook},
		{"delete-contact-action", h.deleteContact}, // contacts and data
		{"get-report-action", h.getReport},         // reports
	}
}

func (h *Handler) unknownAction(w http.ResponseWriter, r *http.Request) {
	if r.PathValue("provider") != h.cfg.Provider {
		writeError(w, http.StatusNotFound, "unknown provider")
		return
	}
	if r.Method != http.MethodPost {
		w.Header().Set("Allow", http.MethodPost)
		writeError(w, http.StatusMethodNotAllowed, "method not allowed: use POST")
		return
	}
	writeError(w, http.StatusNotFound, "unknown action")
}

// call is an authenticated integration API request with its parsed body.
type call struct {
	token store.Token
	f     *fields
}

// api runs the checks every action shares, in this order: provider, token (401),
// rate limit (429), content type (415), size (413), JSON object (400). The action then
// validates its fields, the workspace and membership, and calls the store.
func (h *Handler) api(fn func(http.ResponseWriter, *http.Request, *call)) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.PathValue("provider") != h.cfg.Provider {
			writeError(w, http.StatusNotFound, "unknown provider")
			return
		}
		tok, ok := h.authenticate(w, r)
		if !ok {
			return
		}
		if wait, ok := h.limiters.allow(tok.ID, h.cfg.RateLimit, h.now()); !ok {
			w.Header().Set("Retry-After", retryAfter(wait))
			writeError(w, http.StatusTooManyRequests, "rate limit exceeded: at most "+formatRate(h.cfg.RateLimit)+" requests per second per token")
			return
		}
		if !isJSON(r.Header.Get("Content-Type")) {
			writeError(w, http.StatusUnsupportedMediaType, "Content-Type must be application/json")
			return
		}
		body, err := io.ReadAll(http.MaxBytesReader(w, r.Body, MaxBody))
		if err != nil {
			var tooBig *http.MaxBytesError
			if errors.As(err, &tooBig) {
				writeError(w, http.StatusRequestEntityTooLarge, "request body is larger than 1 MiB")
				return
			}
			writeValidation(w, store.ValidationError{{Field: "body", Message: "could not be read"}})
			return
		}
		f, verrs := parseObject(body)
		if verrs != nil {
			writeValidation(w, verrs)
			return
		}
		fn(w, r, &call{token: tok, f: f})
	})
}

func isJSON(contentType string) bool {
	if contentType == "application/json" { // what nearly every client sends
		return true
	}
	mt, _, err := mime.ParseMediaType(contentType)
	if err != nil {
		return false
	}
	return mt == "application/json" || (strings.HasPrefix(mt, "application/") && strings.HasSuffix(mt, "+json"))
}

// authenticate resolves the bearer token or answers 401 with the RFC 6750 challenge.
func (h *Handler) authenticate(w http.ResponseWriter, r *http.Request) (store.Token, bool) {
	scheme, token, found := strings.Cut(r.Header.Get("Authorization"), " ")
	token = strings.TrimSpace(token)
	if !found || !strings.EqualFold(scheme, "Bearer") || token == "" {
		w.Header().Set("WWW-Authenticate", `Bearer realm="switchboard"`)
		writeError(w, http.StatusUnauthorized, "missing bearer token")
		return store.Token{}, false
	}
	tok, err := h.store.Authenticate(token)
	if err != nil {
		if !errors.Is(err, store.ErrNotFound) {
			writeStoreError(w, r, err)
			return store.Token{}, false
		}
		w.Header().Set("WWW-Authenticate", `Bearer realm="switchboard", error="invalid_token"`)
		writeError(w, http.StatusUnauthorized, "invalid, expired or revoked token")
		return store.Token{}, false
	}
	MarkAuthenticated(r)
	return tok, true
}

// checked runs the checks that follow the body's shape, in this order: every
// field's own rules (400), the workspace (404), membership (403). It answers and returns false
// when one fails. data holds the request's fields that refer to the workspace's data (from,
// mentions, properties); when every own rule passed, the store's write checks them, after
// membership and before state; see invalid for when one did not.
func (h *Handler) checked(w http.ResponseWriter, r *http.Request, c *call, workspaceID string, data store.WorkspaceData) bool {
	return !h.invalid(w, r, c, workspaceID, data) && h.authorize(w, r, c, workspaceID)
}

// invalid answers 400 and returns true when a field failed its own rules. One 400 lists every
// failing field: when the workspace exists and the user is a member, data's failures join the
// array (a field already failing its own rule keeps that one message); when the workspace is
// unknown or the user not a member, the 400 holds the own-rule failures alone.
func (h *Handler) invalid(w http.ResponseWriter, r *http.Request, c *call, workspaceID string, data store.WorkspaceData) bool {
	if c.f.done() == nil {
		return false
	}
	if !data.Empty() {
		err := h.store.CheckWorkspaceData(c.token.UserID, workspaceID, data)
		var dataErrs store.ValidationError
		switch {
		case errors.As(err, &dataErrs):
			for _, fe := range dataErrs {
				c.f.fail(fe.Field, fe.Message)
			}
		case err == nil, errors.Is(err, store.ErrNotFound), errors.Is(err, store.ErrForbidden):
		default:
			writeStoreError(w, r, err)
			return true
		}
	}
	writeValidation(w, c.f.done())
	return true
}

// authorize checks the workspace (404), the token user's membership (403), and that the
// workspace is not archived (403 "workspace is archived": an archived workspace is read-only
// to the API, reads included).
func (h *Handler) authorize(w http.ResponseWriter, r *http.Request, c *call, workspaceID string) bool {
	if err := h.store.Authorize(workspaceID, c.token.UserID); err != nil {
		writeStoreError(w, r, err)
		return false
	}
	return !h.refuseArchived(w, r, c, workspaceID)
}

// refuseArchived answers 403 "workspace is archived" and returns true when the workspace is
// archived. Actions whose store call authorizes on its own call it after their body checks; the
// workspace (404) and membership (403) checks still come first, so that only a member learns
// that a workspace is archived.
func (h *Handler) refuseArchived(w http.ResponseWriter, r *http.Request, c *call, workspaceID string) bool {
	archived, err := h.store.WorkspaceArchived(workspaceID)
	if err != nil {
		writeStoreError(w, r, err)
		return true
	}
	if archived {
		if err := h.store.Authorize(workspaceID, c.token.UserID); err != nil {
			writeStoreError(w, r, err)
			return true
		}
		writeError(w, http.StatusForbidden, "workspace is archived")
		return true
	}
	return false
}

// healthz answers that the process is alive, with its role: leader, follower or candidate in
// a cluster, single on one node.
func (h *Handler) healthz(w http.ResponseWriter, _ *http.Request) {
	writeJSON(w, http.StatusOK, map[string]string{"status": "ok", "role": h.role()})
}

// readyz answers 200 when the node can serve: its database reads, and in a cluster it knows a
// leader and has applied every entry committed.
func (h *Handler) readyz(w http.ResponseWriter, _ *http.Request) {
	if _, err := h.store.SchemaVersion(); err != nil || h.cfg.Cluster != nil && !h.cfg.Cluster.Ready() {
		writeJSON(w, http.StatusServiceUnavailable, map[string]string{"status": "unavailable"})
		return
	}
	writeJSON(w, http.StatusOK, map[string]string{"status": "ready"})
}

// ---- per-token rate limits ----

type limiterEntry struct {
	lim  *rate.Limiter
	seen time.Time
}

type limiterSet struct {
	mu sync.Mutex
	m  map[string]*limiterEntry
}

// allow takes one request from key's bucket (rps per second, burst 2×rps, at least 1); when refused
// it says how long until one is available.
func (l *limiterSet) allow(key string, rps float64, now time.Time) (time.Duration, bool) {
	if rps <= 0 {
		return 0, true
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	e := l.m[key]
	if e == nil {
		if len(l.m) >= 10_000 {
			for k, v := range l.m {
				if now.Sub(v.seen) > 10*time.Minute {
					delete(l.m, k)
				}
			}
		}
		e = &limiterEntry{lim: rate.NewLimiter(rate.Limit(rps), burstFor(rps))}
		l.m[key] = e
	}
	e.seen = now
	if e.lim.AllowN(now, 1) {
		return 0, true
	}
	r := e.lim.ReserveN(now, 1)
	wait := r.DelayFrom(now)
	r.CancelAt(now)
	return wait, false
}

// burstFor is twice the rate, rounded, and at least 1: with a burst of 0 (a rate below 0.25/s)
// the limiter would refuse every request for ever instead of letting one through per 1/rps.
func burstFor(rps float64) int {
	return max(1, int(2*rps+0.5))
}

func retryAfter(d time.Duration) string {
	secs := int((d + time.Second - 1) / time.Second)
	if secs < 1 {
		secs = 1
	}
	return itoa(secs)
}
