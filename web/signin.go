package web

import (
	"errors"
	"net"
	"net/http"
	"net/netip"
	"net/url"
	"path"
	"strings"
	"sync"
	"time"

	"github.com/a-h/templ"
	"golang.org/x/crypto/bcrypt"
	"golang.org/x/time/rate"

	"switchboard/store"
	"switchboard/views"
)

// maxSignInForm bounds the body of the sign-in and setup forms, so a client cannot make the server
// read without limit.
const maxSignInForm = 64 << 10

// loginPage is GET /login and GET /oauth/login.
func (ss *Sessions) loginPage(w http.ResponseWriter, r *http.Request) {
	f := views.LoginForm{Next: localNext(r.URL.Query().Get("next")), Action: r.URL.Path}
	renderBare(w, r, http.StatusOK, "Sign in", views.Login(f))
}

// login is POST /login and POST /oauth/login: email and password, rate-limited per account
// and client network, and per network.
func (ss *Sessions) login(w http.ResponseWriter, r *http.Request) {
	if err := readForm(w, r); err != nil {
		formError(w, r, err)
		return
	}
	f := views.LoginForm{Email: strings.TrimSpace(r.PostForm.Get("email")), Next: localNext(r.PostForm.Get("next")),
		Action: r.URL.Path}
	password := r.PostForm.Get("password")
	network := clientNetwork(r)
	now := ss.now()
	// The try is counted before the password is checked: counting only failures, after a
	// bcrypt comparison that takes a while, let many concurrent tries pass the check. The
	// account's tries are counted per client network, so that failures from one network never
	// lock its owner out from another.
	refund, allowed := ss.limits.attempt(now, "account:"+strings.ToLower(f.Email)+"|"+network, "net:"+network)
	if !allowed {
		f.Error = "Too many failed sign-ins. Wait a minute and try again."
		w.Header().Set("Retry-After", "60")
		renderBare(w, r, http.StatusTooManyRequests, "Sign in", views.Login(f))
		return
	}
	u, ok := ss.checkPassword(f.Email, password)
	if !ok {
		f.Error = "Email or password is wrong."
		renderBare(w, r, http.StatusUnauthorized, "Sign in", views.Login(f))
		return
	}
	refund() // a right password costs nothing: only failures use up tries
	if u.Disabled {
		f.Error = "This account is disabled. Ask an administrator to enable it."
		renderBare(w, r, http.StatusForbidden, "Sign in", views.Login(f))
		return
	}
	stage := ""
	switch {
	case u.TwoFactor:
		stage = store.SessionStageCode
	case ss.twoFactorRequired():
		stage = store.SessionStageEnrol
	}
	if err := ss.startSession(w, r, u, stage); err != nil {
		renderMessage(w, r, http.StatusInternalServerError, "Something went wrong", "Please try again.")
		return
	}
	ss.afterPassword(w, r, u, stage, f.Next)
}

// afterPassword sends a browser whose password was right on: to the code or enrolment page
// when the session still owes the second factor, else to next.
func (ss *Sessions) afterPassword(w http.ResponseWriter, r *http.Request, u store.User, stage, next string) {
	oauthFlow := strings.HasPrefix(r.URL.Path, "/oauth/")
	if next == "" && !oauthFlow {
		next = "/" // the admin UI's sign-in goes on to the inbox
	}
	q := ""
	if next != "" {
		q = "?next=" + url.QueryEscape(next)
	}
	switch stage {
	case store.SessionStageCode:
		http.Redirect(w, r, "/login/code"+q, http.StatusSeeOther)
		return
	case store.SessionStageEnrol:
		http.Redirect(w, r, "/login/enrol"+q, http.StatusSeeOther)
		return
	}
	if next != "" {
		http.Redirect(w, r, next, http.StatusSeeOther)
		return
	}
	renderBare(w, r, http.StatusOK, "Signed in", views.Notice("Signed in", "You are signed in as "+u.Email+".", "/inbox", "Continue to the inbox"))
}

// checkPassword finds the user of email and checks password. bcrypt runs whatever the case (no
// such user, a user without a password) so that the answer's time tells nothing.
func (ss *Sessions) checkPassword(email, password string) (store.User, bool) {
	u, err := ss.s.UserByEmail(email)
	if err != nil || u.PasswordHash == "" {
		ss.spendBcrypt(password)
		return store.User{}, false
	}
	return u, store.CheckPassword(u, password)
}

// twoFactorRequired reports whether every user must have two-factor (the flag, or the
// superuser's setting).
func (ss *Sessions) twoFactorRequired() bool {
	if ss.cfg.RequireTwoFactor {
		return true
	}
	on, _ := ss.s.TwoFactorRequired()
	return on
}

// logout is POST /oauth/logout and the admin UI's POST /logout, which goes on to the sign-in
// page. The stored session is deleted: a copy of the cookie signs no one in afterwards.
func (ss *Sessions) logout(w http.ResponseWriter, r *http.Request) {
	ss.endSession(w, r)
	if r.URL.Path == "/logout" {
		http.Redirect(w, r, "/login", http.StatusSeeOther)
		return
	}
	renderMessage(w, r, http.StatusOK, "Signed out", "You are signed out.")
}

