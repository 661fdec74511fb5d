package web

import (
	"context"
	"errors"
	"net/http"
	"net/http/httptest"
	"net/url"
	"regexp"
	"strings"
	"testing"

	"switchboard/oauth"
	"switchboard/store"
	"switchboard/views"
)

func (e *uiEnv) superuser(t *testing.T) store.User {
	t.Helper()
	su, err := e.st.CreateUser(store.NewUser{Email: "root@example.com", Name: "Root", Password: uiPassword, Superuser: true})
	if err != nil {
		t.Fatal(err)
	}
	return su
}

func wantStatus(t *testing.T, what string, res *http.Response, body string, status int, contains ...string) {
	t.Helper()
	if res.StatusCode != status {
		t.Fatalf("%s: %d, want %d", what, res.StatusCode, status)
	}
	for _, c := range contains {
		if !strings.Contains(body, c) {
			t.Fatalf("%s: the page lacks %q", what, c)
		}
	}
}

// TestUISettingsRoles: a member gets the 403 page on an admin's settings, a non-superuser on
// every /admin/ page; tokens are for everyone.
func TestUISettingsRoles(t *testing.T) {
	e := newUIEnv(t)
	mo := e.signIn(t, e.mo)
	for _, p := range []string{"/settings/workspace", "/settings/numbers", "/settings/members", "/settings/properties", "/settings/webhooks"} {
		res, body := e.send(t, mo, "GET", p, nil)
		wantStatus(t, "member GET "+p, res, body, http.StatusForbidden, `data-testid="error-page"`, `role="alert"`)
		res, body = e.send(t, mo, "POST", p, url.Values{"name": {"x"}})
		wantStatus(t, "member POST "+p, res, body, http.StatusForbidden)
	}
	res, _ := e.send(t, mo, "GET", "/settings", nil)
	wantRedirect(t, res, "/settings/tokens")
	res, body := e.send(t, mo, "GET", "/settings/tokens", nil)
	wantStatus(t, "member GET /settings/tokens", res, body, http.StatusOK, "<h1>API tokens</h1>")
	alice := e.signIn(t, e.alice)
	for _, p := range []string{"/admin", "/admin/workspaces", "/admin/users", "/admin/oauth-clients", "/admin/backup", "/admin/backup/download"} {
		res, body := e.send(t, alice, "GET", p, nil)
		wantStatus(t, "workspace admin GET "+p, res, body, http.StatusForbidden, `data-testid="error-page"`)
	}
	res, _ = e.send(t, alice, "POST", "/admin/workspaces", url.Values{"name": {"Sneaky"}})
	if res.StatusCode != http.StatusForbidden {
		t.Fatalf("workspace admin creating a workspace on /admin: %d, want 403", res.StatusCode)
	}
	res, _ = e.send(t, alice, "GET", "/settings", nil)
	wantRedirect(t, res, "/settings/workspace")
	// The backup token API still answers a token holder, not the page.
	res, _ = e.send(t, e.browser(t), "GET", "/admin/backup", nil, "Authorization", "Bearer nope")
	if res.StatusCode != http.StatusUnauthorized {
		t.Fatalf("GET /admin/backup with a wrong backup token: %d, want 401", res.StatusCode)
	}
}

