package web

import (
	"net/http"
	"net/url"
	"regexp"
	"strings"
	"testing"
	"time"

	"switchboard/internal/testutil"
	"switchboard/store"
)

var emailChangeRe = regexp.MustCompile(`/email-change/(sbe_[A-Za-z0-9_\-]+)`)

// outbox is the e-mail queued for each address (their bodies as the worker would send them).
func outbox(t *testing.T, st *store.Store) map[string][]string {
	t.Helper()
	due, _, err := st.DueMail(st.Now().Add(time.Hour), 100)
	if err != nil {
		t.Fatal(err)
	}
	out := map[string][]string{}
	for _, m := range due {
		out[m.To] = append(out[m.To], m.Body)
		if err := st.MailSent(m); err != nil {
			t.Fatal(err)
		}
	}
	return out
}

// TestEmailChangeNeedsPasswordAndConfirmation: a stolen session cannot move the account to
// another address: the change needs the current password, tells the old address, and happens
// only when the link sent to the new address is opened (by a POST: opening the link shows a
// button). An address of another account gets the same answer and no link.
func TestEmailChangeNeedsPasswordAndConfirmation(t *testing.T) {
	t.Parallel()
	clk := testutil.NewClock(time.Now())
	e := newUIEnvAt(t, clk.Now)
	withMail(t, e, clk.Now)
	c := e.signIn(t, e.alice)
	res, body := e.send(t, c, "GET", "/settings/profile", nil)
	wantPage(t, "the profile", res, body, http.StatusOK, `<label for="email-new"`, `<label for="email-password"`, "Change e-mail")

	res, body = e.send(t, c, "POST", "/settings/profile/email", url.Values{"email": {"alice.new@example.com"}, "current_password": {"wrong password"}})
	wantPage(t, "a wrong password", res, body, http.StatusUnprocessableEntity, `data-testid="error-current_password"`)
	if mail := outbox(t, e.st); len(mail) != 0 {
		t.Fatalf("a refused change queued e-mail: %v", mail)
	}

	// Another account's address: the same answer and page, a notice to the old address, no link.
	res, _ = e.send(t, c, "POST", "/settings/profile/email", url.Values{"email": {e.bob.Email}, "current_password": {uiPassword}})
	_, takenPage := e.send(t, c, "GET", wantRedirect(t, res, "/settings/profile?done=email-sent"), nil)
	if !strings.Contains(takenPage, "We sent a link to "+e.bob.Email) {
		t.Fatal("asking for another account's address: want the same notice as for a free one")
	}
	mail := outbox(t, e.st)
	if len(mail[e.bob.Email]) != 0 || len(mail[e.alice.Email]) != 1 {
		t.Fatalf("asking for another account's address: %v, want only the notice to the old address", mail)
	}

	res, _ = e.send(t, c, "POST", "/settings/profile/email", url.Values{"email": {"alice.new@example.com"}, "current_password": {uiPassword}})
	loc := wantRedirect(t, res, "/settings/profile?done=email-sent")
	_, body = e.send(t, c, "GET", loc, nil)
	if !strings.Contains(body, `role="status"`) || !strings.Contains(body, "alice.new@example.com") {
		t.Fatal("after asking: want a status naming the new address")
	}
	if u, _ := e.st.User(e.alice.ID); u.Email != e.alice.Email {
		t.Fatalf("e-mail %s before the confirmation, want the old one kept", u.Email)
	}
	mail = outbox(t, e.st)
	if len(mail[e.alice.Email]) != 1 || !strings.Contains(mail[e.alice.Email][0], "alice.new@example.com") || emailChangeRe.MatchString(mail[e.alice.Email][0]) {
		t.Fatalf("the old address's e-mail: %q, want a notice naming the new address, without the link", mail[e.alice.Email])
	}
	if len(mail["alice.new@example.com"]) != 1 {
		t.Fatalf("e-mail to the new address: %d, want the confirmation", len(mail["alice.new@example.com"]))
	}
	m := emailChangeRe.FindStringSubmatch(mail["alice.new@example.com"][0])
	if m == nil {
		t.Fatalf("the confirmation has no link: %q", mail["alice.new@example.com"][0])
	}

	b := e.browser(t)
	res, body = e.send(t, b, "GET", "/email-change/"+m[1], nil)
	wantPage(t, "the confirmation page", res, body, http.StatusOK, "alice.new@example.com", `<form method="post"`)
	if u, _ := e.st.User(e.alice.ID); u.Email != e.alice.Email {
		t.Fatal("opening the link (a GET) changed the e-mail")
	}
	res, body = e.send(t, b, "POST", "/email-change/"+m[1], url.Values{})
	wantPage(t, "the confirmation", res, body, http.StatusOK, `role="status"`, "alice.new@example.com")
	if u, _ := e.st.User(e.alice.ID); u.Email != "alice.new@example.com" {
		t.Fatalf("e-mail %s after the confirmation", u.Email)
	}
	if res, _ := e.send(t, b, "POST", "/email-change/"+m[1], url.Values{}); res.StatusCode != http.StatusNotFound {
		t.Fatalf("the link a second time: %d, want 404", res.StatusCode)
	}
	res, _ = e.send(t, e.browser(t), "POST", "/login", url.Values{"email": {"alice.new@example.com"}, "password": {uiPassword}})
	wantRedirect(t, res, "/")
}

