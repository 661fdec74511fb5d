package views

import (
	"strings"
	"testing"
)

// Every settings and superuser page: labelled controls, one h1, and what a person must see.
func TestSettingsPagesAreLabelled(t *testing.T) {
	errs := map[string]string{"name": "Is required", "timeZone": "Must be an IANA time zone", "url": "Not an allowed address",
		"email": "Must be an email address", "redirect-uri": "Must be absolute"}
	cases := []struct {
		name  string
		html  string
		wants []string
	}{
		{"workspace", render(t, WorkspaceSettings(WorkspaceForm{Name: "Acme", TimeZone: "Mars/Olympus", Errors: errs})),
			[]string{`value="Mars/Olympus"`, `data-testid="error-timeZone"`, `<label for="ws-stop">Reply to STOP</label>`}},
		{"numbers", render(t, Numbers(NumbersView{Rows: []NumberRow{{ID: "n1", Phone: "+14155550100", Name: "Front", Carrier: "sandbox", Rate: "unlimited", Active: true},
			{ID: "n2", Phone: "+14155550101", Carrier: "twilio", Rate: "server default", RenameError: "Too long", NameTyped: "xx"}}, Twilio: true})),
			[]string{">Deactivate<", ">Activate<", `value="twilio"`, `role="alert">Too long<`, `value="xx"`, `<th scope="col">Carrier</th>`}},
		{"tokens", render(t, Tokens(TokensView{Created: "sbp_secret", Rows: []TokenRow{{ID: "t1", Name: "Zapier"}}})),
			[]string{`role="status" data-testid="token-created"`, `value="sbp_secret"`, ">Revoke Zapier<"}},
		{"members", render(t, Members(MembersView{Members: []MemberRow{{UserID: "u1", Name: "Dana", Role: "admin", Self: true}, {UserID: "u2", Name: "Mo", Role: "member"}},
			Invitations: []InvitationRow{{ID: "i1", Email: "a@b.c", Status: "pending"}, {ID: "i2", Email: "d@e.f", Status: "expired"}},
			Link:        "http://x/invite/sbi_1", Invited: "a@b.c"})),
			[]string{`data-testid="invite-link"`, ">Remove Mo<", ">Revoke invitation<", ">expired<"}},
		{"properties", render(t, Properties(PropertiesView{Types: []string{"text", "number"}, Name: "9x", Errors: errs})),
			[]string{`value="9x"`, `data-testid="error-name"`}},
		{"webhooks", render(t, Webhooks(WebhooksView{Events: []string{"message.received"}, URL: "http://10.0.0.1", Errors: errs,
			Rows: []WebhookRow{{ID: "s1", Event: "message.received", URL: "https://h", State: "active", Active: true,
				Log: DeliveryLogView{SubscriptionID: "s1", Deliveries: []DeliveryRow{{ID: "d1", Status: "failed", CanRedeliver: true,
					Attempts: []AttemptRow{{At: "now", Status: "500", Latency: "3 ms", Error: "server error", Response: "oops"}}}}}}}})),
			[]string{`data-testid="error-url">Not an allowed address<`, `hx-get="/settings/webhooks/s1/log"`, ">Redeliver<", "1 attempt<", ">oops<", ">Disable<"}},
		{"admin workspaces", render(t, AdminWorkspaces(AdminWorkspacesView{Rows: []AdminWorkspaceRow{{ID: "w1", Name: "Acme", Archived: true}}})),
			[]string{">Restore<", ">archived<"}},
		{"users", render(t, AdminUsers(AdminUsersView{Rows: []AdminUserRow{{Name: "Dana", Email: "d@x.y", Superuser: true}}})), []string{"d@x.y"}},
		{"oauth", render(t, OAuthClients(OAuthClientsView{Secret: "sbs_x", SecretFor: "Zapier", Rows: []OAuthClientRow{{ID: "c1", Name: "Zapier"}},
			Grants: []GrantRow{{ID: "g1", Client: "Zapier", User: "Dana"}}, Errors: errs})),
			[]string{`role="status" data-testid="client-secret-box"`, `value="sbs_x"`, ">Rotate secret<", ">Revoke grant<", `data-testid="error-redirect-uri"`}},
		{"backup", render(t, AdminBackup(AdminBackupView{})), []string{`href="/admin/backup/download"`, "Download backup"}},
		{"invite", render(t, Invite(InviteView{Token: "sbi_1", Workspace: "Acme", Email: "a@b.c", Role: "admin"})),
			[]string{"Join Acme", "as an <strong>admin", `action="/invite/sbi_1"`, `href="/login?next=/invite/sbi_1"`}},
		{"invite refused", render(t, Invite(InviteView{Refused: "This invitation link has expired."})),
			[]string{`role="alert" data-testid="invite-refused">This invitation link has expired.<`}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			labelled(t, c.html)
			expect(t, c.html, c.wants...)
		})
	}
}

// A member's settings show only their tokens.
func TestSettingsNavForMembers(t *testing.T) {
	html := render(t, Tokens(TokensView{}))
	if strings.Contains(html, "/settings/members") || !strings.Contains(html, `href="/settings/tokens" aria-current="page"`) {
		t.Fatalf("a member's settings nav: %s", html)
	}
}
