package web

import (
	"fmt"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"testing"
	"time"

	"switchboard/internal/testutil"
	"switchboard/mail"
)

// withMail serves e again with e-mail configured: a mail worker that is never started, so what
// the pages queue stays in the outbox for the test to read.
func withMail(t *testing.T, e *uiEnv, now func() time.Time) *mail.Worker {
	t.Helper()
	worker := mail.NewWorker(e.st, mail.Config{URL: "smtp://127.0.0.1:1", From: "Switchboard <sms@example.com>"}, nil)
	serveWithMailer(t, e, worker, now)
	return worker
}

// serveWithMailer serves e again with its session's e-mail going through m (now nil: the
// store's clock).
func serveWithMailer(t *testing.T, e *uiEnv, m Mailer, now func() time.Time) {
	t.Helper()
	e.srv.Close()
	e.srv = httptest.NewUnstartedServer(nil)
	sess, err := NewSessions(e.st, SessionConfig{BaseURL: "http://" + e.srv.Listener.Addr().String(), Mail: m, Now: now})
	if err != nil {
		t.Fatal(err)
	}
	e.sess = sess
	e.srv.Config.Handler = New(e.st, Config{Sessions: sess})
	e.srv.Start()
	t.Cleanup(e.srv.Close)
}

// TestResetLinkIsCheckedFirstAndThrottled: POST /reset/{token} with a made-up token answers
// "does not work" without hashing the password (the token is checked first), and a network
// that keeps trying made-up tokens is slowed, by a budget of its own: sign-in still works.
func TestResetLinkIsCheckedFirstAndThrottled(t *testing.T) {
	t.Parallel()
	clk := testutil.NewClock(time.Now()) // still while the budget is spent
	e := newUIEnvAt(t, clk.Now)
	b := e.browser(t)
	statuses := map[int]int{}
	for range 25 {
		res, _ := e.send(t, b, "POST", "/reset/sbr_madeup", url.Values{"password": {"a long new password"}})
		statuses[res.StatusCode]++
	}
	if statuses[http.StatusNotFound] != 20 || statuses[http.StatusTooManyRequests] != 5 {
		t.Fatalf("25 made-up reset tokens from one network: %v, want 20 × 404 then 5 × 429", statuses)
	}
	e.signIn(t, e.alice)
	// A real link still works once the network's budget is back (a try every 6 s).
	token, err := e.st.CreateReset(e.bob.ID, e.st.Now())
	if err != nil {
		t.Fatal(err)
	}
	res, _ := e.send(t, b, "POST", "/reset/"+token, url.Values{"password": {"bob's new password"}})
	if res.StatusCode != http.StatusTooManyRequests || res.Header.Get("Retry-After") == "" {
		t.Fatalf("a real link right after the flood: %d, want 429 with Retry-After", res.StatusCode)
	}
}

// TestForgotHasItsOwnBudget: "Forgot password?" and sign-in count against separate budgets of
// the client's network, so failed sign-ins do not stop a reset request and the other way round.
func TestForgotHasItsOwnBudget(t *testing.T) {
	t.Parallel()
	clk := testutil.NewClock(time.Now())
	e := newUIEnvAt(t, clk.Now)
	withMail(t, e, clk.Now)
	b := e.browser(t)
	// Twenty failed sign-ins from the test's network, counted as sign-in counts them (each real
	// one would cost a bcrypt comparison).
	for range 20 {
		if _, ok := e.sess.limits.attempt(clk.Now(), "net:127.0.0.0/24"); !ok {
			t.Fatal("the network's sign-in budget ran out before 20 failures")
		}
	}
	if res, _ := e.send(t, b, "POST", "/login", url.Values{"email": {"nobody@example.com"}, "password": {"wrong"}}); res.StatusCode != http.StatusTooManyRequests {
		t.Fatalf("a sign-in after 20 failures from one network: %d, want 429", res.StatusCode)
	}
	n := 0
	for ; n < 100; n++ {
		res, body := e.send(t, b, "POST", "/forgot", url.Values{"email": {fmt.Sprintf("x%d@example.com", n)}})
		if res.StatusCode == http.StatusTooManyRequests {
			break
		}
		if res.StatusCode != http.StatusOK || !strings.Contains(body, `data-testid="forgot-sent"`) {
			t.Fatalf("forgot %d after the sign-in budget ran out: %d, want 200", n+1, res.StatusCode)
		}
	}
	if n != 10 {
		t.Fatalf("forgot requests before 429: %d, want 10", n)
	}
	// Six seconds give sign-in one more try, not "Forgot password?": a right password signs in.
	clk.Advance(6 * time.Second)
	if res, _ := e.send(t, b, "POST", "/forgot", url.Values{"email": {"y@example.com"}}); res.StatusCode != http.StatusTooManyRequests {
		t.Fatalf("forgot 6 s later: %d, want still 429", res.StatusCode)
	}
	e.signIn(t, e.alice)
}

// TestCurrentPasswordGuessesAreThrottled: a session holder guessing the current password on the
// profile's forms is slowed like a sign-in: five wrong, then 429, counted per account across the
// forms; the owner's other account is not affected.
func TestCurrentPasswordGuessesAreThrottled(t *testing.T) {
	t.Parallel()
	clk := testutil.NewClock(time.Now())
	e := newUIEnvAt(t, clk.Now)
	c := e.signIn(t, e.alice)
	for i := range 5 {
		path, field := "/settings/profile/password", "current_password"
		if i%2 == 1 {
			path, field = "/settings/profile/2fa/off", "current_password"
		}
		res, _ := e.send(t, c, "POST", path, url.Values{field: {"guess " + strings.Repeat("x", i)}, "password": {"a new password"}})
		if res.StatusCode != http.StatusUnprocessableEntity {
			t.Fatalf("wrong guess %d on %s: %d, want 422", i+1, path, res.StatusCode)
		}
	}
	res, body := e.send(t, c, "POST", "/settings/profile/password", url.Values{"current_password": {uiPassword}, "password": {"a new password"}})
	if res.StatusCode != http.StatusTooManyRequests || !strings.Contains(body, `role="alert"`) {
		t.Fatalf("sixth try: %d, want 429 with an alert", res.StatusCode)
	}
	other := e.signIn(t, e.mo)
	res, _ = e.send(t, other, "POST", "/settings/profile/password", url.Values{"current_password": {uiPassword}, "password": {"a new password"}})
	wantRedirect(t, res, "/settings/profile?done=password")
}