func TestUIWorkspaceSettings(t *testing.T) {
	e := newUIEnv(t)
	c := e.signIn(t, e.alice)
	res, body := e.send(t, c, "GET", "/settings/workspace", nil)
	wantStatus(t, "GET /settings/workspace", res, body, http.StatusOK, "<h1>Workspace settings</h1>", `<label for="ws-stop">`, "Acme: you are unsubscribed")
	bad := url.Values{"name": {"Acme Dental"}, "stopReply": {"Bye"}, "startReply": {""}, "helpReply": {"Call us"},
		"voiceGreeting": {"Hi"}, "timeZone": {"Mars/Olympus"}, "quietHours": {"25:00-08:00"}}
	res, body = e.send(t, c, "POST", "/settings/workspace", bad)
	wantStatus(t, "bad settings", res, body, http.StatusUnprocessableEntity, `data-testid="error-timeZone"`, `data-testid="error-quietHours"`,
		`value="Mars/Olympus"`, `value="Acme Dental"`, ">Call us</textarea>")
	for _, days := range []string{"-1", "ten"} {
		b := url.Values{"name": {"Acme Dental"}, "timeZone": {""}, "quietHours": {"off"}, "retentionDays": {days}}
		res, body = e.send(t, c, "POST", "/settings/workspace", b)
		wantStatus(t, "retention "+days, res, body, http.StatusUnprocessableEntity, `data-testid="error-retentionDays"`, `value="`+days+`"`)
	}
	good := url.Values{"name": {"Acme Dental"}, "stopReply": {"Bye"}, "startReply": {""}, "helpReply": {"Call us"},
		"voiceGreeting": {"Hi"}, "timeZone": {"America/New_York"}, "quietHours": {"21:00-08:00"}, "retentionDays": {"90"}}
	res, _ = e.send(t, c, "POST", "/settings/workspace", good)
	wantRedirect(t, res, "/settings/workspace?done=saved")
	ws, _ := e.st.Workspace(e.a.ID)
	if ws.Name != "Acme Dental" || ws.KeywordReply(store.KeywordStop) != "Bye" || ws.KeywordReply(store.KeywordStart) != "" ||
		ws.TimeZone != "America/New_York" || ws.QuietHours != "21:00-08:00" || ws.Greeting() != "Hi" || ws.RetentionDays != 90 {
		t.Fatalf("saved workspace %+v, want the form's values (START empty: no reply)", ws)
	}
}

func TestUINumbersPage(t *testing.T) {
	e := newUIEnv(t)
	c := e.signIn(t, e.alice)
	res, body := e.send(t, c, "GET", "/settings/numbers", nil)
	wantStatus(t, "GET /settings/numbers", res, body, http.StatusOK, "<h1>Numbers</h1>", e.numberA, "sandbox", "unlimited")
	if strings.Contains(body, `value="twilio"`) || strings.Contains(body, `value="telnyx"`) {
		t.Fatal("Twilio or Telnyx offered on a server without their credentials")
	}
	res, body = e.send(t, c, "POST", "/settings/numbers", url.Values{"page": {"settings"}, "phone": {e.number}, "name": {"Mine"}})
	wantStatus(t, "another workspace's phone", res, body, http.StatusUnprocessableEntity, "<h1>Numbers</h1>", "belongs to another workspace", `value="Mine"`)
	res, body = e.send(t, c, "POST", "/settings/numbers", url.Values{"page": {"settings"}, "phone": {"+14155550111"}, "carrier": {"twilio"}})
	wantStatus(t, "twilio without credentials", res, body, http.StatusUnprocessableEntity, `data-testid="error-carrier"`)
	res, body = e.send(t, c, "POST", "/settings/numbers", url.Values{"page": {"settings"}, "phone": {"+14155550111"}, "carrier": {"telnyx"}})
	wantStatus(t, "telnyx without keys", res, body, http.StatusUnprocessableEntity, `data-testid="error-carrier"`, "Telnyx keys")
	res, _ = e.send(t, c, "POST", "/settings/numbers", url.Values{"page": {"settings"}, "phone": {"+14155550111"}, "name": {"Second"}})
	wantRedirect(t, res, "/settings/numbers?done=number")
	ns, _ := e.st.Numbers(e.a.ID)
	var id string
	for _, n := range ns {
		if n.Phone == "+14155550111" {
			id = n.ID
		}
	}
	res, _ = e.send(t, c, "POST", "/settings/numbers/"+id+"/rename", url.Values{"name": {"Back office"}})
	wantRedirect(t, res, "/settings/numbers?done=renamed")
	res, _ = e.send(t, c, "POST", "/settings/numbers/"+id+"/active", url.Values{"active": {"false"}})
	wantRedirect(t, res, "/settings/numbers?done=deactivated")
	if n, _ := e.st.Number(e.a.ID, id); n.Name != "Back office" || n.Active {
		t.Fatalf("number after rename and deactivate: %+v", n)
	}
	// B's number is not found from A.
	bn, _ := e.st.Numbers(e.b.ID)
	res, body = e.send(t, c, "POST", "/settings/numbers/"+bn[0].ID+"/active", url.Values{"active": {"false"}})
	wantStatus(t, "deactivating B's number from A", res, body, http.StatusNotFound, `data-testid="error-page"`)
	if n, _ := e.st.Number(e.b.ID, bn[0].ID); !n.Active {
		t.Fatal("A's admin deactivated B's number")
	}
}

