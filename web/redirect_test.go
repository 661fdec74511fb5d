package web

import (
	"net/http"
	"net/url"
	"strings"
	"testing"
)

// TestRedirectsStayOnThisServer: a `next` or `back` of any foreign form — /\host, /./\host,
// //host, an absolute URL, an encoded backslash — never sends the browser to another site,
// whether signed in already, signing in, or switching workspace.
func TestRedirectsStayOnThisServer(t *testing.T) {
	t.Parallel()
	e := newUIEnv(t)
	if _, err := e.st.AddMember(e.b.ID, e.alice.ID, "member"); err != nil {
		t.Fatal(err)
	}
	local := func(t *testing.T, what string, res *http.Response) {
		t.Helper()
		loc := res.Header.Get("Location")
		if res.StatusCode == http.StatusOK && loc == "" {
			return // the page itself, no redirect
		}
		u, err := url.Parse(loc)
		if res.StatusCode != http.StatusSeeOther || err != nil || u.Host != "" || u.Scheme != "" ||
			!strings.HasPrefix(loc, "/") || strings.HasPrefix(loc, "//") || strings.Contains(loc, "\\") {
			t.Errorf("%s: %d to %q, want a page or a 303 to a path of this server", what, res.StatusCode, loc)
		}
	}
	signedIn := e.signIn(t, e.alice)
	for _, next := range []string{"/\\evil.example", "/./\\evil.example", "//evil.example", "https://evil.example/",
		"/%5Cevil.example", "/../\\evil.example", "/\t/evil.example"} {
		res, _ := e.send(t, signedIn, "GET", "/login?next="+url.QueryEscape(next), nil)
		local(t, "a signed-in GET /login?next="+next, res)
		res, _ = e.send(t, e.browser(t), "POST", "/login", url.Values{"email": {e.alice.Email}, "password": {uiPassword}, "next": {next}})
		local(t, "signing in with next="+next, res)
		res, _ = e.send(t, signedIn, "POST", "/workspace", url.Values{"workspace": {e.b.ID}, "back": {next}})
		local(t, "switching workspace with back="+next, res)
	}
}