// TestEmailChangeWithoutMail: with no e-mail configured there is no address to confirm by, so
// the current password alone changes it, at once; another account's address is refused.
func TestEmailChangeWithoutMail(t *testing.T) {
	t.Parallel()
	e := newUIEnv(t)
	c := e.signIn(t, e.alice)
	res, _ := e.send(t, c, "POST", "/settings/profile/email", url.Values{"email": {"alice.new@example.com"}})
	if res.StatusCode != http.StatusUnprocessableEntity {
		t.Fatalf("no password: %d, want 422", res.StatusCode)
	}
	res, body := e.send(t, c, "POST", "/settings/profile/email", url.Values{"email": {e.bob.Email}, "current_password": {uiPassword}})
	wantPage(t, "another account's address", res, body, http.StatusUnprocessableEntity, `data-testid="error-email"`)
	res, _ = e.send(t, c, "POST", "/settings/profile/email", url.Values{"email": {"alice.new@example.com"}, "current_password": {uiPassword}})
	wantRedirect(t, res, "/settings/profile?done=email")
	if u, _ := e.st.User(e.alice.ID); u.Email != "alice.new@example.com" {
		t.Fatalf("e-mail %s, want changed", u.Email)
	}
	// The name form changes the name only.
	res, _ = e.send(t, c, "POST", "/settings/profile", url.Values{"name": {"Alice L."}, "email": {"sneaky@example.com"}})
	wantRedirect(t, res, "/settings/profile?done=saved")
	if u, _ := e.st.User(e.alice.ID); u.Name != "Alice L." || u.Email != "alice.new@example.com" {
		t.Fatalf("after the name form: %q %q, want the name changed and the e-mail kept", u.Name, u.Email)
	}
}

// TestNamesCannotAddLinesToEmail: a user or workspace name holding line breaks reaches an
// invitation e-mail on one line, so it cannot write a paragraph of its own into it.
func TestNamesCannotAddLinesToEmail(t *testing.T) {
	t.Parallel()
	clk := testutil.NewClock(time.Now())
	e := newUIEnvAt(t, clk.Now)
	withMail(t, e, clk.Now)
	name := "Acme\r\n\r\nURGENT: reply with your password"
	if _, err := e.st.UpdateWorkspace(e.a.ID, store.WorkspaceSettings{Name: &name}); err != nil {
		t.Fatal(err)
	}
	c := e.signIn(t, e.alice)
	res, _ := e.send(t, c, "POST", "/settings/members", url.Values{"email": {"new@example.com"}, "role": {"member"}})
	if res.StatusCode != http.StatusOK {
		t.Fatalf("invite: %d", res.StatusCode)
	}
	mail := outbox(t, e.st)["new@example.com"]
	if len(mail) != 1 || strings.Contains(mail[0], "\nURGENT") || !strings.Contains(mail[0], "Acme URGENT: reply with your password") {
		t.Fatalf("invitation: %q, want the workspace name on one line", mail)
	}
}
