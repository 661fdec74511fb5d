package web

import (
	"context"
	"errors"
	"fmt"
	"html"
	"io"
	"net/http"
	"net/http/cookiejar"
	"net/http/httptest"
	"net/url"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/a-h/templ"

	"switchboard/carrier"
	"switchboard/oauth"
	"switchboard/store"
)

const uiPassword = "correct horse battery"

// uiEnv is a server with the admin UI over web's browser session, which the OAuth provider
// shares: workspace A (admin alice, member mo, a sandbox number) and workspace B (member bob,
// its own number).
type uiEnv struct {
	srv             *httptest.Server
	sess            *Sessions
	st              *store.Store
	a, b            store.Workspace
	alice, mo, bob  store.User
	numberA, number string
}

func newUIEnv(t *testing.T) *uiEnv { return newUIEnvAt(t, nil) }

// newUIEnvAt is newUIEnv with the session's clock (nil: the store's).
func newUIEnvAt(t *testing.T, now func() time.Time) *uiEnv { return newUIEnvWith(t, now, nil) }

// newUIEnvWith is newUIEnvAt with the server's configuration changed by edit (when not nil).
func newUIEnvWith(t *testing.T, now func() time.Time, edit func(*Config)) *uiEnv {
	t.Helper()
	st, err := store.Open(filepath.Join(t.TempDir(), "ui.db"), store.Options{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { st.Close() })
	e := &uiEnv{st: st, numberA: "+14155550100", number: "+14155550199"}
	must := func(err error) {
		t.Helper()
		if err != nil {
			t.Fatalf("set up: %v", err)
		}
	}
	e.a, err = st.CreateWorkspace("Acme")
	must(err)
	e.b, err = st.CreateWorkspace("Beta")
	must(err)
	for _, u := range []struct {
		p     *store.User
		email string
		ws    string
		role  string
	}{{&e.alice, "alice@example.com", e.a.ID, "admin"}, {&e.mo, "mo@example.com", e.a.ID, "member"}, {&e.bob, "bob@example.com", e.b.ID, "member"}} {
		*u.p, err = st.CreateUser(store.NewUser{Email: u.email, Name: strings.Split(u.email, "@")[0], Password: uiPassword})
		must(err)
		_, err = st.AddMember(u.ws, u.p.ID, u.role)
		must(err)
	}
	_, err = st.AddNumber(e.a.ID, e.numberA, "Front desk")
	must(err)
	_, err = st.AddNumber(e.b.ID, e.number, "")
	must(err)
	e.sess, err = NewSessions(st, SessionConfig{BaseURL: "http://sb.test", Now: now})
	must(err)
	prov, err := oauth.New(st, oauth.Config{Now: now, Session: e.sess})
	must(err)
	cfg := Config{Sessions: e.sess, OAuth: prov, Receiver: carrier.NewReceiver(st, nil)}
	if edit != nil {
		edit(&cfg)
	}
	e.srv = httptest.NewServer(New(st, cfg))
	t.Cleanup(e.srv.Close)
	return e
}

// browser is a cookie-keeping client that does not follow redirects, so tests see each 303.
func (e *uiEnv) browser(t *testing.T) *http.Client {
	jar, _ := cookiejar.New(nil)
	return &http.Client{Jar: jar, CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
}

func (e *uiEnv) signIn(t *testing.T, u store.User) *http.Client {
	t.Helper()
	c := e.browser(t)
	res, _ := e.send(t, c, "POST", "/login", url.Values{"email": {u.Email}, "password": {uiPassword}})
	if res.StatusCode != http.StatusSeeOther || res.Header.Get("Location") != "/" {
		t.Fatalf("sign in as %s: %d to %q, want 303 to /", u.Email, res.StatusCode, res.Header.Get("Location"))
	}
	return c
}

func (e *uiEnv) send(t *testing.T, c *http.Client, method, path string, form url.Values, header ...string) (*http.Response, string) {
	t.Helper()
	var body io.Reader
	if form != nil {
		body = strings.NewReader(form.Encode())
	}
	req, err := http.NewRequest(method, e.srv.URL+path, body)
	if err != nil {
		t.Fatal(err)
	}
	if form != nil {
		req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	}
	for i := 0; i+1 < len(header); i += 2 {
		req.Header.Set(header[i], header[i+1])
	}
	res, err := c.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer res.Body.Close()
	b, _ := io.ReadAll(res.Body)
	return res, string(b)
}

func wantRedirect(t *testing.T, res *http.Response, prefix string) string {
	t.Helper()
	loc := res.Header.Get("Location")
	if res.StatusCode != http.StatusSeeOther || !strings.HasPrefix(loc, prefix) {
		t.Fatalf("got %d to %q, want 303 to %s…", res.StatusCode, loc, prefix)
	}
	return loc
}

func TestUISignedOutGoesToSignIn(t *testing.T) {
	e := newUIEnv(t)
	c := e.browser(t)
	res, _ := e.send(t, c, "GET", "/", nil)
	wantRedirect(t, res, "/login")
	res, _ = e.send(t, c, "GET", "/inbox?status=open", nil)
	if loc := wantRedirect(t, res, "/login"); loc != "/login?next="+url.QueryEscape("/inbox?status=open") {
		t.Errorf("signed-out /inbox went to %q, want back to the page after sign-in", loc)
	}
	res, _ = e.send(t, c, "POST", "/inbox", url.Values{"from": {e.numberA}, "to": {"+14155550123"}})
	wantRedirect(t, res, "/login")
	// An htmx poll of a fragment is told to move the whole page, not given a page to swap in.
	res, body := e.send(t, c, "GET", "/inbox/x/items", nil, "HX-Request", "true", "HX-Current-URL", e.srv.URL+"/inbox/x")
	if res.StatusCode != http.StatusUnauthorized || res.Header.Get("HX-Redirect") != "/login?next=%2Finbox%2Fx" || body != "" {
		t.Errorf("signed-out htmx poll: %d HX-Redirect %q, want 401 with HX-Redirect to sign in and back to the page", res.StatusCode, res.Header.Get("HX-Redirect"))
	}
	res, body = e.send(t, c, "GET", "/login", nil)
	if res.StatusCode != http.StatusOK || !strings.Contains(body, `action="/login"`) || !strings.Contains(body, `<label for="email">`) {
		t.Fatalf("GET /login: %d, want the sign-in form posting to /login", res.StatusCode)
	}
	// Signed in, / is the inbox; signed out again, it is the sign-in page.
	c = e.signIn(t, e.alice)
	res, _ = e.send(t, c, "GET", "/", nil)
	wantRedirect(t, res, "/inbox")
	res, body = e.send(t, c, "GET", "/inbox", nil)
	if res.StatusCode != http.StatusOK || !strings.Contains(body, "<h1>Inbox</h1>") {
		t.Fatalf("GET /inbox signed in: %d, want the inbox", res.StatusCode)
	}
	res, _ = e.send(t, c, "POST", "/logout", url.Values{})
	wantRedirect(t, res, "/login")
	res, _ = e.send(t, c, "GET", "/inbox", nil)
	wantRedirect(t, res, "/login")
}

// TestUIForeignConversationIsNotFound: a member of A asking for B's conversation, by page or
// by form, gets the 404 page and nothing of B.
func TestUIForeignConversationIsNotFound(t *testing.T) {
	e := newUIEnv(t)
	conv, _, err := e.st.CreateConversation(e.b.ID, e.number, "+14155550177")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := e.st.SendMessage(e.b.ID, store.SendInput{From: e.number, To: []string{"+14155550177"}, Text: "beta secret"}); err != nil {
		t.Fatal(err)
	}
	c := e.signIn(t, e.alice)
	for _, p := range []string{"/inbox/" + conv.ID, "/inbox/" + conv.ID + "/items", "/inbox/not-an-id"} {
		res, body := e.send(t, c, "GET", p, nil)
		if res.StatusCode != http.StatusNotFound || strings.Contains(body, "beta secret") || strings.Contains(body, "+14155550177") {
			t.Errorf("GET %s as a member of another workspace: %d (leaks: %v), want the 404 page", p, res.StatusCode, strings.Contains(body, "beta secret"))
		}
		if !strings.Contains(body, `data-testid="error-page"`) {
			t.Errorf("GET %s: want the 404 page of the UI", p)
		}
	}
	res, _ := e.send(t, c, "POST", "/inbox/"+conv.ID+"/reply", url.Values{"text": {"hijack"}})
	if res.StatusCode != http.StatusNotFound {
		t.Errorf("reply to another workspace's conversation: %d, want 404", res.StatusCode)
	}
	res, _ = e.send(t, c, "POST", "/workspace", url.Values{"workspace": {e.b.ID}})
	if res.StatusCode != http.StatusNotFound {
		t.Errorf("switching to a workspace one is not a member of: %d, want 404", res.StatusCode)
	}
	if msgs, _ := e.st.ConversationMessages(e.b.ID, conv.ID); len(msgs) != 1 {
		t.Errorf("B's conversation has %d messages, want the 1 it had", len(msgs))
	}
}

func TestUICrossOriginFormRefused(t *testing.T) {
	e := newUIEnv(t)
	c := e.signIn(t, e.alice)
	form := url.Values{"from": {e.numberA}, "to": {"+14155550123"}}
	res, _ := e.send(t, c, "POST", "/inbox", form, "Sec-Fetch-Site", "cross-site", "Origin", "https://evil.example")
	if res.StatusCode != http.StatusForbidden {
		t.Fatalf("cross-site POST /inbox: %d, want 403", res.StatusCode)
	}
	if items, _ := e.st.Inbox(e.a.ID, store.InboxFilter{}); len(items) != 0 {
		t.Fatalf("a refused cross-site post created %d conversations", len(items))
	}
	res, _ = e.send(t, c, "POST", "/inbox", form, "Sec-Fetch-Site", "same-origin")
	wantRedirect(t, res, "/inbox/")
}

func TestUIRoles(t *testing.T) {
	e := newUIEnv(t)
	mo := e.signIn(t, e.mo)
	res, body := e.send(t, mo, "POST", "/settings/numbers", url.Values{"phone": {"+14155550111"}})
	if res.StatusCode != http.StatusForbidden || !strings.Contains(body, `role="alert"`) {
		t.Fatalf("a member adding a number: %d, want the 403 page", res.StatusCode)
	}
	res, _ = e.send(t, mo, "POST", "/workspaces", url.Values{"name": {"Mine"}})
	if res.StatusCode != http.StatusForbidden {
		t.Fatalf("a member creating a workspace: %d, want 403", res.StatusCode)
	}
	alice := e.signIn(t, e.alice)
	res, _ = e.send(t, alice, "POST", "/settings/numbers", url.Values{"phone": {"+14155550111"}, "name": {"Second"}})
	wantRedirect(t, res, "/inbox")
	// Another workspace's number is refused on the form, with the error beside it.
	res, body = e.send(t, alice, "POST", "/settings/numbers", url.Values{"phone": {e.number}})
	if res.StatusCode != http.StatusUnprocessableEntity || !strings.Contains(body, "belongs to another workspace") {
		t.Fatalf("adding another workspace's number: %d, want 422 with the reason", res.StatusCode)
	}
	// Removing a membership takes effect on the next request.
	if err := e.st.RemoveMember(e.a.ID, e.mo.ID); err != nil {
		t.Fatal(err)
	}
	res, body = e.send(t, mo, "GET", "/inbox", nil)
	if res.StatusCode != http.StatusOK || !strings.Contains(body, `data-testid="no-workspace"`) {
		t.Fatalf("a removed member's inbox: %d, want the no-workspace page", res.StatusCode)
	}
}

// TestUIThreadFlow: new conversation, reply, comment with a mention, triage, block, simulate.
func TestUIThreadFlow(t *testing.T) {
	e := newUIEnv(t)
	c := e.signIn(t, e.alice)
	res, _ := e.send(t, c, "POST", "/inbox", url.Values{"from": {e.numberA}, "to": {"+14155550123"}})
	thread := wantRedirect(t, res, "/inbox/")
	res, body := e.send(t, c, "POST", "/inbox", url.Values{"from": {e.numberA}, "to": {"555"}})
	if res.StatusCode != http.StatusUnprocessableEntity || !strings.Contains(body, `data-testid="error-to"`) || !strings.Contains(body, `value="555"`) {
		t.Fatalf("a bad number: %d, want 422 with the error beside the field and the input kept", res.StatusCode)
	}
	// Reply: too long and empty are refused with what was typed kept.
	res, body = e.send(t, c, "POST", thread+"/reply", url.Values{"text": {""}})
	if res.StatusCode != http.StatusUnprocessableEntity || !strings.Contains(body, `role="alert"`) {
		t.Fatalf("an empty reply: %d, want 422 with an alert", res.StatusCode)
	}
	res, body = e.send(t, c, "POST", thread+"/reply", url.Values{"text": {"ok"}, "media": {"ftp://x"}})
	if res.StatusCode != http.StatusUnprocessableEntity || !strings.Contains(body, `data-testid="error-media"`) {
		t.Fatalf("a bad media URL: %d, want 422 with the error on the field", res.StatusCode)
	}
	long := strings.Repeat("€", 81) // 162 septets: 2 GSM-7 segments
	res, _ = e.send(t, c, "POST", thread+"/reply", url.Values{"text": {long}})
	wantRedirect(t, res, thread+"?done=reply")
	res, _ = e.send(t, c, "POST", thread+"/comment", url.Values{"text": {"VIP, call back"}, "mentions": {e.mo.ID}})
	wantRedirect(t, res, thread+"?done=comment")
	res, _ = e.send(t, c, "POST", thread+"/comment", url.Values{"text": {"x"}, "mentions": {e.bob.ID}})
	if res.StatusCode != http.StatusUnprocessableEntity {
		t.Fatalf("mentioning a non-member: %d, want 422", res.StatusCode)
	}
	for _, step := range []struct{ path, field, value string }{
		{"/assign", "assignees", e.mo.ID}, {"/labels", "labels", "vip, billing"}, {"/status", "status", "snoozed"}, {"/block", "blocked", "true"},
	} {
		res, _ = e.send(t, c, "POST", thread+step.path, url.Values{step.field: {step.value}})
		wantRedirect(t, res, thread+"?done=")
	}
	res, _ = e.send(t, c, "POST", thread+"/status", url.Values{"status": {"gone"}})
	if res.StatusCode != http.StatusUnprocessableEntity {
		t.Fatalf("an unknown status: %d, want 422", res.StatusCode)
	}
	res, body = e.send(t, c, "GET", thread, nil)
	for _, want := range []string{"2 segments", "VIP, call back", "@mo", `data-testid="thread-blocked"`, ">Unblock (415) 555-0123<", "billing", `value="` + e.mo.ID + `" checked`} {
		if !strings.Contains(body, want) {
			t.Errorf("thread page lacks %q", want)
		}
	}
	if res.StatusCode != http.StatusOK {
		t.Fatalf("thread: %d", res.StatusCode)
	}
	// Filters find it by label, assignee and status; search by digits.
	mo := e.signIn(t, e.mo)
	for _, q := range []string{"?label=vip", "?assigned=me", "?status=snoozed", "?q=550123"} {
		if _, body := e.send(t, mo, "GET", "/inbox"+q, nil); strings.Count(body, `data-testid="inbox-row"`) != 1 {
			t.Errorf("/inbox%s shows %d rows, want 1", q, strings.Count(body, `data-testid="inbox-row"`))
		}
	}
	if _, body := e.send(t, mo, "GET", "/inbox?status=closed", nil); strings.Contains(body, `data-testid="inbox-row"`) {
		t.Error("/inbox?status=closed shows the snoozed conversation")
	}
	// Unblock, then simulate an inbound STOP: stored, the contact opted out, a reply queued.
	res, _ = e.send(t, c, "POST", thread+"/block", url.Values{"blocked": {"false"}})
	wantRedirect(t, res, thread+"?done=unblock")
	res, _ = e.send(t, c, "POST", thread+"/simulate", url.Values{"text": {"STOP"}})
	wantRedirect(t, res, thread+"?done=simulate")
	if out, _ := e.st.IsOptedOut(e.a.ID, "+14155550123"); !out {
		t.Error("a simulated STOP did not opt the contact out: the keyword went around the carrier receiver")
	}
	res, body = e.send(t, c, "POST", thread+"/reply", url.Values{"text": {"are you there?"}})
	if res.StatusCode != http.StatusUnprocessableEntity || !strings.Contains(body, "has opted out") || !strings.Contains(body, `data-testid="thread-opted-out"`) {
		t.Errorf("a reply to an opted-out contact: %d, want 422 saying so", res.StatusCode)
	}
	_, frag := e.send(t, c, "GET", thread+"/items", nil)
	if !strings.HasPrefix(strings.TrimSpace(frag), `<li class="item`) || !strings.Contains(frag, ">STOP<") || strings.Contains(frag, "<html") {
		t.Errorf("the items fragment: want the thread's items alone with the inbound STOP, got %.200s", frag)
	}
}

// TestUIRenderErrorIsNot200: a component that fails half way answers 500 with no half page.
func TestUIRenderErrorIsNot200(t *testing.T) {
	h := &Handler{now: time.Now}
	rec := httptest.NewRecorder()
	broken := templ.ComponentFunc(func(ctx context.Context, w io.Writer) error {
		io.WriteString(w, "<p>half")
		return errors.New("boom")
	})
	h.render(rec, httptest.NewRequest("GET", "/inbox", nil), &ui{}, http.StatusOK, "Broken", broken)
	if rec.Code != http.StatusInternalServerError || strings.Contains(rec.Body.String(), "half") {
		t.Fatalf("render error: %d %q, want 500 without the half page", rec.Code, rec.Body.String())
	}
}

// TestUIWorkspaceSwitch: a user of two workspaces sees the Workspace control and switches.
func TestUIWorkspaceSwitch(t *testing.T) {
	e := newUIEnv(t)
	if _, err := e.st.AddMember(e.b.ID, e.alice.ID, "member"); err != nil {
		t.Fatal(err)
	}
	conv, _, err := e.st.CreateConversation(e.b.ID, e.number, "+14155550177")
	if err != nil {
		t.Fatal(err)
	}
	c := e.signIn(t, e.alice)
	_, body := e.send(t, c, "GET", "/inbox", nil)
	if !strings.Contains(body, `<label for="workspace-select">Workspace</label>`) || strings.Contains(body, "(415) 555-0177") {
		t.Fatal("want the Workspace control and A's inbox first")
	}
	res, _ := e.send(t, c, "POST", "/workspace", url.Values{"workspace": {e.b.ID}, "back": {"/inbox"}})
	wantRedirect(t, res, "/inbox")
	if _, body = e.send(t, c, "GET", "/inbox", nil); !strings.Contains(body, "(415) 555-0177") {
		t.Fatal("after switching to B, want B's conversation in the inbox")
	}
	// A link to a conversation of the user's other workspace shows it without switching the
	// session's workspace (a GET changes nothing); the page offers the switch as a form.
	e.send(t, c, "POST", "/workspace", url.Values{"workspace": {e.a.ID}})
	res, body = e.send(t, c, "GET", "/inbox/"+conv.ID, nil)
	if res.StatusCode != http.StatusOK || !strings.Contains(body, `data-testid="thread-elsewhere"`) {
		t.Fatalf("a conversation of the user's other workspace: %d, want 200 with the switch offered", res.StatusCode)
	}
	if got := e.sess.SessionValue(sessionRequest(t, e, c), sessionWorkspace); got != e.a.ID {
		t.Fatalf("opening the conversation switched the session's workspace to %s", got)
	}
	res, _ = e.send(t, c, "POST", "/workspace", url.Values{"workspace": {e.b.ID}, "back": {"/inbox/" + conv.ID}})
	wantRedirect(t, res, "/inbox/"+conv.ID)
	if _, body = e.send(t, c, "GET", "/inbox/"+conv.ID, nil); strings.Contains(body, `data-testid="thread-elsewhere"`) {
		t.Fatal("after the switch the conversation is still shown as elsewhere")
	}
}

// sessionRequest is a request carrying the browser's cookies, to ask the session about it.
func sessionRequest(t *testing.T, e *uiEnv, c *http.Client) *http.Request {
	r := httptest.NewRequest("GET", "/inbox", nil)
	r.AddCookie(e.sessionCookieOf(t, c))
	return r
}

// TestUISessionLifetime: a session ends after 12 h without a request, and 7 days after sign-in
// however busy it is.
func TestUISessionLifetime(t *testing.T) {
	var mu sync.Mutex
	at := time.Date(2026, 11, 1, 8, 0, 0, 0, time.UTC)
	now := func() time.Time { mu.Lock(); defer mu.Unlock(); return at }
	advance := func(d time.Duration) { mu.Lock(); at = at.Add(d); mu.Unlock() }
	e := newUIEnvAt(t, now)
	inbox := func(c *http.Client) int {
		res, _ := e.send(t, c, "GET", "/inbox", nil)
		return res.StatusCode
	}
	busy := e.signIn(t, e.alice)
	idle := e.signIn(t, e.mo)
	for i := 0; i < 15; i++ { // 15 × 11 h = 6 d 21 h: each request within the idle limit
		advance(11 * time.Hour)
		if got := inbox(busy); got != http.StatusOK {
			t.Fatalf("a session used every 11 h, after %d h: %d, want 200", 11*(i+1), got)
		}
		if i == 1 {
			if got := inbox(idle); got != http.StatusSeeOther {
				t.Fatalf("a session idle for 22 h: %d, want 303 to sign in", got)
			}
		}
	}
	advance(4 * time.Hour) // 7 days and 1 hour after sign-in
	if got := inbox(busy); got != http.StatusSeeOther {
		t.Fatalf("a session 7 days after sign-in: %d, want 303 to sign in", got)
	}
}

// TestUIInboxPages: 50 rows a page, then "Older conversations" continues where it stopped.
func TestUIInboxPages(t *testing.T) {
	e := newUIEnv(t)
	for i := 0; i < inboxPage+1; i++ {
		if _, _, err := e.st.CreateConversation(e.a.ID, e.numberA, fmt.Sprintf("+1415555%04d", 2000+i)); err != nil {
			t.Fatal(err)
		}
	}
	c := e.signIn(t, e.alice)
	_, body := e.send(t, c, "GET", "/inbox", nil)
	if n := strings.Count(body, `data-testid="inbox-row"`); n != inboxPage {
		t.Fatalf("first page: %d rows, want %d", n, inboxPage)
	}
	m := regexp.MustCompile(`href="([^"]+)" data-testid="inbox-more"`).FindStringSubmatch(body)
	if m == nil {
		t.Fatal("want an \"Older conversations\" link")
	}
	_, body = e.send(t, c, "GET", html.UnescapeString(m[1]), nil)
	if n := strings.Count(body, `data-testid="inbox-row"`); n != 1 || !strings.Contains(body, "(415) 555-2000") || strings.Contains(body, "inbox-more") {
		t.Fatalf("second page: %d rows, want the 1 oldest and no further link", n)
	}
	// "Newer conversations" goes back to the first page (issue 38, item 14).
	m = regexp.MustCompile(`href="([^"]+)" data-testid="inbox-newer"`).FindStringSubmatch(body)
	if m == nil || html.UnescapeString(m[1]) != "/inbox" {
		t.Fatalf("second page's link back: %v, want /inbox", m)
	}
}
