package web

import (
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"sync"
	"testing"
	"testing/fstest"
)

// failLogins records n failed sign-ins for an account from a network and for the network, as
// n wrong passwords would, without spending n bcrypt comparisons (seconds each under -race).
func failLogins(ss *Sessions, email, network string, n int) {
	for i := 0; i < n; i++ {
		ss.limits.fail("account:"+email+"|"+network, ss.now())
		ss.limits.fail("net:"+network, ss.now())
	}
}

func TestFailedSignInsAreRateLimited(t *testing.T) {
	t.Parallel()
	e := newUIEnv(t)
	failLogins(e.sess, e.alice.Email, "127.0.0.0/24", 5)
	// The right password is refused too while the account is locked, without a bcrypt run.
	res, body := e.send(t, e.browser(t), "POST", "/oauth/login", url.Values{"email": {e.alice.Email}, "password": {uiPassword}})
	if res.StatusCode != http.StatusTooManyRequests || res.Header.Get("Retry-After") == "" || !strings.Contains(body, `data-testid="login-error"`) {
		t.Fatalf("expected 429 with Retry-After and an error on the form, got %d", res.StatusCode)
	}
	for _, c := range res.Cookies() {
		if c.Name == "sb_session" {
			t.Fatal("expected no session from a refused sign-in")
		}
	}
}

// TestConcurrentSignInsAreCounted: tries are counted before the (slow) password check, so a
// burst of concurrent wrong passwords gets the account's five tries and no more.
func TestConcurrentSignInsAreCounted(t *testing.T) {
	t.Parallel()
	e := newUIEnv(t)
	const n = 12
	codes := make(chan int, n)
	start := make(chan struct{})
	var wg sync.WaitGroup
	for range n {
		wg.Go(func() {
			form := url.Values{"email": {e.alice.Email}, "password": {"wrong password"}}
			req, _ := http.NewRequest("POST", e.srv.URL+"/oauth/login", strings.NewReader(form.Encode()))
			req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
			<-start
			res, err := http.DefaultClient.Do(req)
			if err != nil {
				codes <- 0
				return
			}
			res.Body.Close()
			codes <- res.StatusCode
		})
	}
	close(start)
	wg.Wait()
	close(codes)
	count := map[int]int{}
	for c := range codes {
		count[c]++
	}
	if count[http.StatusUnauthorized] != 5 || count[http.StatusTooManyRequests] != n-5 {
		t.Fatalf("answers %v: want 5 × 401 (the account's tries) and %d × 429", count, n-5)
	}
	// The right password is refused too now: the account's tries are used up.
	res, _ := e.send(t, e.browser(t), "POST", "/oauth/login", url.Values{"email": {e.alice.Email}, "password": {uiPassword}})
	if res.StatusCode != http.StatusTooManyRequests {
		t.Fatalf("the right password after the burst: %d, want 429", res.StatusCode)
	}
}

func TestSetup(t *testing.T) {
	t.Parallel()
	e := newUIEnv(t)
	sess, err := NewSessions(e.st, SessionConfig{BaseURL: "https://sb.example"})
	if err != nil {
		t.Fatal(err)
	}
	e.srv.Close()
	e.srv = httptest.NewServer(New(e.st, Config{Sessions: sess}))
	t.Cleanup(e.srv.Close)
	link, err := sess.SetupURL()
	if err != nil || !strings.HasPrefix(link, "https://sb.example/setup?token=") {
		t.Fatalf("expected a setup URL under the base URL, got %q %v", link, err)
	}
	token := strings.TrimPrefix(link, "https://sb.example/setup?token=")
	b := e.browser(t)
	if res, _ := e.send(t, b, "GET", "/setup?token=wrong", nil); res.StatusCode != http.StatusForbidden {
		t.Fatalf("wrong token: expected 403, got %d", res.StatusCode)
	}
	res, body := e.send(t, b, "GET", "/setup?token="+token, nil)
	if res.StatusCode != http.StatusOK || !strings.Contains(body, `data-testid="setup-form"`) {
		t.Fatalf("expected the setup form, got %d", res.StatusCode)
	}
	form := url.Values{"token": {token}, "email": {"not an email"}, "name": {"Root"}, "password": {"long enough pw"}}
	res, body = e.send(t, b, "POST", "/setup", form)
	if res.StatusCode != http.StatusUnprocessableEntity || !strings.Contains(body, `data-testid="field-error"`) {
		t.Fatalf("bad email: expected 422 with a field error, got %d", res.StatusCode)
	}
	form.Set("email", "root@example.com")
	res, _ = e.send(t, b, "POST", "/setup", form)
	if res.StatusCode != http.StatusCreated {
		t.Fatalf("setup: expected 201, got %d", res.StatusCode)
	}
	var session *http.Cookie
	for _, c := range res.Cookies() {
		if c.Name == "sb_session" {
			session = c
		}
	}
	if session == nil || !session.HttpOnly || !session.Secure || session.SameSite != http.SameSiteLaxMode {
		t.Fatalf("expected an HttpOnly, Secure (https base URL), SameSite=Lax session cookie, got %+v", session)
	}
	// Single use: the link and the page refuse once an admin exists.
	form.Set("email", "second@example.com")
	if res, _ := e.send(t, e.browser(t), "POST", "/setup", form); res.StatusCode != http.StatusGone {
		t.Fatalf("second setup: expected 410, got %d", res.StatusCode)
	}
	if link, err := sess.SetupURL(); link != "" || err != nil {
		t.Fatalf("expected no setup URL once a superuser exists, got %q %v", link, err)
	}
}

func TestStaticFiles(t *testing.T) {
	t.Parallel()
	e := newUIEnv(t)
	h := New(e.st, Config{Static: fstest.MapFS{"static/app.css": {Data: []byte("body{}")}}})
	for path, want := range map[string]int{"/static/app.css": 200, "/static/": 404, "/static/missing.css": 404} {
		rec := httptest.NewRecorder()
		h.ServeHTTP(rec, httptest.NewRequest("GET", path, nil))
		if rec.Code != want {
			t.Errorf("GET %s: expected %d, got %d", path, want, rec.Code)
		}
	}
}