func TestUITokens(t *testing.T) {
	e := newUIEnv(t)
	c := e.signIn(t, e.mo)
	res, body := e.send(t, c, "POST", "/settings/tokens", url.Values{"name": {"Zapier"}})
	wantStatus(t, "create a token", res, body, http.StatusOK, `data-testid="token-created"`, `role="status"`)
	m := regexp.MustCompile(`value="(sbp_[^"]+)"`).FindStringSubmatch(body)
	if m == nil {
		t.Fatal("the new token is not shown")
	}
	if _, err := e.st.Authenticate(m[1]); err != nil {
		t.Fatalf("the shown token does not authenticate: %v", err)
	}
	res, body = e.send(t, c, "GET", "/settings/tokens", nil)
	wantStatus(t, "tokens list", res, body, http.StatusOK, "Zapier")
	if strings.Contains(body, m[1]) {
		t.Fatal("the token is shown again on the list")
	}
	ts, _ := e.st.UserTokens(e.mo.ID)
	// Another user cannot revoke it: 404.
	res, _ = e.send(t, e.signIn(t, e.bob), "POST", "/settings/tokens/"+ts[0].ID+"/revoke", url.Values{})
	if res.StatusCode != http.StatusNotFound {
		t.Fatalf("revoking another user's token: %d, want 404", res.StatusCode)
	}
	res, _ = e.send(t, c, "POST", "/settings/tokens/"+ts[0].ID+"/revoke", url.Values{})
	wantRedirect(t, res, "/settings/tokens?done=revoked")
	if _, err := e.st.Authenticate(m[1]); !errors.Is(err, store.ErrNotFound) {
		t.Fatalf("a revoked token still authenticates: %v", err)
	}
}

func TestUIPropertiesPage(t *testing.T) {
	e := newUIEnv(t)
	c := e.signIn(t, e.alice)
	res, body := e.send(t, c, "POST", "/settings/properties", url.Values{"name": {"9lives"}, "type": {"number"}})
	wantStatus(t, "bad property", res, body, http.StatusUnprocessableEntity, `data-testid="error-name"`, `value="9lives"`)
	res, _ = e.send(t, c, "POST", "/settings/properties", url.Values{"name": {"plan_tier"}, "type": {"text"}})
	wantRedirect(t, res, "/settings/properties?done=added")
	res, body = e.send(t, c, "POST", "/settings/properties", url.Values{"name": {"plan_tier"}, "type": {"text"}})
	wantStatus(t, "duplicate property", res, body, http.StatusUnprocessableEntity, "already exists")
	res, body = e.send(t, c, "GET", "/settings/properties", nil)
	wantStatus(t, "properties", res, body, http.StatusOK, "plan_tier")
}

