package web

import (
	"net/http"
	"net/url"
	"strings"
	"testing"
	"time"

	"switchboard/store"
)

// TestRequireTwoFactorTakesHoldAtOnce: when a superuser requires two-factor on /admin/users,
// users already signed in without it are sent to enrolment on their next page (and so is the
// superuser, who has none either); with -require-2fa, so are the sessions from before the start.
func TestRequireTwoFactorTakesHoldAtOnce(t *testing.T) {
	t.Parallel()
	e := newUIEnv(t)
	root, err := e.st.CreateUser(store.NewUser{Email: "root@example.com", Name: "Root", Password: uiPassword, Superuser: true})
	if err != nil {
		t.Fatal(err)
	}
	admin, mo := e.signIn(t, root), e.signIn(t, e.mo)
	if res, _ := e.send(t, mo, "GET", "/inbox", nil); res.StatusCode != http.StatusOK {
		t.Fatalf("inbox before the requirement: %d", res.StatusCode)
	}
	if res, _ := e.send(t, mo, "POST", "/admin/users/require-2fa", url.Values{"on": {"true"}}); res.StatusCode != http.StatusForbidden {
		t.Fatalf("a member requiring two-factor: %d, want 403", res.StatusCode)
	}
	_, body := e.send(t, admin, "GET", "/admin/users", nil)
	if !strings.Contains(body, "/admin/users/require-2fa") {
		t.Fatal("expected the require-two-factor control on /admin/users")
	}
	res, _ := e.send(t, admin, "POST", "/admin/users/require-2fa", url.Values{"on": {"true"}})
	wantRedirect(t, res, "/admin/users?done=require-2fa")
	if on, _ := e.st.TwoFactorRequired(); !on {
		t.Fatal("the requirement was not saved")
	}
	res, _ = e.send(t, mo, "GET", "/inbox", nil)
	wantRedirect(t, res, "/login/enrol?next=%2Finbox")
	res, _ = e.send(t, admin, "GET", "/admin/users", nil)
	wantRedirect(t, res, "/login/enrol?next=%2Fadmin%2Fusers")

	// Turned off again, new sign-ins are complete; a restart with -require-2fa sends the
	// sessions of users without two-factor to enrolment.
	if err := e.st.SetTwoFactorRequired(false); err != nil {
		t.Fatal(err)
	}
	alice := e.signIn(t, e.alice)
	if res, _ := e.send(t, alice, "GET", "/inbox", nil); res.StatusCode != http.StatusOK {
		t.Fatalf("inbox with the requirement off: %d", res.StatusCode)
	}
	e.restart(t, true)
	res, _ = e.send(t, alice, "GET", "/inbox", nil)
	wantRedirect(t, res, "/login/enrol?next=%2Finbox")

	// Enrolled, she cannot turn two-factor off while it is required.
	if err := e.st.SetTwoFactorRequired(true); err != nil {
		t.Fatal(err)
	}
	res, body = e.send(t, alice, "GET", "/login/enrol", nil)
	m := secretRe.FindStringSubmatch(body)
	if res.StatusCode != http.StatusOK || m == nil {
		t.Fatalf("enrolment page: %d", res.StatusCode)
	}
	if res, _ = e.send(t, alice, "POST", "/login/enrol", url.Values{"code": {totpCode(t, m[1], time.Now())}}); res.StatusCode != http.StatusOK {
		t.Fatalf("enrol: %d", res.StatusCode)
	}
	_, body = e.send(t, alice, "GET", "/settings/profile", nil)
	if !strings.Contains(body, `data-testid="two-factor-required"`) || strings.Contains(body, `data-testid="two-factor-off"`) {
		t.Fatal("expected the profile to say two-factor is required, without the Turn off button")
	}
	res, body = e.send(t, alice, "POST", "/settings/profile/2fa/off", url.Values{"current_password": {uiPassword}})
	if res.StatusCode != http.StatusUnprocessableEntity || !strings.Contains(body, "cannot be turned off") {
		t.Fatalf("turning two-factor off while required: %d, want 422 with the reason", res.StatusCode)
	}
	if u, _ := e.st.User(e.alice.ID); !u.TwoFactor {
		t.Fatal("two-factor was turned off while required")
	}
}

// restart is e's server started again with or without -require-2fa: the flag's start sends
// the sessions of users without two-factor to enrolment, as NewSessions does.
func (e *uiEnv) restart(t *testing.T, requireTwoFactor bool) {
	t.Helper()
	e.sess.cfg.RequireTwoFactor = requireTwoFactor
	if requireTwoFactor {
		if err := e.st.RequireEnrolment(); err != nil {
			t.Fatal(err)
		}
	}
}

// Issue 38, item 9: a session sent to enrolment while two-factor was required is free again
// once it no longer is, whether the setting was turned off or the server restarted without
// -require-2fa; the enrolment page then sends it on.
func TestLiftedTwoFactorRequirementFreesSessions(t *testing.T) {
	e := newUIEnv(t)
	mo := e.signIn(t, e.mo)
	if err := e.st.SetTwoFactorRequired(true); err != nil {
		t.Fatal(err)
	}
	res, _ := e.send(t, mo, "GET", "/inbox", nil)
	wantRedirect(t, res, "/login/enrol?next=%2Finbox")
	if err := e.st.SetTwoFactorRequired(false); err != nil {
		t.Fatal(err)
	}
	if res, _ := e.send(t, mo, "GET", "/inbox", nil); res.StatusCode != http.StatusOK {
		t.Fatalf("inbox once the setting is off: %d, want 200 (not enrolment)", res.StatusCode)
	}
	res, _ = e.send(t, mo, "GET", "/login/enrol?next=%2Fcontacts", nil)
	wantRedirect(t, res, "/contacts")

	// The flag: a restart with it sends mo to enrolment, one without it frees him.
	e.restart(t, true)
	res, _ = e.send(t, mo, "GET", "/inbox", nil)
	wantRedirect(t, res, "/login/enrol?next=%2Finbox")
	e.restart(t, false)
	if res, _ := e.send(t, mo, "GET", "/inbox", nil); res.StatusCode != http.StatusOK {
		t.Fatalf("inbox after a restart without the flag: %d, want 200", res.StatusCode)
	}
}
