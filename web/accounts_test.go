package web

import (
	"html"
	"net/http"
	"net/url"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/pquerna/otp"
	"github.com/pquerna/otp/totp"

	"switchboard/store"
)

var (
	secretRe   = regexp.MustCompile(`data-testid="enrol-secret">([A-Z2-7 ]+)<`)
	recoveryRe = regexp.MustCompile(`<code>([0-9a-f]{5}-[0-9a-f]{5})</code>`)
	resetRe    = regexp.MustCompile(`readonly value="([^"]+)" data-testid="reset-link-value"`)
)

func totpCode(t *testing.T, secret string, at time.Time) string {
	t.Helper()
	c, err := totp.GenerateCodeCustom(strings.ReplaceAll(secret, " ", ""), at, totp.ValidateOpts{Period: 30, Digits: otp.DigitsSix, Algorithm: otp.AlgorithmSHA1})
	if err != nil {
		t.Fatal(err)
	}
	return c
}

// TestTwoFactorEnrolAndSignIn: enrol on the profile, then sign in with a code, and with a
// recovery code; a code is not taken twice.
func TestTwoFactorEnrolAndSignIn(t *testing.T) {
	t.Parallel()
	e := newUIEnv(t)
	c := e.signIn(t, e.alice)
	res, body := e.send(t, c, "GET", "/settings/profile/2fa", nil)
	m := secretRe.FindStringSubmatch(body)
	if res.StatusCode != http.StatusOK || m == nil || !strings.Contains(body, `src="data:image/png;base64,`) {
		t.Fatalf("enrolment page: %d, want the QR code and the secret", res.StatusCode)
	}
	secret := m[1]
	if !strings.Contains(body, `<label for="enrol-password"`) {
		t.Fatal("enrolment from the profile: want a labelled current password field")
	}
	// A session alone cannot turn two-factor on (and lock the owner out): the password is asked.
	res, _ = e.send(t, c, "POST", "/settings/profile/2fa", url.Values{"code": {totpCode(t, secret, time.Now())}})
	if u, _ := e.st.User(e.alice.ID); res.StatusCode != http.StatusUnprocessableEntity || u.TwoFactor {
		t.Fatalf("a right code without the password: %d, two-factor %v; want 422 and off", res.StatusCode, u.TwoFactor)
	}
	_, body = e.send(t, c, "GET", "/settings/profile/2fa", nil)
	secret = secretRe.FindStringSubmatch(body)[1]
	res, _ = e.send(t, c, "POST", "/settings/profile/2fa", url.Values{"code": {"123456"}, "current_password": {uiPassword}})
	if res.StatusCode != http.StatusUnprocessableEntity {
		t.Fatalf("a wrong first code: %d, want 422", res.StatusCode)
	}
	// A wrong code starts a new secret: read it again.
	_, body = e.send(t, c, "GET", "/settings/profile/2fa", nil)
	secret = secretRe.FindStringSubmatch(body)[1]
	now := time.Now()
	res, body = e.send(t, c, "POST", "/settings/profile/2fa", url.Values{"code": {totpCode(t, secret, now)}, "current_password": {uiPassword}})
	codes := recoveryRe.FindAllStringSubmatch(body, -1)
	if res.StatusCode != http.StatusOK || len(codes) != 10 {
		t.Fatalf("confirm: %d with %d recovery codes, want 200 with 10", res.StatusCode, len(codes))
	}
	// Sign in: the password leads to the code page, and nothing else opens before the code.
	b := e.browser(t)
	res, _ = e.send(t, b, "POST", "/login", url.Values{"email": {e.alice.Email}, "password": {uiPassword}, "next": {"/contacts"}})
	wantRedirect(t, res, "/login/code")
	res, _ = e.send(t, b, "GET", "/inbox", nil)
	wantRedirect(t, res, "/login/code")
	// The code already used to confirm is refused; the next step's works.
	res, _ = e.send(t, b, "POST", "/login/code", url.Values{"code": {totpCode(t, secret, now)}, "next": {"/contacts"}})
	if res.StatusCode != http.StatusUnauthorized {
		t.Fatalf("a used code: %d, want 401", res.StatusCode)
	}
	res, _ = e.send(t, b, "POST", "/login/code", url.Values{"code": {totpCode(t, secret, now.Add(30*time.Second))}, "next": {"/contacts"}})
	wantRedirect(t, res, "/contacts")
	if !e.signedIn(t, b) {
		t.Fatal("expected to be signed in after the code")
	}
	// A recovery code signs in once.
	for i, want := range []int{http.StatusSeeOther, http.StatusUnauthorized} {
		b := e.browser(t)
		e.send(t, b, "POST", "/login", url.Values{"email": {e.alice.Email}, "password": {uiPassword}})
		res, _ = e.send(t, b, "POST", "/login/code", url.Values{"code": {codes[0][1]}})
		if res.StatusCode != want {
			t.Fatalf("recovery code, try %d: %d, want %d", i+1, res.StatusCode, want)
		}
	}
}

