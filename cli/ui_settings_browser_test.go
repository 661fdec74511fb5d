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
		chromedp.WaitVisible(uiTid("setup-form")),
		chromedp.SendKeys(chromedp.CSS("#email"), "admin@acme.example"),
		chromedp.SendKeys(chromedp.CSS("#name"), "Dana Admin"),
		chromedp.SendKeys(chromedp.CSS("#password"), "correct horse battery"),
		chromedp.Click(uiTid("setup-submit")),
		chromedp.WaitVisible(uiTid("notice-link")),
		chromedp.Click(uiTid("notice-link")),
		chromedp.WaitVisible(uiTid("create-workspace-form")),
		chromedp.SendKeys(chromedp.CSS("#workspace-name"), "Acme Dental"),
		chromedp.Click(uiTid("create-workspace-submit")),
		chromedp.WaitVisible(uiTid("add-number-form")),
		chromedp.SendKeys(chromedp.CSS("#number-phone"), "+14155550100"),
		chromedp.Click(uiTid("add-number-submit")),
		chromedp.WaitVisible(uiTid("new-conversation-form")),
	)
	run("a second workspace on the superuser's page",
		chromedp.Navigate(base+"/admin/workspaces"),
		chromedp.WaitVisible(uiTid("admin-workspace-form")),
		chromedp.SendKeys(chromedp.CSS("#new-ws-name"), "Other Co"),
		chromedp.Click(chromedp.CSS(`[data-testid="admin-workspace-form"] button`)),
		chromedp.WaitVisible(uiTid("flash")),
	)
	shots.take(ctx, "settings-01-admin-workspaces")
	// Workspace settings: a bad time zone is refused beside the field, as typed.
	run("workspace settings",
		chromedp.Navigate(base+"/settings"),
		chromedp.WaitVisible(uiTid("workspace-form")),
		chromedp.SetValue(chromedp.CSS("#ws-tz"), "Mars/Olympus"),
		chromedp.Click(uiTid("workspace-save")),
		chromedp.WaitVisible(uiTid("error-timeZone")),
	)
	shots.take(ctx, "settings-02-workspace-error")
	run("save good settings",
		chromedp.SetValue(chromedp.CSS("#ws-tz"), "America/New_York"),
		chromedp.SetValue(chromedp.CSS("#ws-quiet"), "21:00-08:00"),
		chromedp.Click(uiTid("workspace-save")),
		chromedp.WaitVisible(uiTid("flash")),
	)
	run("numbers", chromedp.Navigate(base+"/settings/numbers"), chromedp.WaitVisible(uiTid("numbers-list")))
	shots.take(ctx, "settings-03-numbers")

	// A webhook to a local receiver; an inbound text delivers to it; the log shows it; redeliver.
	run("subscribe the receiver",
		chromedp.Navigate(base+"/settings/webhooks"),
		chromedp.WaitVisible(uiTid("webhook-form")),
		chromedp.SetValue(uiTid("hook-event"), "message.received"),
		chromedp.SendKeys(uiTid("hook-url"), receiver.URL+"/hooks/switchboard"),
		chromedp.Click(uiTid("webhook-create")),
		chromedp.WaitVisible(uiTid("webhook-created")),
	)
	run("a text comes in",
		chromedp.Navigate(base+"/inbox"),
		chromedp.WaitVisible(uiTid("new-conversation-form")),
		chromedp.SendKeys(chromedp.CSS("#new-to"), "+14155550123"),
		chromedp.Click(uiTid("new-conversation-submit")),
		chromedp.WaitVisible(uiTid("simulate-form")),
		chromedp.SendKeys(chromedp.CSS("#sim-text"), "Is Tuesday still OK?"),
		chromedp.Click(uiTid("simulate-submit")),
		chromedp.WaitVisible(uiTid("flash")),
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
		chromedp.Click(uiTid("redeliver")),
		chromedp.WaitVisible(uiTid("flash")),
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
		chromedp.WaitVisible(uiTid("oauth-client-form")),
		chromedp.SendKeys(uiTid("client-name"), "Zapier"),
		chromedp.SendKeys(uiTid("client-uris"), "https://zapier.com/dashboard/auth/oauth/return/App123CLIAPI/"),
		chromedp.Click(uiTid("client-create")),
		chromedp.WaitVisible(uiTid("client-secret")),
	)
	secret, err := chromedp.Run(ctx, chromedp.Evaluate[string](`document.querySelector('[data-testid="client-secret"]').value`))
	if err != nil || len(secret) < 20 {
		t.Fatalf("client secret %q: %v", secret, err)
	}
	shots.take(ctx, "settings-06-oauth-secret")
	run("the list shows the client, not its secret", chromedp.Navigate(base+"/admin/oauth-clients"), chromedp.WaitVisible(uiTid("oauth-clients")))
	if html, _ := chromedp.Run(ctx, chromedp.Evaluate[string](`document.documentElement.outerHTML`)); strings.Contains(html, secret) {
		t.Fatal("the client secret is shown again")
	}

	// Invite a member, who joins through the link and sees only Acme Dental.
	run("invite",
		chromedp.Navigate(base+"/settings/members"),
		chromedp.WaitVisible(uiTid("invite-form")),
		chromedp.SendKeys(uiTid("invite-email"), "nia@acme.example"),
		chromedp.Click(uiTid("invite-submit")),
		chromedp.WaitVisible(uiTid("invite-link")),
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
		chromedp.WaitVisible(uiTid("invite-signup")),
		chromedp.SendKeys(uiTid("invite-name"), "Nia Member"),
		chromedp.SendKeys(uiTid("invite-password"), "another good password"),
	)
	shots.take(nia, "settings-08-invite-page")
	niaRun("create the account and sign in",
		chromedp.Click(uiTid("invite-create")),
		chromedp.WaitVisible(uiTid("notice-link")),
	)
	shots.take(nia, "settings-08b-welcome")
	niaRun("sign in",
		chromedp.Click(uiTid("notice-link")),
		chromedp.WaitVisible(uiTid("login-form")),
		chromedp.SendKeys(uiTid("login-email"), "nia@acme.example"),
		chromedp.SendKeys(uiTid("login-password"), "another good password"),
		chromedp.Click(uiTid("login-submit")),
		chromedp.WaitVisible(uiTid("inbox-list")),
	)
	shots.take(nia, "settings-09-member-inbox")
	name, err := chromedp.Run(nia, chromedp.Text(uiTid("workspace-name")))
	if err != nil || !strings.Contains(name, "Acme Dental") {
		t.Fatalf("Nia's workspace: %q (%v), want Acme Dental alone", name, err)
	}
	if n, _ := chromedp.Run(nia, chromedp.Evaluate[int](`document.querySelectorAll('[data-testid="workspace-select"]').length`)); n != 0 {
		t.Fatal("Nia is offered a workspace choice: she belongs to one workspace")
	}
	niaRun("a member is refused the admin's settings", chromedp.Navigate(base+"/settings/members"), chromedp.WaitVisible(uiTid("error-page")))
	niaRun("the used link is refused", chromedp.Navigate(local(invite)), chromedp.WaitVisible(uiTid("invite-refused")))
	shots.take(nia, "settings-10-link-used")
	run("the admin sees the invitation accepted",
		chromedp.Navigate(base+"/settings/members"),
		poll(`document.querySelector('[data-testid="invitations-list"]').textContent.includes("accepted")`, nil),
	)
	shots.take(ctx, "settings-11-members")
	run("tokens", chromedp.Navigate(base+"/settings/tokens"), chromedp.SendKeys(chromedp.CSS("#token-name"), "Zapier"),
		chromedp.Click(uiTid("token-create")), chromedp.WaitVisible(uiTid("token-created")))
	shots.take(ctx, "settings-12-token")
	run("properties", chromedp.Navigate(base+"/settings/properties"), chromedp.SendKeys(chromedp.CSS("#property-name"), "plan_tier"),
		chromedp.Click(uiTid("property-add")), chromedp.WaitVisible(uiTid("properties-list")))
	shots.take(ctx, "settings-13-properties")
	run("users", chromedp.Navigate(base+"/admin/users"), chromedp.WaitVisible(uiTid("admin-users")))
	shots.take(ctx, "settings-14-users")
	run("backup", chromedp.Navigate(base+"/admin/backup"), chromedp.WaitVisible(uiTid("backup-download")))
	shots.take(ctx, "settings-15-backup")
	run("webhooks on a phone", chromedp.EmulateViewport(390, 844), chromedp.Navigate(base+"/settings/webhooks"), chromedp.WaitVisible(uiTid("delivery-log")))
	shots.take(ctx, "settings-16-webhooks-phone")
}
