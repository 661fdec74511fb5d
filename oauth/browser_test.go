package oauth_test

import (
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/chromedp/chromedp"

	"switchboard/internal/testutil"
	"switchboard/oauth"
)

// TestBrowserAuthorize drives the real sign-in and consent pages in headless Chromium: the
// server is newEnv's (web.New with the provider mounted), and the client is a confidential
// client whose redirect URI is a second loopback httptest server standing in for the
// application. Each case runs in its own browser context, so cookies never carry over.
func TestBrowserAuthorize(t *testing.T) {
	chrome := testutil.Chromium(t)
	e := newEnv(t)
	app := newCallbackServer(t)
	redirectURI := app.srv.URL + "/callback" // http://127.0.0.1:PORT/callback: http is accepted on loopback
	c, secret, err := e.p.CreateClient(oauth.NewClient{Name: "Browser Test App", RedirectURIs: []string{redirectURI}})
	if err != nil {
		t.Fatalf("register the client: %v", err)
	}
	authURL := e.authURL(map[string]string{"response_type": "code", "client_id": c.ID, "redirect_uri": redirectURI, "state": "xyz"})
	browser := testutil.StartChromium(t, chrome, 90*time.Second)

	t.Run("sign in, consent, allow", func(t *testing.T) {
		ctx := newTab(t, browser)
		err := chromedp.Do(ctx,
			chromedp.Navigate(authURL),
			chromedp.WaitVisible(testutil.TestID("login-form")),
			chromedp.SendKeys(testutil.TestID("login-email"), e.user.Email),
			chromedp.SendKeys(testutil.TestID("login-password"), password),
			chromedp.Click(testutil.TestID("login-submit")),
			chromedp.WaitVisible(testutil.TestID("consent")),
		)
		if err != nil {
			t.Fatalf("sign in to the consent page: %v", err)
		}
		client := text(t, ctx, "consent-client")
		clientName := text(t, ctx, "consent-client-name")
		user := text(t, ctx, "consent-user")
		workspaces, err := chromedp.Run(ctx, chromedp.Evaluate[[]string](
			`Array.from(document.querySelectorAll('[data-testid="consent-workspace"]'), li => li.textContent.trim())`))
		if err != nil {
			t.Fatalf("read the consent page's workspaces: %v", err)
		}
		if client != c.Name || clientName != c.Name {
			t.Errorf("expected the consent page to name the client %q, got heading %q and text %q", c.Name, client, clientName)
		}
		if user != e.user.Name {
			t.Errorf("expected the consent page to name the user %q, got %q", e.user.Name, user)
		}
		if len(workspaces) != 1 || workspaces[0] != e.ws.Name {
			t.Errorf("expected the consent page to list the workspace [%s], got %q", e.ws.Name, workspaces)
		}

		if err := chromedp.Do(ctx, chromedp.Click(testutil.TestID("consent-allow")), chromedp.WaitVisible(testutil.TestID("callback"))); err != nil {
			t.Fatalf("allow, to the client's redirect URI: %v", err)
		}
		loc, err := chromedp.Run(ctx, chromedp.Location())
		if err != nil {
			t.Fatal(err)
		}
		back, err := url.Parse(loc)
		if err != nil {
			t.Fatal(err)
		}
		if got := back.Scheme + "://" + back.Host + back.Path; got != redirectURI {
			t.Fatalf("expected the browser at the registered redirect URI %s, got %s", redirectURI, loc)
		}
		q := back.Query()
		if q.Get("code") == "" || q.Get("state") != "xyz" || q.Has("error") {
			t.Fatalf("expected a code and state=xyz in the redirect, got %s", loc)
		}
		if got := app.lastQuery(); got.Get("code") != q.Get("code") {
			t.Fatalf("expected the client's server to receive the code, it got %v", got)
		}
		// The code the browser carried is a real one: the client redeems it.
		st, _, tok := e.tokenCall(t, "/oauth/token", url.Values{"grant_type": {"authorization_code"}, "code": {q.Get("code")},
			"redirect_uri": {redirectURI}}, c.ID, secret)
		if st != http.StatusOK || str(tok, "access_token") == "" {
			t.Fatalf("exchange the browser's code: expected 200 with an access token, got %d %v", st, tok)
		}
	})

	t.Run("wrong password shows an error and does not redirect", func(t *testing.T) {
		ctx := newTab(t, browser)
		before := app.hits()
		err := chromedp.Do(ctx,
			chromedp.Navigate(authURL),
			chromedp.WaitVisible(testutil.TestID("login-form")),
			chromedp.SendKeys(testutil.TestID("login-email"), e.user.Email),
			chromedp.SendKeys(testutil.TestID("login-password"), "not the password"),
			chromedp.Click(testutil.TestID("login-submit")),
			chromedp.WaitVisible(testutil.TestID("login-error")),
		)
		if err != nil {
			t.Fatalf("sign in with a wrong password: %v", err)
		}
		msg := text(t, ctx, "login-error")
		email, err := chromedp.Run(ctx, chromedp.Value(testutil.TestID("login-email")))
		if err != nil {
			t.Fatal(err)
		}
		loc, err := chromedp.Run(ctx, chromedp.Location())
		if err != nil {
			t.Fatal(err)
		}
		if !strings.Contains(msg, "Email or password is wrong") {
			t.Errorf("expected the login error message, got %q", msg)
		}
		if email != e.user.Email {
			t.Errorf("expected the email to be kept in the form, got %q", email)
		}
		if want := e.srv.URL + "/oauth/login"; !strings.HasPrefix(loc, want) {
			t.Errorf("expected to stay on the login page %s, got %s", want, loc)
		}
		consent, err := chromedp.Run(ctx, chromedp.Evaluate[bool](`document.querySelector('[data-testid="consent"]') !== null`))
		if err != nil {
			t.Fatal(err)
		}
		if consent {
			t.Error("expected no consent page after a wrong password")
		}
		if app.hits() != before {
			t.Errorf("expected no request to the client's redirect URI after a wrong password, got %d", app.hits()-before)
		}
	})
}

