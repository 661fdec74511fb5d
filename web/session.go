package web

import (
	"crypto/rand"
	"fmt"
	"net/http"
	"strings"
	"sync"
	"time"

	"github.com/gorilla/sessions"
	bolt "go.etcd.io/bbolt"

	"switchboard/store"
)

// A browser session ends after sessionIdle without a request, and sessionMax after sign-in
// whatever happens. The cookie lives as long as the longer bound; the server
// checks both against its own clock.
const (
	sessionIdle   = 12 * time.Hour
	sessionMax    = 7 * 24 * time.Hour
	sessionCookie = "sb_session"
)

// The session keys stay in the bucket and key where the OAuth provider kept them before the
// browser session moved to web, so that sign-ins survive the upgrade.
var (
	bSessionMeta  = []byte("oauth_meta")
	keySessionKey = []byte("session_keys") // 64-byte HMAC key | 32-byte AES key
)

// SessionConfig is what the browser session needs beyond the store.
type SessionConfig struct {
	// BaseURL is the public URL; an https one makes the session cookie Secure. /setup links
	// are made under it.
	BaseURL string
	// Now is the clock; nil means the store's.
	Now func() time.Time
}

// Sessions is the browser session (gorilla/sessions cookie store) with its sign-in, sign-out
// and first-run setup: who is signed in, and a few UI values kept in the session. The admin
// UI and the OAuth authorize page (oauth.Session) share it.
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

// NewSessions loads the session keys (made and persisted on first use, so sign-ins survive
// restarts).
func NewSessions(s *store.Store, cfg SessionConfig) (*Sessions, error) {
	if cfg.Now == nil {
		cfg.Now = s.Now
	}
	var keys []byte
	err := s.DB().Update(func(tx *bolt.Tx) error {
		meta, err := tx.CreateBucketIfNotExists(bSessionMeta)
		if err != nil {
			return fmt.Errorf("web: create bucket %s: %w", bSessionMeta, err)
		}
		if k := meta.Get(keySessionKey); len(k) == 96 {
			keys = append([]byte(nil), k...)
			return nil
		}
		keys = make([]byte, 96)
		if _, err := rand.Read(keys); err != nil {
			return fmt.Errorf("web: session key: %w", err)
		}
		return meta.Put(keySessionKey, keys)
	})
	if err != nil {
		return nil, err
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

// CurrentUser returns the signed-in user of the request's session cookie; false when signed
// out, idle 12 h, or signed in 7 days ago. The sign-in time ("at", sessionMax) and the last
// request's ("seen", sessionIdle) are checked against the server's clock, not only the
// cookie's Max-Age, which a client controls.
func (ss *Sessions) CurrentUser(r *http.Request) (store.User, bool) {
	sess, err := ss.cookies.Get(r, sessionCookie)
	if err != nil || sess.IsNew {
		return store.User{}, false
	}
	uid, _ := sess.Values["uid"].(string)
	at, _ := sess.Values["at"].(int64)
	seen, ok := sess.Values["seen"].(int64)
	if !ok {
		seen = at
	}
	now := ss.now()
	if uid == "" || now.Sub(time.Unix(at, 0)) >= sessionMax || now.Sub(time.Unix(seen, 0)) >= sessionIdle {
		return store.User{}, false
	}
	u, err := ss.s.User(uid)
	if err != nil {
		return store.User{}, false
	}
	return u, true
}

// SessionValue is a string the admin UI keeps in the signed-in session (the current
// workspace); "" when none.
func (ss *Sessions) SessionValue(r *http.Request, key string) string {
	sess, err := ss.cookies.Get(r, sessionCookie)
	if err != nil || sess.IsNew {
		return ""
	}
	v, _ := sess.Values["ui:"+key].(string)
	return v
}

// Touch records a request of the signed-in session: it sets a UI value when key is not "" and
// moves the idle deadline. The cookie is rewritten at most once a minute for the deadline alone.
func (ss *Sessions) Touch(w http.ResponseWriter, r *http.Request, key, value string) error {
	sess, err := ss.cookies.Get(r, sessionCookie)
	if err != nil || sess.IsNew {
		return err
	}
	now := ss.now().Unix()
	seen, _ := sess.Values["seen"].(int64)
	if key == "" && now-seen < 60 {
		return nil
	}
	if key != "" {
		sess.Values["ui:"+key] = value
	}
	sess.Values["seen"] = now
	return ss.cookies.Save(r, w, sess)
}

func (ss *Sessions) startSession(w http.ResponseWriter, r *http.Request, u store.User) error {
	// A fresh session, not the decoded one: nothing from before sign-in carries over.
	sess, _ := ss.cookies.New(r, sessionCookie)
	sess.Values["uid"] = u.ID
	sess.Values["at"] = ss.now().Unix()
	sess.Values["seen"] = ss.now().Unix()
	return ss.cookies.Save(r, w, sess)
}

// endSession clears the session cookie (sign-out).
func (ss *Sessions) endSession(w http.ResponseWriter, r *http.Request) {
	sess, _ := ss.cookies.New(r, sessionCookie)
	sess.Options.MaxAge = -1
	_ = ss.cookies.Save(r, w, sess)
}