// TestRequireTwoFactorSendsToEnrolment: with two-factor required, a user without it sets it up
// right after the password and can open nothing else before.
func TestRequireTwoFactorSendsToEnrolment(t *testing.T) {
	t.Parallel()
	e := newUIEnv(t)
	if err := e.st.SetTwoFactorRequired(true); err != nil {
		t.Fatal(err)
	}
	b := e.browser(t)
	res, _ := e.send(t, b, "POST", "/login", url.Values{"email": {e.mo.Email}, "password": {uiPassword}})
	wantRedirect(t, res, "/login/enrol")
	res, _ = e.send(t, b, "GET", "/settings/tokens", nil)
	wantRedirect(t, res, "/login/enrol")
	res, body := e.send(t, b, "GET", "/login/enrol", nil)
	m := secretRe.FindStringSubmatch(body)
	if res.StatusCode != http.StatusOK || m == nil {
		t.Fatalf("enrolment page: %d", res.StatusCode)
	}
	res, body = e.send(t, b, "POST", "/login/enrol", url.Values{"code": {totpCode(t, m[1], time.Now())}})
	if res.StatusCode != http.StatusOK || len(recoveryRe.FindAllString(body, -1)) != 10 {
		t.Fatalf("confirm: %d", res.StatusCode)
	}
	if !e.signedIn(t, b) {
		t.Fatal("expected the session complete after enrolment")
	}
}

// TestPasswordChangeAndSessionsOnProfile: changing the password needs the current one and signs
// out every other session; "Sign out everywhere else" and one session's "Sign out" work.
func TestPasswordChangeAndSessionsOnProfile(t *testing.T) {
	t.Parallel()
	e := newUIEnv(t)
	here, other, third := e.signIn(t, e.alice), e.signIn(t, e.alice), e.signIn(t, e.alice)
	res, body := e.send(t, here, "GET", "/settings/profile", nil)
	if res.StatusCode != http.StatusOK || strings.Count(body, `data-testid="session-row"`) != 3 || !strings.Contains(body, "this session") {
		t.Fatalf("profile: %d with %d sessions", res.StatusCode, strings.Count(body, `data-testid="session-row"`))
	}
	res, body = e.send(t, here, "POST", "/settings/profile/password", url.Values{"current_password": {"wrong"}, "password": {"a new password"}})
	if res.StatusCode != http.StatusUnprocessableEntity || !strings.Contains(body, `data-testid="error-current_password"`) {
		t.Fatalf("wrong current password: %d", res.StatusCode)
	}
	if !e.signedIn(t, other) {
		t.Fatal("a refused change signed another session out")
	}
	res, _ = e.send(t, here, "POST", "/settings/profile/password", url.Values{"current_password": {uiPassword}, "password": {"a new password"}})
	wantRedirect(t, res, "/settings/profile?done=password")
	if e.signedIn(t, other) || e.signedIn(t, third) {
		t.Fatal("another session survived the password change")
	}
	if !e.signedIn(t, here) {
		t.Fatal("the session that changed the password was signed out")
	}
	// Two more sessions: end one by its button, then the rest.
	b1, b2 := e.browser(t), e.browser(t)
	for _, b := range []*http.Client{b1, b2} {
		res, _ := e.send(t, b, "POST", "/login", url.Values{"email": {e.alice.Email}, "password": {"a new password"}})
		wantRedirect(t, res, "/")
	}
	rows, _ := e.st.UserSessions(e.alice.ID)
	res, _ = e.send(t, here, "POST", "/settings/profile/sessions/"+rows[len(rows)-1].ID+"/end", url.Values{})
	wantRedirect(t, res, "/settings/profile?done=ended")
	if e.signedIn(t, b2) || !e.signedIn(t, b1) {
		t.Fatal("Sign out ended the wrong session")
	}
	res, _ = e.send(t, here, "POST", "/settings/profile/sessions/end-others", url.Values{})
	wantRedirect(t, res, "/settings/profile?done=ended-others")
	if e.signedIn(t, b1) || !e.signedIn(t, here) {
		t.Fatal("Sign out everywhere else did not end exactly the others")
	}
	// Another user's session id is not found.
	bob := e.signIn(t, e.bob)
	mine, _ := e.st.UserSessions(e.alice.ID)
	if res, _ := e.send(t, bob, "POST", "/settings/profile/sessions/"+mine[0].ID+"/end", url.Values{}); res.StatusCode != http.StatusNotFound {
		t.Fatalf("ending another user's session: %d, want 404", res.StatusCode)
	}
}

