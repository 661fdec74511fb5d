package cli

import (
	"io"
	"net/http"
	"net/http/httptest"
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
	local := func(u string) string { return strings.Replace(u, "http://localhost:", "http://127.0.0.1:", 1) }
	base := "http://" + addr

	b := openBrowser(t, chrome, 2*time.Minute, nil)
	b.failShot = "settings-failed"
	b.setUpAdmin(setupLink(t, srv))
	b.setUpWorkspace()
	b.run("a second workspace on the superuser's page",
		chromedp.Navigate(base+"/admin/workspaces"),
		chromedp.WaitVisible(testutil.TestID("admin-workspace-form")),
		chromedp.SendKeys(chromedp.CSS("#new-ws-name"), "Other Co"),
		chromedp.Click(chromedp.CSS(`[data-testid="admin-workspace-form"] button`)),
		chromedp.WaitVisible(testutil.TestID("flash")),
	)
	b.shot("settings-01-admin-workspaces")
	// Workspace settings: a bad time zone is refused beside the field, as typed.
	b.run("workspace settings",
		chromedp.Navigate(base+"/settings"),
		chromedp.WaitVisible(testutil.TestID("workspace-form")),
		chromedp.SetValue(chromedp.CSS("#ws-tz"), "Mars/Olympus"),
		chromedp.Click(testutil.TestID("workspace-save")),
		chromedp.WaitVisible(testutil.TestID("error-timeZone")),
	)
	b.shot("settings-02-workspace-error")
	b.run("save good settings",
		chromedp.SetValue(chromedp.CSS("#ws-tz"), "America/New_York"),
		chromedp.SetValue(chromedp.CSS("#ws-quiet"), "21:00-08:00"),
		chromedp.Click(testutil.TestID("workspace-save")),
		chromedp.WaitVisible(testutil.TestID("flash")),
	)
	b.run("numbers", chromedp.Navigate(base+"/settings/numbers"), chromedp.WaitVisible(testutil.TestID("numbers-list")))
	b.shot("settings-03-numbers")

	// A webhook to a local receiver; an inbound text delivers to it; the log shows it; redeliver.
	b.run("subscribe the receiver",
		chromedp.Navigate(base+"/settings/webhooks"),
		chromedp.WaitVisible(testutil.TestID("webhook-form")),
		chromedp.SetValue(testutil.TestID("hook-event"), "message.received"),
		chromedp.SendKeys(testutil.TestID("hook-url"), receiver.URL+"/hooks/switchboard"),
		chromedp.Click(testutil.TestID("webhook-create")),
		chromedp.WaitVisible(testutil.TestID("webhook-created")),
	)
	b.run("a text comes in",
		chromedp.Navigate(base+"/inbox"),
		chromedp.WaitVisible(testutil.TestID("new-conversation-form")),
		chromedp.SendKeys(chromedp.CSS("#new-to"), "+14155550123"),
		chromedp.Click(testutil.TestID("new-conversation-submit")),
		chromedp.WaitVisible(testutil.TestID("simulate-form")),
		chromedp.SendKeys(chromedp.CSS("#sim-text"), "Is Tuesday still OK?"),
		chromedp.Click(testutil.TestID("simulate-submit")),
		chromedp.WaitVisible(testutil.TestID("flash")),
	)
	b.run("the delivery shows in the log (the log refreshes itself)",
		chromedp.Navigate(base+"/settings/webhooks"),
		poll(`(() => { const s = document.querySelector('[data-testid="delivery-status"]'); return s && s.textContent.trim() === "delivered"; })()`,
			nil, chromedp.WithPollingTimeout(15*time.Second), chromedp.WithPollingInterval(200*time.Millisecond)),
	)
	b.shot("settings-04-webhook-log")
	if hits.Load() != 1 {
		t.Fatalf("the receiver got %d posts, want 1", hits.Load())
	}
	b.run("redeliver",
		chromedp.Click(testutil.TestID("redeliver")),
		chromedp.WaitVisible(testutil.TestID("flash")),
		poll(`document.querySelectorAll('[data-testid="attempt"]').length === 2`, nil,
			chromedp.WithPollingTimeout(15*time.Second), chromedp.WithPollingInterval(300*time.Millisecond)),
	)
	b.shot("settings-05-redelivered")
	if hits.Load() != 2 {
		t.Fatalf("after redeliver the receiver got %d posts, want 2", hits.Load())
	}

	// An OAuth client: the secret is shown once, and not again on the list.
	b.run("register an OAuth client",
		chromedp.Navigate(base+"/admin/oauth-clients"),
		chromedp.WaitVisible(testutil.TestID("oauth-client-form")),
		chromedp.SendKeys(testutil.TestID("client-name"), "Zapier"),
		chromedp.SendKeys(testutil.TestID("client-uris"), "https://zapier.com/dashboard/auth/oauth/return/App123CLIAPI/"),
		chromedp.Click(testutil.TestID("client-create")),
		chromedp.WaitVisible(testutil.TestID("client-secret")),
	)
	secret, err := chromedp.Run(b.ctx, chromedp.Evaluate[string](`document.querySelector('[data-testid="client-secret"]').value`))
	if err != nil || len(secret) < 20 {
		t.Fatalf("client secret %q: %v", secret, err)
	}
	b.shot("settings-06-oauth-secret")
	b.run("the list shows the client, not its secret", chromedp.Navigate(base+"/admin/oauth-clients"), chromedp.WaitVisible(testutil.TestID("oauth-clients")))
	if html, _ := chromedp.Run(b.ctx, chromedp.Evaluate[string](`document.documentElement.outerHTML`)); strings.Contains(html, secret) {
		t.Fatal("the client secret is shown again")
	}

	// Invite a member, who joins through the link and sees only Acme Dental.
	b.run("invite",
		chromedp.Navigate(base+"/settings/members"),
		chromedp.WaitVisible(testutil.TestID("invite-form")),
		chromedp.SendKeys(testutil.TestID("invite-email"), "nia@acme.example"),
		chromedp.Click(testutil.TestID("invite-submit")),
		chromedp.WaitVisible(testutil.TestID("invite-link")),
	)
	b.shot("settings-07-invited")
	invite, err := chromedp.Run(b.ctx, chromedp.Evaluate[string](`document.querySelector('[data-testid="invite-link"]').value`))
	if err != nil || !strings.Contains(invite, "/invite/") {
		t.Fatalf("invitation link %q: %v", invite, err)
	}
	nia := openBrowser(t, chrome, 2*time.Minute, b.shots) // another person, another browser
	nia.failShot = "settings-failed-nia"
	nia.run("open the link",
		chromedp.EmulateViewport(1280, 860),
		chromedp.Navigate(local(invite)),
		chromedp.WaitVisible(testutil.TestID("invite-signup")),
		chromedp.SendKeys(testutil.TestID("invite-name"), "Nia Member"),
		chromedp.SendKeys(testutil.TestID("invite-password"), "another good password"),
	)
	nia.shot("settings-08-invite-page")
	nia.run("create the account: she is signed in at once",
		chromedp.Click(testutil.TestID("invite-create")),
		chromedp.WaitVisible(testutil.TestID("flash")),
	)
	nia.shot("settings-09-member-inbox")
	name, err := chromedp.Run(nia.ctx, chromedp.Text(testutil.TestID("workspace-name")))
	if err != nil || !strings.Contains(name, "Acme Dental") {
		t.Fatalf("Nia's workspace: %q (%v), want Acme Dental alone", name, err)
	}
	if n, _ := chromedp.Run(nia.ctx, chromedp.Evaluate[int](`document.querySelectorAll('[data-testid="workspace-select"]').length`)); n != 0 {
		t.Fatal("Nia is offered a workspace choice: she belongs to one workspace")
	}
	nia.run("a member is refused the admin's settings", chromedp.Navigate(base+"/settings/members"), chromedp.WaitVisible(testutil.TestID("error-page")))
	nia.run("the used link is refused", chromedp.Navigate(local(invite)), chromedp.WaitVisible(testutil.TestID("invite-refused")))
	nia.shot("settings-10-link-used")
	b.run("the admin sees the invitation accepted",
		chromedp.Navigate(base+"/settings/members"),
		poll(`document.querySelector('[data-testid="invitations-list"]').textContent.includes("accepted")`, nil),
	)
	b.shot("settings-11-members")
	b.run("tokens", chromedp.Navigate(base+"/settings/tokens"), chromedp.SendKeys(chromedp.CSS("#token-name"), "Zapier"),
		chromedp.Click(testutil.TestID("token-create")), chromedp.WaitVisible(testutil.TestID("token-created")))
	b.shot("settings-12-token")
	b.run("properties", chromedp.Navigate(base+"/settings/properties"), chromedp.SendKeys(chromedp.CSS("#property-name"), "plan_tier"),
		chromedp.Click(testutil.TestID("property-add")), chromedp.WaitVisible(testutil.TestID("properties-list")))
	b.shot("settings-13-properties")
	b.run("users", chromedp.Navigate(base+"/admin/users"), chromedp.WaitVisible(testutil.TestID("admin-users")))
	b.shot("settings-14-users")
	b.run("backup", chromedp.Navigate(base+"/admin/backup"), chromedp.WaitVisible(testutil.TestID("backup-download")))
	b.shot("settings-15-backup")
	b.run("webhooks on a phone", phone, chromedp.Navigate(base+"/settings/webhooks"), chromedp.WaitVisible(testutil.TestID("delivery-log")))
	b.shot("settings-16-webhooks-phone")
}
