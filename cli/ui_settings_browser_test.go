package cli

import (
	"io"
	"net/http"
	"net/http/httptest"
	"regexp"
	"strings"
	"switchboard/internal/testutil"
	"sync/atomic"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
)

// TestBrowserSettings drives the settings and superuser pages as their users do: the first
// admin (a superuser) makes a second workspace, subscribes a local receiver to
// message.received, sees the delivery in the log and redelivers it; registers an OAuth client
// whose secret is shown once; invites a member who makes an account through the link, signs in
// and sees only their workspace. Screenshots go to SCREENSHOT_DIR as settings-*.png.
func TestBrowserSettings(t *testing.T) {
	chrome := testutil.Chromium(t)
	var hits atomic.Int32
	receiver := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		io.Copy(io.Discard, r.Body)
		hits.Add(1)
		w.Write([]byte(`{"ok":true,"note":"thanks from the receiver"}`))
	}))
	defer receiver.Close()

	data := t.TempDir()
	addr := "127.0.0.1:" + testutil.FreePort(t)
	srv := startServer(t, addr, nil, "-addr", addr, "-data="+data, "-log-requests=false", "-hook-allow-cidrs", "127.0.0.0/8")
	link := ""
	re := regexp.MustCompile(`one-time link\): (\S+)`)
	for deadline := time.Now().Add(5 * time.Second); link == "" && time.Now().Before(deadline); time.Sleep(20 * time.Millisecond) {
		if m := re.FindStringSubmatch(srv.stdout.String()); m != nil {
			link = m[1]
		}
	}
	if link == "" {
		t.Fatalf("serve printed no setup link; stdout:\n%s", srv.stdout)
	}
	local := func(u string) string { return strings.Replace(u, "http://localhost:", "http://127.0.0.1:", 1) }
	base := "http://" + addr

	shots := newShots(t)
	ctx := testutil.StartChromium(t, chrome, 2*time.Minute)
	run := func(step string, actions ...chromedp.Action[chromedp.Void]) {
		t.Helper()
		if err := chromedp.Do(ctx, actions...); err != nil {
			shots.take(ctx, "settings-failed")
			t.Fatalf("%s: %v", step, err)
		}
	}
	run("set up the administrator, a workspace and a number",
		chromedp.EmulateViewport(1280, 900),
		chromedp.Navigate(local(link)),
		chromedp.WaitVisible(testutil.TestID("setup-form")),
		chromedp.SendKeys(chromedp.CSS("#email"), "admin@acme.example"),
		chromedp.SendKeys(chromedp.CSS("#name"), "Dana Admin"),
		chromedp.SendKeys(chromedp.CSS("#password"), "correct horse battery"),
		chromedp.Click(testutil.TestID("setup-submit")),
		chromedp.WaitVisible(testutil.TestID("notice-link")),
		chromedp.Click(testutil.TestID("notice-link")),
		chromedp.WaitVisible(testutil.TestID("create-workspace-form")),
		chromedp.SendKeys(chromedp.CSS("#workspace-name"), "Acme Dental"),
		chromedp.Click(testutil.TestID("create-workspace-submit")),
		chromedp.WaitVisible(testutil.TestID("add-number-form")),
		chromedp.SendKeys(chromedp.CSS("#number-phone"), "+14155550100"),
		chromedp.Click(testutil.TestID("add-number-submit")),
		chromedp.WaitVisible(testutil.TestID("new-conversation-form")),
	)
	run("a second workspace on the superuser's page",
		chromedp.Navigate(base+"/admin/workspaces"),
		chromedp.WaitVisible(testutil.TestID("admin-workspace-form")),
		chromedp.SendKeys(chromedp.CSS("#new-ws-name"), "Other Co"),
		chromedp.Click(chromedp.CSS(`[data-testid="admin-workspace-form"] button`)),
		chromedp.WaitVisible(testutil.TestID("flash")),
	)
	shots.take(ctx, "settings-01-admin-workspaces")
	// Workspace settings: a bad time zone is refused beside the field, as typed.
	run("workspace settings",
		chromedp.Navigate(base+"/settings"),
		chromedp.WaitVisible(testutil.TestID("workspace-form")),
		chromedp.SetValue(chromedp.CSS("#ws-tz"), "Mars/Olympus"),
		chromedp.Click(testutil.TestID("workspace-save")),
		chromedp.WaitVisible(testutil.TestID("error-timeZone")),
	)
	shots.take(ctx, "settings-02-workspace-error")
	run("save good settings",
		chromedp.SetValue(chromedp.CSS("#ws-tz"), "America/New_York"),
		chromedp.SetValue(chromedp.CSS("#ws-quiet"), "21:00-08:00"),
		chromedp.Click(testutil.TestID("workspace-save")),
		chromedp.WaitVisible(testutil.TestID("flash")),
	)
	run("numbers", chromedp.Navigate(base+"/settings/numbers"), chromedp.WaitVisible(testutil.TestID("numbers-list")))
	shots.take(ctx, "settings-03-numbers")

	// A webhook to a local receiver; an inbound text delivers to it; the log shows it; redeliver.
	run("subscribe the receiver",
		chromedp.Navigate(base+"/settings/webhooks"),
		chromedp.WaitVisible(testutil.TestID("webhook-form")),
		chromedp.SetValue(testutil.TestID("hook-event"), "message.received"),
		chromedp.SendKeys(testutil.TestID("hook-url"), receiver.URL+"/hooks/switchboard"),
		chromedp.Click(testutil.TestID("webhook-create")),
		chromedp.WaitVisible(testutil.TestID("webhook-created")),
	)
	run("a text comes in",
		chromedp.Navigate(base+"/inbox"),
		chromedp.WaitVisible(testutil.TestID("new-conversation-form")),
		chromedp.SendKeys(chromedp.CSS("#new-to"), "+14155550123"),
		chromedp.Click(testutil.TestID("new-conversation-submit")),
		chromedp.WaitVisible(testutil.TestID("simulate-form")),
		chromedp.SendKeys(chromedp.CSS("#sim-text"), "Is Tuesday still OK?"),
		chromedp.Click(testutil.TestID("simulate-submit")),
		chromedp.WaitVisible(testutil.TestID("flash")),
	)
	run("the delivery shows in the log (the log refreshes itself)",
		chromedp.Navigate(base+"/settings/webhooks"),
		poll(`(() => { const s = document.querySelector('[data-testid="delivery-status"]'); return s && s.textContent.trim() === "delivered"; })()`,
			nil, chromedp.WithPollingTimeout(15*time.Second), chromedp.WithPollingInterval(200*time.Millisecond)),
	)
	shots.take(ctx, "settings-04-webhook-log")
	if hits.Load() != 1 {
		t.Fatalf("the receiver got %d posts, want 1", hits.Load())
	}
	run("redeliver",
		chromedp.Click(testutil.TestID("redeliver")),
		chromedp.WaitVisible(testutil.TestID("flash")),
		poll(`document.querySelectorAll('[data-testid="attempt"]').length === 2`, nil,
			chromedp.WithPollingTimeout(15*time.Second), chromedp.WithPollingInterval(300*time.Millisecond)),
	)
	shots.take(ctx, "settings-05-redelivered")
	if hits.Load() != 2 {
		t.Fatalf("after redeliver the receiver got %d posts, want 2", hits.Load())
	}

	// An OAuth client: the secret is shown once, and not again on the list.
	run("register an OAuth client",
		chromedp.Navigate(base+"/admin/oauth-clients"),
		chromedp.WaitVisible(testutil.TestID("oauth-client-form")),
		chromedp.SendKeys(testutil.TestID("client-name"), "Zapier"),
		chromedp.SendKeys(testutil.TestID("client-uris"), "https://zapier.com/dashboard/auth/oauth/return/App123CLIAPI/"),
		chromedp.Click(testutil.TestID("client-create")),
		chromedp.WaitVisible(testutil.TestID("client-secret")),
	)
	secret, err := chromedp.Run(ctx, chromedp.Evaluate[string](`document.querySelector('[data-testid="client-secret"]').value`))
	if err != nil || len(secret) < 20 {
		t.Fatalf("client secret %q: %v", secret, err)
	}
	shots.take(ctx, "settings-06-oauth-secret")
	run("the list shows the client, not its secret", chromedp.Navigate(base+"/admin/oauth-clients"), chromedp.WaitVisible(testutil.TestID("oauth-clients")))
	if html, _ := chromedp.Run(ctx, chromedp.Evaluate[string](`document.documentElement.outerHTML`)); strings.Contains(html, secret) {
		t.Fatal("the client secret is shown again")
	}

	// Invite a member, who joins through the link and sees only Acme Dental.
	run("invite",
		chromedp.Navigate(base+"/settings/members"),
		chromedp.WaitVisible(testutil.TestID("invite-form")),
		chromedp.SendKeys(testutil.TestID("invite-email"), "nia@acme.example"),
		chromedp.Click(testutil.TestID("invite-submit")),
		chromedp.WaitVisible(testutil.TestID("invite-link")),
	)
	shots.take(ctx, "settings-07-invited")
	invite, err := chromedp.Run(ctx, chromedp.Evaluate[string](`document.querySelector('[data-testid="invite-link"]').value`))
	if err != nil || !strings.Contains(invite, "/invite/") {
		t.Fatalf("invitation link %q: %v", invite, err)
	}
	nia := testutil.StartChromium(t, chrome, 2*time.Minute) // another person, another browser
	niaRun := func(step string, actions ...chromedp.Action[chromedp.Void]) {
		t.Helper()
		if err := chromedp.Do(nia, actions...); err != nil {
			shots.take(nia, "settings-failed-nia")
			t.Fatalf("%s: %v", step, err)
		}
	}
	niaRun("open the link",
		chromedp.EmulateViewport(1280, 860),
		chromedp.Navigate(local(invite)),
		chromedp.WaitVisible(testutil.TestID("invite-signup")),
		chromedp.SendKeys(testutil.TestID("invite-name"), "Nia Member"),
		chromedp.SendKeys(testutil.TestID("invite-password"), "another good password"),
	)
	shots.take(nia, "settings-08-invite-page")
	niaRun("create the account and sign in",
		chromedp.Click(testutil.TestID("invite-create")),
		chromedp.WaitVisible(testutil.TestID("notice-link")),
	)
	shots.take(nia, "settings-08b-welcome")
	niaRun("sign in",
		chromedp.Click(testutil.TestID("notice-link")),
		chromedp.WaitVisible(testutil.TestID("login-form")),
		chromedp.SendKeys(testutil.TestID("login-email"), "nia@acme.example"),
		chromedp.SendKeys(testutil.TestID("login-password"), "another good password"),
		chromedp.Click(testutil.TestID("login-submit")),
		chromedp.WaitVisible(testutil.TestID("inbox-list")),
	)
	shots.take(nia, "settings-09-member-inbox")
	name, err := chromedp.Run(nia, chromedp.Text(testutil.TestID("workspace-name")))
	if err != nil || !strings.Contains(name, "Acme Dental") {
		t.Fatalf("Nia's workspace: %q (%v), want Acme Dental alone", name, err)
	}
	if n, _ := chromedp.Run(nia, chromedp.Evaluate[int](`document.querySelectorAll('[data-testid="workspace-select"]').length`)); n != 0 {
		t.Fatal("Nia is offered a workspace choice: she belongs to one workspace")
	}
	niaRun("a member is refused the admin's settings", chromedp.Navigate(base+"/settings/members"), chromedp.WaitVisible(testutil.TestID("error-page")))
	niaRun("the used link is refused", chromedp.Navigate(local(invite)), chromedp.WaitVisible(testutil.TestID("invite-refused")))
	shots.take(nia, "settings-10-link-used")
	run("the admin sees the invitation accepted",
		chromedp.Navigate(base+"/settings/members"),
		poll(`document.querySelector('[data-testid="invitations-list"]').textContent.includes("accepted")`, nil),
	)
	shots.take(ctx, "settings-11-members")
	run("tokens", chromedp.Navigate(base+"/settings/tokens"), chromedp.SendKeys(chromedp.CSS("#token-name"), "Zapier"),
		chromedp.Click(testutil.TestID("token-create")), chromedp.WaitVisible(testutil.TestID("token-created")))
	shots.take(ctx, "settings-12-token")
	run("properties", chromedp.Navigate(base+"/settings/properties"), chromedp.SendKeys(chromedp.CSS("#property-name"), "plan_tier"),
		chromedp.Click(testutil.TestID("property-add")), chromedp.WaitVisible(testutil.TestID("properties-list")))
	shots.take(ctx, "settings-13-properties")
	run("users", chromedp.Navigate(base+"/admin/users"), chromedp.WaitVisible(testutil.TestID("admin-users")))
	shots.take(ctx, "settings-14-users")
	run("backup", chromedp.Navigate(base+"/admin/backup"), chromedp.WaitVisible(testutil.TestID("backup-download")))
	shots.take(ctx, "settings-15-backup")
	run("webhooks on a phone", chromedp.EmulateViewport(390, 844), chromedp.Navigate(base+"/settings/webhooks"), chromedp.WaitVisible(testutil.TestID("delivery-log")))
	shots.take(ctx, "settings-16-webhooks-phone")
}