// TestUIInvitation: a link made on the members page makes an account once; reused, revoked
// and unknown links are refused.
func TestUIInvitation(t *testing.T) {
	e := newUIEnv(t)
	c := e.signIn(t, e.alice)
	res, body := e.send(t, c, "POST", "/settings/members", url.Values{"email": {"not-an-email"}, "role": {"member"}})
	wantStatus(t, "bad email", res, body, http.StatusUnprocessableEntity, `data-testid="error-email"`, `value="not-an-email"`)
	res, body = e.send(t, c, "POST", "/settings/members", url.Values{"email": {"nia@example.com"}, "role": {"member"}})
	wantStatus(t, "invite", res, body, http.StatusOK, `data-testid="invite-link"`, "nia@example.com", "pending")
	m := regexp.MustCompile(`value="https?://[^"]*(/invite/sbi_[^"]+)"`).FindStringSubmatch(body)
	if m == nil {
		t.Fatal("no invitation link on the page")
	}
	link := m[1]
	anon := e.browser(t)
	res, body = e.send(t, anon, "GET", link, nil)
	wantStatus(t, "GET the link", res, body, http.StatusOK, "Join Acme", `<label for="invite-name">`)
	res, body = e.send(t, anon, "POST", link, url.Values{"name": {"Nia"}, "password": {"short"}})
	wantStatus(t, "short password", res, body, http.StatusUnprocessableEntity, `data-testid="error-password"`, `value="Nia"`)
	res, _ = e.send(t, anon, "POST", link, url.Values{"name": {"Nia"}, "password": {uiPassword}})
	wantRedirect(t, res, "/inbox?done=joined") // signed in at once, no second sign-in
	res, body = e.send(t, anon, "GET", "/inbox?done=joined", nil)
	wantStatus(t, "the new member's inbox", res, body, http.StatusOK, "Welcome: your account is ready and you are signed in.", "Acme")
	nia, err := e.st.UserByEmail("nia@example.com")
	if err != nil {
		t.Fatal(err)
	}
	if role, err := e.st.MemberRole(e.a.ID, nia.ID); err != nil || role != "member" {
		t.Fatalf("Nia's role in A: %q, %v", role, err)
	}
	res, body = e.send(t, anon, "POST", link, url.Values{"name": {"Eve"}, "password": {uiPassword}})
	wantStatus(t, "reused link", res, body, http.StatusGone, "used already")
	res, _ = e.send(t, anon, "GET", "/invite/sbi_nothing", nil)
	if res.StatusCode != http.StatusNotFound {
		t.Fatalf("unknown link: %d, want 404", res.StatusCode)
	}
	// Nia sees only A.
	niaC := e.signIn(t, nia)
	res, body = e.send(t, niaC, "GET", "/inbox", nil)
	wantStatus(t, "Nia's inbox", res, body, http.StatusOK, "Acme")
	if strings.Contains(body, "Beta") {
		t.Fatal("Nia sees workspace B")
	}
	// A revoked link is refused; another workspace's invitation is not found.
	inv, plain, err := e.st.CreateInvitation(e.a.ID, "zed@example.com", "admin")
	if err != nil {
		t.Fatal(err)
	}
	other, _, _ := e.st.CreateInvitation(e.b.ID, "bo@example.com", "member")
	res, _ = e.send(t, c, "POST", "/settings/members/invitations/"+other.ID+"/revoke", url.Values{})
	if res.StatusCode != http.StatusNotFound {
		t.Fatalf("revoking B's invitation from A: %d, want 404", res.StatusCode)
	}
	res, _ = e.send(t, c, "POST", "/settings/members/invitations/"+inv.ID+"/revoke", url.Values{})
	wantRedirect(t, res, "/settings/members?done=revoked")
	res, body = e.send(t, anon, "GET", "/invite/"+plain, nil)
	wantStatus(t, "revoked link", res, body, http.StatusGone, "revoked")
	// An existing account accepts while signed in, and lands in the workspace it joined.
	_, plain, err = e.st.CreateInvitation(e.a.ID, e.bob.Email, "member")
	if err != nil {
		t.Fatal(err)
	}
	bob := e.signIn(t, e.bob)
	res, body = e.send(t, bob, "GET", "/invite/"+plain, nil)
	wantStatus(t, "the link, signed in", res, body, http.StatusOK, `data-testid="invite-accept"`, "Join as bob")
	res, _ = e.send(t, bob, "POST", "/invite/"+plain, url.Values{"as": {"current"}})
	wantRedirect(t, res, "/inbox")
	res, body = e.send(t, bob, "GET", "/inbox", nil)
	wantStatus(t, "bob's inbox after joining A", res, body, http.StatusOK, `data-testid="workspace-select"`)
	if !regexp.MustCompile(`<option value="` + e.a.ID + `" selected>`).MatchString(body) {
		t.Fatal("after joining, the current workspace is not the one joined")
	}
	// Roles: Nia becomes an admin; alice cannot change her own; B's member is not found.
	res, _ = e.send(t, c, "POST", "/settings/members/"+nia.ID+"/role", url.Values{"role": {"admin"}})
	wantRedirect(t, res, "/settings/members?done=role")
	if role, _ := e.st.MemberRole(e.a.ID, nia.ID); role != "admin" {
		t.Fatalf("Nia's role after the change: %q", role)
	}
	res, body = e.send(t, c, "POST", "/settings/members/"+e.alice.ID+"/role", url.Values{"role": {"member"}})
	wantStatus(t, "own role", res, body, http.StatusUnprocessableEntity, "your own role")
	// Remove: Nia's membership ends.
	res, _ = e.send(t, c, "POST", "/settings/members/"+nia.ID+"/remove", url.Values{})
	wantRedirect(t, res, "/settings/members?done=removed")
	if _, err := e.st.MemberRole(e.a.ID, nia.ID); !errors.Is(err, store.ErrForbidden) {
		t.Fatalf("Nia is still a member: %v", err)
	}
	outsider, err := e.st.CreateUser(store.NewUser{Email: "out@example.com", Name: "Out"})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := e.st.AddMember(e.b.ID, outsider.ID, "member"); err != nil {
		t.Fatal(err)
	}
	res, _ = e.send(t, c, "POST", "/settings/members/"+outsider.ID+"/remove", url.Values{})
	if res.StatusCode != http.StatusNotFound {
		t.Fatalf("removing a member of B from A: %d, want 404", res.StatusCode)
	}
}

