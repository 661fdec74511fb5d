package web

import (
	"context"
	"crypto/rand"
	"errors"
	"fmt"
	"net/http"
	"strings"
	"sync"
	"time"

	"github.com/gorilla/sessions"

	"switchboard/internal/keyfile"
	"switchboard/store"
)

// A browser session ends after sessionIdle without a request, and sessionMax after sign-in
// whatever happens. The cookie lives as long as the longer bound; the server checks both
// against its own clock and the session row it keeps.
const (
	sessionIdle   = 12 * time.Hour
	sessionMax    = 7 * 24 * time.Hour
	sessionCookie = "sb_session"
	// seenEvery is how often a request moves a session's last-seen time (one write a minute
	// at most, not one per request).
	seenEvery = time.Minute
)

// SessionConfig is what the browser session needs beyond the store.
type SessionConfig struct {
	// BaseURL is the public URL; an https one makes the session cookie Secure. /setup links
	// are made under it.
	BaseURL string
	// Now is the clock; nil means the store's.
	Now func() time.Time
	// KeyFile holds the cookie signing and encryption keys, outside the database so that a
	// backup of it cannot sign a cookie; made (mode 0600) on first start. "" keeps keys for
	// this process only (tests).
	KeyFile string
	// RequireTwoFactor sends every user without two-factor to enrolment after the password
	// (the -require-2fa flag); a superuser can also turn it on in /admin/users.
	RequireTwoFactor bool
	// Mail, when set and enabled, e-mails reset links and invitations; nil sends nothing and
	// the pages show the links.
	Mail Mailer
	// SetupToken, when set, is the one-time /setup token instead of a random one: a cluster's
	// nodes derive the same one from the cluster key, so the link any node prints works
	// through every node until the first administrator exists.
	SetupToken string
}

// Mailer is the e-mail outbox's worker (mail.Worker): the store queues the mail, Wake hurries
// the send.
type Mailer interface {
	Enabled() bool
	Wake()
}

// mailer is the configured Mailer, or nil when e-mail is off.
func (ss *Sessions) mailer() Mailer {
	if ss == nil || ss.cfg.Mail == nil || !ss.cfg.Mail.Enabled() {
		return nil
	}
	return ss.cfg.Mail
}

// Sessions is the browser session with its sign-in, sign-out and first-run setup: who is
// signed in, and a few UI values kept with the session. The gorilla/sessions cookie carries
// only a random session token; the session itself (user, times, browser, address, UI values)
// is a row in the store under the token's SHA-256. The admin UI and the OAuth authorize page
// (oauth.Session) share it.
type Sessions struct {
	s       *store.Store
	cfg     SessionConfig
	now     func() time.Time
	cookies *sessions.CookieStore
	limits  *loginLimits

	setupMu   sync.Mutex
	setupHash []byte // sha256 of the one-time setup token; nil when none is pending

	dummyOnce sync.Once
	dummyHash []byte
}

// NewSessions loads the cookie keys from cfg.KeyFile (made on first start) and deletes the
// keys earlier versions kept in the database.
func NewSessions(s *store.Store, cfg SessionConfig) (*Sessions, error) {
	if cfg.Now == nil {
		cfg.Now = s.Now
	}
	keys, err := loadSessionKeys(cfg.KeyFile)
	if err != nil {
		return nil, err
	}
	if err := s.DeleteLegacySessionKeys(); err != nil {
		return nil, fmt.Errorf("web: delete old session keys: %w", err)
	}
	// With -require-2fa, sessions of users without two-factor made before this start go to
	// enrolment too: the requirement holds for everyone at once.
	if cfg.RequireTwoFactor {
		if err := s.RequireEnrolment(); err != nil {
			return nil, fmt.Errorf("web: require two-factor: %w", err)
		}
	}
	ss := &Sessions{s: s, cfg: cfg, now: cfg.Now, limits: newLoginLimits()}
	ss.cookies = sessions.NewCookieStore(keys[:64], keys[64:])
	ss.cookies.Options = &sessions.Options{
		Path: "/", MaxAge: int(sessionMax / time.Second), HttpOnly: true,
		SameSite: http.SameSiteLaxMode, Secure: strings.HasPrefix(cfg.BaseURL, "https://"),
	}
	ss.cookies.MaxAge(int(sessionMax / time.Second))
	return ss, nil
}

// loadSessionKeys reads the 96 bytes (64-byte HMAC key, 32-byte AES key) of path, or makes
// them on first start.
func loadSessionKeys(path string) ([]byte, error) {
	if path == "" {
		keys := make([]byte, 96)
		_, err := rand.Read(keys)
		return keys, err
	}
	keys, err := keyfile.Load(path, 96, "session key file", "move it away to make a new one (everyone is signed out)")
	if err != nil {
		return nil, fmt.Errorf("web: %w", err)
	}
	return keys, nil
}

// browserSession is the session of a request: its row, its user and the token the cookie holds.
type browserSession struct {
	row   store.Session
	user  store.User
	token string
}

