package web

import (
	"errors"
	"net"
	"net/http"
	"net/url"
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
	next := r.URL.Query().Get("next")
	if !localPath(next) {
		next = ""
	}
	renderBare(w, r, http.StatusOK, "Sign in", views.Login(views.LoginForm{Next: next, Action: r.URL.Path}))
}

// login is POST /login and POST /oauth/login: email and password, rate-limited per account and
// per address.
func (ss *Sessions) login(w http.ResponseWriter, r *http.Request) {
	if err := readForm(w, r); err != nil {
		formError(w, r, err)
		return
	}
	f := views.LoginForm{Email: strings.TrimSpace(r.PostForm.Get("email")), Next: r.PostForm.Get("next"), Action: r.URL.Path}
	if !localPath(f.Next) {
		f.Next = ""
	}
	password := r.PostForm.Get("password")
	account, addr := "account:"+strings.ToLower(f.Email), "addr:"+clientAddr(r)
	now := ss.now()
	// The try is counted before the password is checked: counting only failures,
	// after a bcrypt comparison that takes a while, let many concurrent tries pass the check.
	refund, allowed := ss.limits.attempt(now, account, addr)
	if !allowed {
		f.Error = "Too many failed sign-ins. Wait a minute and try again."
		w.Header().Set("Retry-After", "60")
		renderBare(w, r, http.StatusTooManyRequests, "Sign in", views.Login(f))
		return
	}
	u, err := ss.s.UserByEmail(f.Email)
	ok := err == nil && store.CheckPassword(u, password)
	if err != nil {
		ss.spendBcrypt(password) // an unknown email takes as long as a wrong password
	}
	if !ok {
		f.Error = "Email or password is wrong."
		renderBare(w, r, http.StatusUnauthorized, "Sign in", views.Login(f))
		return
	}
	refund() // a right password costs nothing: only failures use up tries
	if err := ss.startSession(w, r, u); err != nil {
		renderMessage(w, r, http.StatusInternalServerError, "Something went wrong", "Please try again.")
		return
	}
	if f.Next == "" && r.URL.Path == "/login" {
		f.Next = "/" // the admin UI's sign-in goes on to the inbox
	}
	if f.Next != "" {
		http.Redirect(w, r, f.Next, http.StatusSeeOther)
		return
	}
	renderBare(w, r, http.StatusOK, "Signed in", views.Notice("Signed in", "You are signed in as "+u.Email+".", "/inbox", "Continue to the inbox"))
}

// logout is POST /oauth/logout and the admin UI's POST /logout, which goes on to the sign-in page.
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
	h.Set("Content-Security-Policy", "default-src 'self'; frame-ancestors 'none'; base-uri 'none'")
	templ.Handler(views.Layout(title, page), templ.WithStatus(status)).ServeHTTP(w, r)
}

func renderMessage(w http.ResponseWriter, r *http.Request, status int, heading, text string) {
	renderBare(w, r, status, heading, views.Message(heading, text, status >= 400))
}

// localPath reports whether next is a path on this server (an open-redirect guard).
func localPath(next string) bool {
	if !strings.HasPrefix(next, "/") || strings.HasPrefix(next, "//") || strings.HasPrefix(next, "/\\") {
		return false
	}
	u, err := url.Parse(next)
	return err == nil && u.Scheme == "" && u.Host == ""
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