func TestUIWebhooksPage(t *testing.T) {
	e := newUIEnv(t)
	c := e.signIn(t, e.alice)
	res, body := e.send(t, c, "POST", "/settings/webhooks", url.Values{"event": {"message.received"}, "url": {"ftp://x"}})
	wantStatus(t, "bad URL", res, body, http.StatusUnprocessableEntity, `data-testid="error-url"`, `value="ftp://x"`)
	res, body = e.send(t, c, "POST", "/settings/webhooks", url.Values{"event": {"message.received"}, "url": {"https://hooks.example.com/in"}})
	wantStatus(t, "create", res, body, http.StatusOK, `data-testid="webhook-created"`, "whsec_", "hooks.example.com")
	subs, _ := e.st.Subscriptions(e.a.ID)
	if len(subs) != 1 || subs[0].UserID != e.alice.ID {
		t.Fatalf("subscriptions %+v, want alice's one", subs)
	}
	id := subs[0].ID
	res, _ = e.send(t, c, "POST", "/settings/webhooks/"+id+"/disable", url.Values{})
	wantRedirect(t, res, "/settings/webhooks?done=disable")
	res, _ = e.send(t, c, "POST", "/settings/webhooks/"+id+"/enable", url.Values{})
	wantRedirect(t, res, "/settings/webhooks?done=enable")
	res, body = e.send(t, c, "GET", "/settings/webhooks/"+id+"/log", nil, "HX-Request", "true")
	wantStatus(t, "log fragment", res, body, http.StatusOK, `data-testid="delivery-log"`)
	bsub, err := e.st.Subscribe(e.b.ID, e.bob.ID, "message.received", "https://b.example.com")
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range []string{"/settings/webhooks/" + bsub.ID + "/disable", "/settings/webhooks/" + bsub.ID + "/delete"} {
		res, _ = e.send(t, c, "POST", p, url.Values{})
		if res.StatusCode != http.StatusNotFound {
			t.Fatalf("POST %s for B's subscription from A: %d, want 404", p, res.StatusCode)
		}
	}
	res, _ = e.send(t, c, "GET", "/settings/webhooks/"+bsub.ID+"/log", nil)
	if res.StatusCode != http.StatusNotFound {
		t.Fatalf("B's delivery log from A: %d, want 404", res.StatusCode)
	}
	res, _ = e.send(t, c, "POST", "/settings/webhooks/"+id+"/delete", url.Values{})
	wantRedirect(t, res, "/settings/webhooks?done=delete")
	if subs, _ := e.st.Subscriptions(e.a.ID); len(subs) != 0 {
		t.Fatal("the subscription was not deleted")
	}
}

// TestUIWebhookGuard: the UI refuses what the server's SSRF guard refuses, beside the field.
func TestUIWebhookGuard(t *testing.T) {
	e := newUIEnv(t)
	sess, err := NewSessions(e.st, SessionConfig{BaseURL: "http://sb.test"})
	if err != nil {
		t.Fatal(err)
	}
	prov, err := oauth.New(e.st, oauth.Config{Session: sess})
	if err != nil {
		t.Fatal(err)
	}
	guard := func(context.Context, string) error { return errors.New("not an allowed address") }
	e.srv.Close()
	e.srv = httptest.NewServer(New(e.st, Config{Sessions: sess, OAuth: prov, ValidateHookURL: guard}))
	t.Cleanup(e.srv.Close)
	c := e.signIn(t, e.alice)
	res, body := e.send(t, c, "POST", "/settings/webhooks", url.Values{"event": {"message.received"}, "url": {"http://127.0.0.1/in"}})
	wantStatus(t, "guarded URL", res, body, http.StatusUnprocessableEntity, `data-testid="error-url">Not an allowed address<`)
	if subs, _ := e.st.Subscriptions(e.a.ID); len(subs) != 0 {
		t.Fatal("a refused URL was subscribed")
	}
}

