package oauth

import (
	"net"
	"net/http"
	"strings"
	"sync"
	"time"

	"golang.org/x/crypto/bcrypt"
	"golang.org/x/time/rate"

	"switchboard/store"
	"switchboard/views"
)

const sessionCookie = "sb_session"

// sessionUser returns the signed-in user of the request's session cookie. The sign-in time
// ("at", sessionMax) and the last request's ("seen", sessionIdle) are checked against the
// provider's clock, not only the cookie's Max-Age, which a client controls.
func (p *Provider) sessionUser(r *http.Request) (store.User, bool) {
	sess, err := p.sessions.Get(r, sessionCookie)
	if err != nil || sess.IsNew {
		return store.User{}, false
	}
	uid, _ := sess.Values["uid"].(string)
	at, _ := sess.Values["at"].(int64)
	seen, ok := sess.Values["seen"].(int64)
	if !ok {
		seen = at
	}
	now := p.now()
	if uid == "" || now.Sub(time.Unix(at, 0)) >= sessionMax || now.Sub(time.Unix(seen, 0)) >= sessionIdle {
		return store.User{}, false
	}
	u, err := p.s.User(uid)
	if err != nil {
		return store.User{}, false
	}
	return u, true
}

// CurrentUser is the signed-in user of r, for other parts that share the session (admin UI).
func (p *Provider) CurrentUser(r *http.Request) (store.User, bool) { return p.sessionUser(r) }

// SessionValue is a string the admin UI keeps in the signed-in session (the current workspace).
func (p *Provider) SessionValue(r *http.Request, key string) string {
	sess, err := p.sessions.Get(r, sessionCookie)
	if err != nil || sess.IsNew {
		return ""
	}
	v, _ := sess.Values["ui:"+key].(string)
	return v
}

// Touch records a request of the signed-in session: it sets a UI value when key is not "" and
// moves the idle deadline. The cookie is rewritten at most once a minute for the deadline alone.
func (p *Provider) Touch(w http.ResponseWriter, r *http.Request, key, value string) error {
	sess, err := p.sessions.Get(r, sessionCookie)
	if err != nil || sess.IsNew {
		return err
	}
	now := p.now().Unix()
	seen, _ := sess.Values["seen"].(int64)
	if key == "" && now-seen < 60 {
		return nil
	}
	if key != "" {
		sess.Values["ui:"+key] = value
	}
	sess.Values["seen"] = now
	return p.sessions.Save(r, w, sess)
}

func (p *Provider) startSession(w http.ResponseWriter, r *http.Request, u store.User) error {
	// A fresh session, not the decoded one: nothing from before sign-in carries over.
	sess, _ := p.sessions.New(r, sessionCookie)
	sess.Values["uid"] = u.ID
	sess.Values["at"] = p.now().Unix()
	sess.Values["seen"] = p.now().Unix()
	return p.sessions.Save(r, w, sess)
}

// loginPage is GET /oauth/login.
func (p *Provider) loginPage(w http.ResponseWriter, r *http.Request) {
	next := r.URL.Query().Get("next")
	if !localPath(next) {
		next = ""
	}
	p.render(w, r, http.StatusOK, "Sign in", views.Login(views.LoginForm{Next: next, Action: r.URL.Path}))
}

// login is POST /oauth/login: email and password, rate-limited per account and per address.
func (p *Provider) login(w http.ResponseWriter, r *http.Request) {
	if err := readForm(w, r); err != nil {
		p.formError(w, r, err)
		return
	}
	f := views.LoginForm{Email: strings.TrimSpace(r.PostForm.Get("email")), Next: r.PostForm.Get("next"), Action: r.URL.Path}
	if !localPath(f.Next) {
		f.Next = ""
	}
	password := r.PostForm.Get("password")
	account, addr := "account:"+strings.ToLower(f.Email), "addr:"+clientAddr(r)
	now := p.now()
	// The try is counted before the password is checked (DESIGN §13): counting only failures,
	// after a bcrypt comparison that takes a while, let many concurrent tries pass the check.
	refund, allowed := p.limits.attempt(now, account, addr)
	if !allowed {
		f.Error = "Too many failed sign-ins. Wait a minute and try again."
		w.Header().Set("Retry-After", "60")
		p.render(w, r, http.StatusTooManyRequests, "Sign in", views.Login(f))
		return
	}
	u, err := p.s.UserByEmail(f.Email)
	ok := err == nil && store.CheckPassword(u, password)
	if err != nil {
		p.spendBcrypt(password) // an unknown email takes as long as a wrong password
	}
	if !ok {
		f.Error = "Email or password is wrong."
		p.render(w, r, http.StatusUnauthorized, "Sign in", views.Login(f))
		return
	}
	refund() // a right password costs nothing: only failures use up tries
	if err := p.startSession(w, r, u); err != nil {
		p.renderMessage(w, r, http.StatusInternalServerError, "Something went wrong", "Please try again.")
		return
	}
	if f.Next == "" && r.URL.Path == "/login" {
		f.Next = "/" // the admin UI's sign-in goes on to the inbox
	}
	if f.Next != "" {
		http.Redirect(w, r, f.Next, http.StatusSeeOther)
		return
	}
	p.render(w, r, http.StatusOK, "Signed in", views.Notice("Signed in", "You are signed in as "+u.Email+".", "/inbox", "Continue to the inbox"))
}