// newTab opens a tab in a fresh browser context (its own cookies) with a deadline. The
// deadline leaves room for bcrypt under -race, which takes seconds.
func newTab(t *testing.T, browser context.Context) context.Context {
	t.Helper()
	ctx, cancel := chromedp.NewContext(browser, chromedp.WithNewBrowserContext())
	t.Cleanup(cancel)
	ctx, cancelTimeout := context.WithTimeout(ctx, 45*time.Second)
	t.Cleanup(cancelTimeout)
	return ctx
}

// text is the trimmed visible text of the element with data-testid id.
func text(t *testing.T, ctx context.Context, id string) string {
	t.Helper()
	s, err := chromedp.Run(ctx, chromedp.Text(testutil.TestID(id)))
	if err != nil {
		t.Fatalf("read [data-testid=%q]: %v", id, err)
	}
	return strings.TrimSpace(s)
}

// callbackServer stands in for the client application: it serves the redirect URI and
// records what arrives there.
type callbackServer struct {
	srv   *httptest.Server
	mu    sync.Mutex
	n     int
	query url.Values
}

func newCallbackServer(t *testing.T) *callbackServer {
	cb := &callbackServer{}
	mux := http.NewServeMux()
	mux.HandleFunc("GET /callback", func(w http.ResponseWriter, r *http.Request) {
		cb.mu.Lock()
		cb.n++
		cb.query = r.URL.Query()
		cb.mu.Unlock()
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		fmt.Fprint(w, `<!doctype html><title>Callback</title><p data-testid="callback">Connected.</p>`)
	})
	cb.srv = httptest.NewServer(mux)
	t.Cleanup(cb.srv.Close)
	return cb
}

func (cb *callbackServer) hits() int {
	cb.mu.Lock()
	defer cb.mu.Unlock()
	return cb.n
}

func (cb *callbackServer) lastQuery() url.Values {
	cb.mu.Lock()
	defer cb.mu.Unlock()
	return cb.query
}