// TestAdminUsersManagement: a superuser disables a user (their session and API token stop at
// once), cannot demote themselves, and makes a reset link that works once.
func TestAdminUsersManagement(t *testing.T) {
	t.Parallel()
	e := newUIEnv(t)
	root, err := e.st.CreateUser(store.NewUser{Email: "root@example.com", Name: "Root", Password: uiPassword, Superuser: true})
	if err != nil {
		t.Fatal(err)
	}
	_, token, _ := e.st.CreateToken(e.mo.ID, "zap")
	admin := e.signIn(t, root)
	mo := e.signIn(t, e.mo)
	res, _ := e.send(t, admin, "POST", "/admin/users/"+e.mo.ID+"/disable", url.Values{})
	wantRedirect(t, res, "/admin/users?done=disable")
	if e.signedIn(t, mo) {
		t.Fatal("a disabled user's session still works")
	}
	req, _ := http.NewRequest("POST", e.srv.URL+"/v1/integrations/developer/zapier/me-action", strings.NewReader(`{"developerProvider":"zapier"}`))
	req.Header.Set("Authorization", "Bearer "+token)
	req.Header.Set("Content-Type", "application/json")
	if r, err := http.DefaultClient.Do(req); err != nil || r.StatusCode != http.StatusUnauthorized {
		t.Fatalf("a disabled user's token: %v %v, want 401", r.StatusCode, err)
	} else {
		r.Body.Close()
	}
	res, body := e.send(t, e.browser(t), "POST", "/login", url.Values{"email": {e.mo.Email}, "password": {uiPassword}})
	if res.StatusCode != http.StatusForbidden || !strings.Contains(body, "disabled") {
		t.Fatalf("a disabled user signing in: %d", res.StatusCode)
	}
	if res, _ := e.send(t, admin, "POST", "/admin/users/"+root.ID+"/demote", url.Values{}); res.StatusCode != http.StatusForbidden {
		t.Fatalf("demoting oneself: %d, want 403", res.StatusCode)
	}
	res, body = e.send(t, admin, "POST", "/admin/users/"+e.bob.ID+"/reset-link", url.Values{})
	m := resetRe.FindStringSubmatch(body)
	if res.StatusCode != http.StatusOK || m == nil {
		t.Fatalf("reset link: %d", res.StatusCode)
	}
	link, _ := url.Parse(html.UnescapeString(m[1]))
	b := e.browser(t)
	if res, _ := e.send(t, b, "GET", link.Path, nil); res.StatusCode != http.StatusOK {
		t.Fatalf("reset page: %d", res.StatusCode)
	}
	if res, _ := e.send(t, b, "POST", link.Path, url.Values{"password": {"bob's new password"}}); res.StatusCode != http.StatusOK {
		t.Fatalf("reset: %d", res.StatusCode)
	}
	if res, _ := e.send(t, b, "POST", link.Path, url.Values{"password": {"again a password"}}); res.StatusCode != http.StatusNotFound {
		t.Fatalf("a used link: %d, want 404", res.StatusCode)
	}
	res, _ = e.send(t, b, "POST", "/login", url.Values{"email": {e.bob.Email}, "password": {"bob's new password"}})
	wantRedirect(t, res, "/")
	// A member cannot use the page.
	if res, _ := e.send(t, e.signIn(t, e.alice), "POST", "/admin/users/"+e.bob.ID+"/disable", url.Values{}); res.StatusCode != http.StatusForbidden {
		t.Fatalf("a workspace admin who is no superuser disabling a user: %d, want 403", res.StatusCode)
	}
}

// TestForgotPasswordWithoutMail: without e-mail the page says to ask an administrator.
func TestForgotPasswordWithoutMail(t *testing.T) {
	t.Parallel()
	e := newUIEnv(t)
	_, body := e.send(t, e.browser(t), "GET", "/login", nil)
	if !strings.Contains(body, `href="/forgot"`) {
		t.Fatal("expected a Forgot password? link on the sign-in page")
	}
	res, body := e.send(t, e.browser(t), "GET", "/forgot", nil)
	if res.StatusCode != http.StatusOK || !strings.Contains(body, `data-testid="forgot-ask-admin"`) {
		t.Fatalf("forgot: %d", res.StatusCode)
	}
}