func TestUIAdminPages(t *testing.T) {
	e := newUIEnv(t)
	su := e.superuser(t)
	c := e.signIn(t, su)
	res, body := e.send(t, c, "GET", "/admin/workspaces", nil)
	wantStatus(t, "admin workspaces", res, body, http.StatusOK, "<h1>Workspaces</h1>", "Acme", "Beta")
	res, body = e.send(t, c, "POST", "/admin/workspaces", url.Values{"name": {"  "}})
	wantStatus(t, "empty workspace name", res, body, http.StatusUnprocessableEntity, `data-testid="error-name"`)
	res, _ = e.send(t, c, "POST", "/admin/workspaces/"+e.b.ID+"/rename", url.Values{"name": {"Beta Two"}})
	wantRedirect(t, res, "/admin/workspaces?done=renamed")
	res, _ = e.send(t, c, "POST", "/admin/workspaces/"+e.b.ID+"/archive", url.Values{"archived": {"true"}})
	wantRedirect(t, res, "/admin/workspaces?done=archived")
	res, body = e.send(t, e.signIn(t, e.bob), "GET", "/inbox", nil)
	wantStatus(t, "bob after archive", res, body, http.StatusOK, `data-testid="no-workspace"`)
	res, body = e.send(t, c, "GET", "/admin/users", nil)
	wantStatus(t, "admin users", res, body, http.StatusOK, "alice@example.com", "bob@example.com")
	res, body = e.send(t, c, "POST", "/admin/oauth-clients", url.Values{"name": {"Zapier"}, "redirectUris": {"not a url"}})
	wantStatus(t, "bad client", res, body, http.StatusUnprocessableEntity, `data-testid="error-redirect-uri"`, `value="Zapier"`)
	res, body = e.send(t, c, "POST", "/admin/oauth-clients", url.Values{"name": {"Zapier"}, "redirectUris": {"https://zapier.com/cb"}})
	wantStatus(t, "create client", res, body, http.StatusOK, `data-testid="client-secret"`, `role="status"`)
	secret := regexp.MustCompile(`id="client-secret" type="text" readonly value="([^"]+)"`).FindStringSubmatch(body)
	if secret == nil {
		t.Fatal("the secret is not shown")
	}
	res, body = e.send(t, c, "GET", "/admin/oauth-clients", nil)
	wantStatus(t, "clients", res, body, http.StatusOK, "Zapier")
	if strings.Contains(body, secret[1]) {
		t.Fatal("the secret is shown again")
	}
	res, body = e.send(t, c, "GET", "/admin/backup", nil)
	wantStatus(t, "backup page", res, body, http.StatusOK, "<h1>Backup</h1>", `href="/admin/backup/download"`)
	res, body = e.send(t, c, "GET", "/admin/backup/download", nil)
	if res.StatusCode != http.StatusOK || !strings.HasPrefix(res.Header.Get("Content-Disposition"), "attachment;") || len(body) < 4096 {
		t.Fatalf("backup download: %d %q, %d bytes", res.StatusCode, res.Header.Get("Content-Disposition"), len(body))
	}
}

// Issue 38, item 13: a workspace settings form sent back with errors opens on a summary that
// links each problem to its field, and the time zone suggests the IANA zones as one types.
func TestUIWorkspaceSettingsErrorSummary(t *testing.T) {
	e := newUIEnv(t)
	c := e.signIn(t, e.alice)
	res, body := e.send(t, c, "GET", "/settings/workspace", nil)
	wantPage(t, "the settings", res, body, http.StatusOK, `list="ws-tz-zones"`, `<datalist id="ws-tz-zones">`,
		`<option value="America/New_York">America/New York</option>`)
	res, body = e.send(t, c, "POST", "/settings/workspace", url.Values{"name": {"Acme"}, "timeZone": {"New York"}, "retentionDays": {"a week"}})
	wantPage(t, "the errors", res, body, http.StatusUnprocessableEntity, `data-testid="error-summary"`,
		`<a href="#ws-tz">Time zone: `, `<a href="#ws-retention">Message retention (days): Must be a whole number`)
	if strings.Index(body, `data-testid="error-summary"`) > strings.Index(body, `data-testid="workspace-form"`) {
		t.Error("the summary is below the form, want it above")
	}
}