// logout is POST /oauth/logout and the admin UI's POST /logout, which goes on to the sign-in page.
func (p *Provider) logout(w http.ResponseWriter, r *http.Request) {
	sess, _ := p.sessions.New(r, sessionCookie)
	sess.Options.MaxAge = -1
	_ = p.sessions.Save(r, w, sess)
	if r.URL.Path == "/logout" {
		http.Redirect(w, r, "/login", http.StatusSeeOther)
		return
	}
	p.renderMessage(w, r, http.StatusOK, "Signed out", "You are signed out.")
}

// spendBcrypt compares against a fixed hash so that unknown accounts cannot be told apart
// from wrong passwords by timing. The hash is made once, on first use.
func (p *Provider) spendBcrypt(password string) {
	p.dummyOnce.Do(func() {
		p.dummyHash, _ = bcrypt.GenerateFromPassword([]byte("switchboard-dummy-password"), bcrypt.DefaultCost)
	})
	_ = bcrypt.CompareHashAndPassword(p.dummyHash, []byte(password))
}

// clientAddr is the connection's address; forwarded headers are not trusted, since anyone
// can send them.
func clientAddr(r *http.Request) string {
	host, _, err := net.SplitHostPort(r.RemoteAddr)
	if err != nil {
		return r.RemoteAddr
	}
	return host
}

// loginLimits counts failed sign-ins per key (an account or an address) with token buckets:
// an account gets 5 failures, then one a minute; an address 20, then one every 6 seconds.
// Every try takes a token before the password is checked; a successful one gives it back, so a
// user who types the password right is never slowed.
type loginLimits struct {
	mu sync.Mutex
	m  map[string]*rate.Limiter
}

func newLoginLimits() *loginLimits { return &loginLimits{m: map[string]*rate.Limiter{}} }

func limitFor(key string) (rate.Limit, int) {
	if strings.HasPrefix(key, "account:") {
		return rate.Every(time.Minute), 5
	}
	return rate.Every(6 * time.Second), 20
}

// ok reports whether key may try again now.
func (l *loginLimits) ok(key string, now time.Time) bool {
	l.mu.Lock()
	defer l.mu.Unlock()
	lim := l.m[key]
	return lim == nil || lim.TokensAt(now) >= 1
}

// attempt takes one try from every key's bucket at once, or none when any is empty (ok false).
// refund gives the tries back, for a sign-in that succeeded.
func (l *loginLimits) attempt(now time.Time, keys ...string) (refund func(), ok bool) {
	l.mu.Lock()
	defer l.mu.Unlock()
	for _, k := range keys {
		if lim := l.m[k]; lim != nil && lim.TokensAt(now) < 1 {
			return func() {}, false
		}
	}
	var rs []*rate.Reservation
	for _, k := range keys {
		rs = append(rs, l.limiter(k, now).ReserveN(now, 1))
	}
	return func() {
		l.mu.Lock()
		defer l.mu.Unlock()
		for _, r := range rs {
			r.CancelAt(now)
		}
	}, true
}

// fail takes a token from key's bucket.
func (l *loginLimits) fail(key string, now time.Time) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.limiter(key, now).AllowN(now, 1)
}

// limiter returns key's bucket, made full when new; l.mu is held.
func (l *loginLimits) limiter(key string, now time.Time) *rate.Limiter {
	lim := l.m[key]
	if lim == nil {
		if len(l.m) >= 10_000 {
			// Forget the keys whose buckets have refilled: they carry no state.
			for k, v := range l.m {
				if _, burst := limitFor(k); v.TokensAt(now) >= float64(burst) {
					delete(l.m, k)
				}
			}
		}
		every, burst := limitFor(key)
		lim = rate.NewLimiter(every, burst)
		l.m[key] = lim
	}
	return lim
}
