package views

import (
	"context"
	"errors"
	"io"
	"strings"
	"testing"

	"github.com/a-h/templ"
)

func render(t *testing.T, c templ.Component) string {
	t.Helper()
	var b strings.Builder
	if err := c.Render(context.Background(), &b); err != nil {
		t.Fatal(err)
	}
	return b.String()
}

func expect(t *testing.T, html string, wants ...string) {
	t.Helper()
	for _, w := range wants {
		if !strings.Contains(html, w) {
			t.Errorf("expected %s in\n%s", w, html)
		}
	}
}

func TestLayoutWrapsThePage(t *testing.T) {
	html := render(t, Layout("Sign in", Message("Hello", "text", false)))
	expect(t, html, "<!doctype html>", `<link rel="stylesheet" href="/static/app.css">`, "<title>Sign in · Switchboard</title>",
		`data-testid="notice">text<`)
}

func TestLogin(t *testing.T) {
	html := render(t, Login(LoginForm{Email: "a@example.com", Next: "/oauth/authorize?a=1&b=2", Error: "Email or password is wrong."}))
	expect(t, html, `data-testid="login-error"`, `value="a@example.com"`, `name="next" value="/oauth/authorize?a=1&amp;b=2"`)
	if strings.Contains(render(t, Login(LoginForm{})), `data-testid="login-error"`) {
		t.Error("expected no error element without an error")
	}
}

func TestConsent(t *testing.T) {
	html := render(t, Consent(ConsentView{ClientName: "<Zap>", UserName: "Ana", UserEmail: "ana@example.com",
		Workspaces: []string{"Acme", "Beta"}, Params: []Param{{"state", `"x"`}}}))
	expect(t, html, `data-testid="consent-client">&lt;Zap&gt;<`, `data-testid="consent-workspace">Acme<`,
		`data-testid="consent-workspace">Beta<`, `name="state" value="&#34;x&#34;"`, `value="allow"`, `value="deny"`)
	expect(t, render(t, Consent(ConsentView{ClientName: "Z"})), `data-testid="consent-no-workspaces"`)
}

func TestSetupShowsFieldErrors(t *testing.T) {
	html := render(t, Setup(SetupForm{Token: "tok", Email: "x", Errors: map[string]string{"email": "must be an email address"}}))
	expect(t, html, `name="token" value="tok"`, `data-testid="field-error">must be an email address<`)
}

// A failing page must not reach the client as half a page: the layout propagates the error,
// and templ.Handler (buffered) turns it into a 500.
func TestLayoutPropagatesRenderErrors(t *testing.T) {
	boom := templ.ComponentFunc(func(context.Context, io.Writer) error { return errors.New("boom") })
	if err := Layout("x", boom).Render(context.Background(), io.Discard); err == nil {
		t.Fatal("expected the page's render error from the layout")
	}
}