// lookup finds the request's session: the cookie's token must name a stored session of an
// enabled user, last seen less than 12 h and created less than 7 days ago by the server's clock
// (the cookie's Max-Age is the client's to change).
func (ss *Sessions) lookup(r *http.Request) (browserSession, bool) {
	if c, ok := r.Context().Value(sessionCtxKey{}).(*browserSession); ok && c != nil {
		return *c, true
	}
	sess, err := ss.cookies.Get(r, sessionCookie)
	if err != nil || sess.IsNew {
		return browserSession{}, false
	}
	token, _ := sess.Values["sid"].(string)
	if token == "" {
		return browserSession{}, false
	}
	row, u, err := ss.s.SessionByToken(token)
	if err != nil {
		return browserSession{}, false
	}
	if !ss.Alive(row) {
		return browserSession{}, false
	}
	if row.Stage == store.SessionStageEnrol && !ss.twoFactorRequired() {
		// Sent to enrolment while two-factor was required, and it no longer is (the setting
		// turned off, the server started without -require-2fa): the password was enough.
		if row, err = ss.s.UpdateSession(token, func(row *store.Session) {
			if row.Stage == store.SessionStageEnrol {
				row.Stage = ""
			}
		}); err != nil {
			return browserSession{}, false
		}
	}
	MarkAuthenticated(r)
	return browserSession{row: row, user: u, token: token}, true
}

type sessionCtxKey struct{}

// remember looks the request's session up once and keeps it in the returned request's
// context, so that a page's several questions cost one read.
func (ss *Sessions) remember(r *http.Request) *http.Request {
	b, ok := ss.lookup(r)
	if !ok {
		return r
	}
	return r.WithContext(context.WithValue(r.Context(), sessionCtxKey{}, &b))
}

// CurrentUser returns the signed-in user of the request's session; false when signed out,
// idle 12 h, signed in 7 days ago, or still owing the second factor.
func (ss *Sessions) CurrentUser(r *http.Request) (store.User, bool) {
	b, ok := ss.lookup(r)
	if !ok || b.row.Stage != "" {
		return store.User{}, false
	}
	return b.user, true
}

// SessionID is the id of the request's session ("" when none): the profile page marks it.
func (ss *Sessions) SessionID(r *http.Request) string {
	b, _ := ss.lookup(r)
	return b.row.ID
}

// SessionValue is a string the admin UI keeps with the signed-in session (the current
// workspace); "" when none.
func (ss *Sessions) SessionValue(r *http.Request, key string) string {
	b, ok := ss.lookup(r)
	if !ok {
		return ""
	}
	return b.row.Values["ui:"+key]
}

// Touch records a request of the signed-in session: it sets a UI value when key is not "" and
// moves the idle deadline, which is written at most once a minute for the deadline alone.
func (ss *Sessions) Touch(w http.ResponseWriter, r *http.Request, key, value string) error {
	b, ok := ss.lookup(r)
	if !ok {
		return nil
	}
	now := ss.now()
	if key == "" && now.Sub(b.row.LastSeen) < seenEvery {
		return nil
	}
	row, err := ss.s.UpdateSession(b.token, func(row *store.Session) {
		if key != "" {
			if row.Values == nil {
				row.Values = map[string]string{}
			}
			row.Values["ui:"+key] = value
		}
		row.LastSeen = now
	})
	if errors.Is(err, store.ErrNotFound) {
		return nil // ended meanwhile
	}
	if c, ok := r.Context().Value(sessionCtxKey{}).(*browserSession); ok && c != nil && err == nil {
		c.row = row
	}
	return err
}

// startSession signs u in: a new stored session (at stage, "" when complete) and a cookie
// holding its token. A session the browser held before is ended: nothing from before sign-in
// carries over.
func (ss *Sessions) startSession(w http.ResponseWriter, r *http.Request, u store.User, stage string) error {
	if old, ok := ss.lookup(r); ok {
		_ = ss.s.DeleteSession(old.token)
	}
	_, token, err := ss.s.CreateSession(store.NewSession{UserID: u.ID, Stage: stage,
		UserAgent: r.UserAgent(), Address: clientAddr(r), At: ss.now()})
	if err != nil {
		return err
	}
	sess, _ := ss.cookies.New(r, sessionCookie)
	sess.Values["sid"] = token
	return ss.cookies.Save(r, w, sess)
}

// advance moves the request's session to stage ("" when complete), as the second factor or
// the enrolment completes.
func (ss *Sessions) advance(r *http.Request, stage string) error {
	b, ok := ss.lookup(r)
	if !ok {
		return store.ErrNotFound
	}
	_, err := ss.s.UpdateSession(b.token, func(row *store.Session) { row.Stage = stage })
	return err
}

// endSession deletes the request's stored session and clears the cookie (sign-out): a copy of
// the cookie is worthless from then on.
func (ss *Sessions) endSession(w http.ResponseWriter, r *http.Request) {
	if sess, err := ss.cookies.Get(r, sessionCookie); err == nil && !sess.IsNew {
		if token, _ := sess.Values["sid"].(string); token != "" {
			_ = ss.s.DeleteSession(token)
		}
	}
	sess, _ := ss.cookies.New(r, sessionCookie)
	sess.Options.MaxAge = -1
	_ = ss.cookies.Save(r, w, sess)
}

// SweepStale deletes the sessions that can no longer be used (idle or past their maximum age)
// and says how many; cli runs it on a timer.
func (ss *Sessions) SweepStale() (int, error) {
	now := ss.now()
	return ss.s.DeleteStaleSessions(now.Add(-sessionIdle), now.Add(-sessionMax))
}