// spendBcrypt compares against a fixed hash so that unknown accounts cannot be told apart
// from wrong passwords by timing. The hash is made once, on first use.
func (ss *Sessions) spendBcrypt(password string) {
	ss.dummyOnce.Do(func() {
		ss.dummyHash, _ = bcrypt.GenerateFromPassword([]byte("switchboard-dummy-password"), bcrypt.DefaultCost)
	})
	_ = bcrypt.CompareHashAndPassword(ss.dummyHash, []byte(password))
}

// readForm parses a sign-in or setup form post with its body bounded to maxSignInForm, so that
// a client cannot make the server read without limit. An error is answered by
// formError.
func readForm(w http.ResponseWriter, r *http.Request) error {
	r.Body = http.MaxBytesReader(w, r.Body, maxSignInForm)
	return r.ParseForm()
}

// formError answers a form that readForm refused: 413 when it was too large, like the API's
// bodies, else 400.
func formError(w http.ResponseWriter, r *http.Request, err error) {
	var tooBig *http.MaxBytesError
	if errors.As(err, &tooBig) {
		renderMessage(w, r, http.StatusRequestEntityTooLarge, "Request too large", "The form is larger than 64 KiB.")
		return
	}
	renderMessage(w, r, http.StatusBadRequest, "Bad request", "The form could not be read.")
}

// renderBare writes a page of the signed-out layout (sign-in, setup); templ.Handler buffers, so
// a render error never sends half a page with 200. Pages are never cached or framed.
func renderBare(w http.ResponseWriter, r *http.Request, status int, title string, page templ.Component) {
	h := w.Header()
	h.Set("Cache-Control", "no-store")
	h.Set("X-Frame-Options", "DENY")
	h.Set("Content-Security-Policy", "default-src 'self'; img-src 'self' data:; frame-ancestors 'none'; base-uri 'none'")
	templ.Handler(views.Layout(title, page), templ.WithStatus(status)).ServeHTTP(w, r)
}

func renderMessage(w http.ResponseWriter, r *http.Request, status int, heading, text string) {
	renderBare(w, r, status, heading, views.Message(heading, text, status >= 400))
}

// localNext returns next, cleaned the way http.Redirect cleans it, when it is a path on this
// server, else "" (an open-redirect guard). After cleaning it must start with one "/" and be
// neither "//…" nor "/\…"; a backslash anywhere (raw or percent-encoded) and control
// characters, which browsers drop or read as "/", are refused outright.
func localNext(next string) string {
	if next == "" || !strings.HasPrefix(next, "/") {
		return ""
	}
	if strings.ContainsFunc(next, func(c rune) bool { return c < 0x20 || c == 0x7f || c == '\\' }) {
		return ""
	}
	u, err := url.Parse(next)
	if err != nil || u.Scheme != "" || u.Host != "" || u.User != nil || u.Opaque != "" {
		return ""
	}
	if strings.Contains(u.Path, "\\") || strings.ContainsFunc(u.Path, func(c rune) bool { return c < 0x20 || c == 0x7f }) {
		return ""
	}
	clean := path.Clean(u.EscapedPath())
	if strings.HasSuffix(u.EscapedPath(), "/") && clean != "/" {
		clean += "/"
	}
	if !strings.HasPrefix(clean, "/") || strings.HasPrefix(clean, "//") || strings.HasPrefix(clean, "/\\") ||
		strings.HasPrefix(u.Path, "//") {
		return ""
	}
	if u.RawQuery != "" {
		clean += "?" + u.RawQuery
	}
	return clean
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

// clientNetwork is the network the client's address belongs to, as sign-in throttling counts
// it: the /24 of an IPv4 address, the /64 of an IPv6 one (one household or one host's range).
func clientNetwork(r *http.Request) string {
	addr, err := netip.ParseAddr(clientAddr(r))
	if err != nil {
		return clientAddr(r)
	}
	addr = addr.Unmap()
	bits := 64
	if addr.Is4() {
		bits = 24
	}
	p, err := addr.Prefix(bits)
	if err != nil {
		return addr.String()
	}
	return p.String()
}

// loginLimits counts tries that fail per key with token buckets. A key is a kind and what it
// counts, "kind:…"; each kind has its own budget (budgets), so that spending one (failed
// sign-ins from a network) never stops another ("Forgot password?" from the same network).
// Every try takes a token before the secret is checked; a successful one gives it back, so a
// user who types the password right is never slowed.
type loginLimits struct {
	mu sync.Mutex
	m  map[string]*rate.Limiter
}

// budget is how many tries a key gets at once, and how often one more comes back.
type budget struct {
	burst int
	every time.Duration
}

// budgets by the kind of key. Keys of an account alone are only ever for a signed-in session
// or a session half-way through sign-in, so no one else can spend them.
var budgets = map[string]budget{
	"account": {5, time.Minute},      // sign-in: an account from one client network
	"net":     {20, 6 * time.Second}, // sign-in: a client network
	"code":    {5, time.Minute},      // two-factor codes at sign-in: an account
	"current": {5, time.Minute},      // the current password on the profile's forms: an account
	"forgot":  {10, time.Minute},     // "Forgot password?": a client network
	"reset":   {20, 6 * time.Second}, // reset links tried: a client network
}

func newLoginLimits() *loginLimits { return &loginLimits{m: map[string]*rate.Limiter{}} }

// limitFor is key's budget; a kind not in budgets gets the network's.
func limitFor(key string) (rate.Limit, int) {
	kind, _, _ := strings.Cut(key, ":")
	b, ok := budgets[kind]
	if !ok {
		b = budgets["net"]
	}
	return rate.Every(b.every), b.burst
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