// Issue 38, item 14: inviting a member's address again is refused beside the field, and a
// second invitation to the same person revokes the first, saying so.
func TestUIInviteAgain(t *testing.T) {
	e := newUIEnv(t)
	c := e.signIn(t, e.alice)
	res, body := e.send(t, c, "POST", "/settings/members", url.Values{"email": {"MO@example.com"}, "role": {"member"}})
	wantStatus(t, "a member invited", res, body, http.StatusUnprocessableEntity, `data-testid="error-email"`, "is a member of this workspace already")
	first, _, err := e.st.CreateInvitation(e.a.ID, "nia@example.com", "member")
	if err != nil {
		t.Fatal(err)
	}
	res, body = e.send(t, c, "POST", "/settings/members", url.Values{"email": {"nia@example.com"}, "role": {"admin"}})
	wantStatus(t, "invited again", res, body, http.StatusOK, `data-testid="invite-replaced"`, "had a pending invitation already")
	invs, _ := e.st.Invitations(e.a.ID)
	states := map[string]string{}
	for _, inv := range invs {
		states[inv.ID] = inv.Status
	}
	if states[first.ID] != store.InvitationRevoked || len(invs) != 2 {
		t.Errorf("invitations %v, want the first revoked and a new pending one", states)
	}
}

// Issue 38, item 14: /admin is the installation's overview for a superuser, where the header's
// Admin link goes.
func TestUIAdminOverview(t *testing.T) {
	e := newUIEnv(t)
	root := e.superuser(t)
	c := e.signIn(t, root)
	res, body := e.send(t, c, "GET", "/admin", nil)
	wantStatus(t, "GET /admin", res, body, http.StatusOK, "<h1>Administration</h1>", `data-testid="admin-overview"`,
		`href="/admin/workspaces"`, `href="/admin/users"`, `href="/admin/oauth-clients"`, `href="/admin/backup"`,
		`href="/admin" aria-current="page" data-testid="nav-admin"`)
	if !strings.Contains(body, `data-testid="overview-workspaces">2<`) || !strings.Contains(body, `data-testid="overview-users">4<`) {
		t.Error("the overview does not count the 2 workspaces and 4 users")
	}
	if !strings.Contains(body, "1 superuser, 0 with two-factor. Two-factor is optional.") {
		t.Error("the Users card does not say its sentence in one piece")
	}
}

// Issue 38, item 14: passwords are described and counted in characters; one of 8 accented
// letters is 8 characters (16 bytes) and is taken.
func TestPasswordRuleInCharacters(t *testing.T) {
	if views.PasswordRule != store.PasswordRule {
		t.Fatalf("the forms say %q, the store checks %q", views.PasswordRule, store.PasswordRule)
	}
	e := newUIEnv(t)
	anon := e.browser(t)
	_, plain, err := e.st.CreateInvitation(e.a.ID, "zoe@example.com", "member")
	if err != nil {
		t.Fatal(err)
	}
	res, body := e.send(t, anon, "GET", "/invite/"+plain, nil)
	wantStatus(t, "the invitation", res, body, http.StatusOK, "8 to 72 characters")
	if strings.Contains(body, "bytes") {
		t.Error("the invitation page speaks of bytes")
	}
	res, body = e.send(t, anon, "POST", "/invite/"+plain, url.Values{"name": {"Zoë"}, "password": {"ééééééé"}})
	wantStatus(t, "7 characters", res, body, http.StatusUnprocessableEntity, `data-testid="error-password"`, "e 8 to 72 characters")
	res, _ = e.send(t, anon, "POST", "/invite/"+plain, url.Values{"name": {"Zoë"}, "password": {"éééééééé"}})
	wantRedirect(t, res, "/inbox")
}
