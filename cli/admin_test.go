package cli

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"switchboard/store"
)

// TestAdminOAuthCommands runs the OAuth client and grant commands as an operator would.
func TestAdminOAuthCommands(t *testing.T) {
	f := newFixture(t)
	d := "-data=" + f.data

	// Confidential: the id on line 1, the secret on line 2, nothing else on stdout.
	r := sb(t, nil, "admin", "create-oauth-client", d, "--name", "Zapier",
		"--redirect-uri", "https://zapier.example/cb", "--redirect-uri", "https://zapier.example/cb2")
	lines := strings.Split(strings.TrimSuffix(r.stdout, "\n"), "\n")
	if r.code != 0 || len(lines) != 2 {
		t.Fatalf("create-oauth-client: exit %d, stdout %q; want the id and the secret on two lines", r.code, r.stdout)
	}
	conf, secret := lines[0], lines[1]
	wantULID(t, "create-oauth-client", conf)
	if len(secret) < 40 || strings.ContainsAny(secret, " \t") {
		t.Fatalf("secret line %q, want a long opaque secret", secret)
	}

	// Public: the id alone.
	pub := ok(t, "admin", "create-oauth-client", d, "--name", "Desktop", "--redirect-uri", "http://127.0.0.1:7777/cb", "--public")
	wantULID(t, "create-oauth-client --public", pub)

	fails(t, "redirect-uri", "admin", "create-oauth-client", d, "--name", "No URI")
	fails(t, "must be an absolute URL", "admin", "create-oauth-client", d, "--name", "Bad", "--redirect-uri", "not a url")

	list := sb(t, nil, "admin", "list-oauth-clients", d)
	if list.code != 0 || !strings.Contains(list.stdout, conf+"\tconfidential\tZapier") || !strings.Contains(list.stdout, pub+"\tpublic\tDesktop") {
		t.Fatalf("list-oauth-clients: exit %d, stdout %q; want both clients with their kinds", list.code, list.stdout)
	}

	rotated := ok(t, "admin", "rotate-oauth-secret", d, "--client", conf)
	if rotated == secret || len(rotated) < 40 {
		t.Fatalf("rotate-oauth-secret printed %q, want a new secret (old %q)", rotated, secret)
	}
	fails(t, "is public: it has no secret", "admin", "rotate-oauth-secret", d, "--client", pub) // a public client has no secret

	if got := ok(t, "admin", "delete-oauth-client", d, "--client", pub); got != pub {
		t.Fatalf("delete-oauth-client printed %q, want %s", got, pub)
	}
	if list := sb(t, nil, "admin", "list-oauth-clients", d); strings.Contains(list.stdout, pub) {
		t.Fatalf("deleted client still listed: %q", list.stdout)
	}
	fails(t, "client not found", "admin", "delete-oauth-client", d, "--client", pub)

	// No app connected yet: an empty list, and revoking an unknown grant is an error.
	if g := sb(t, nil, "admin", "list-grants", d, "--user", f.user); g.code != 0 || g.stdout != "" {
		t.Fatalf("list-grants with none: exit %d, stdout %q; want success and nothing", g.code, g.stdout)
	}
	fails(t, "--user", "admin", "list-grants", d)
	fails(t, "grant not found", "admin", "revoke-grant", d, "--grant", "01JDX0000000000000000000AA")
}

// TestAdminWebhookCommands lists, redelivers and enables through the binary what the store queued.
func TestAdminWebhookCommands(t *testing.T) {
	f := newFixture(t)
	d := "-data=" + f.data

	s, err := store.Open(filepath.Join(f.data, "switchboard.db"), store.Options{})
	if err != nil {
		t.Fatal(err)
	}
	sub, err := s.Subscribe(f.ws, f.user, store.EventContactCreated, "https://hooks.example.com/switchboard")
	if err != nil {
		t.Fatal(err)
	}
	first := "Ada"
	if _, err := s.CreateContact(f.ws, store.ContactInput{Phone: "+14155550123", FirstName: &first}); err != nil {
		t.Fatal(err)
	}
	ds, err := s.SubscriptionDeliveries(sub.ID, 0)
	if err != nil || len(ds) != 1 {
		t.Fatalf("deliveries queued by contact.created: %d, %v; want 1", len(ds), err)
	}
	delivery := ds[0].ID
	s.Close()

	subs := sb(t, nil, "admin", "list-subscriptions", d, "--workspace", f.ws)
	if subs.code != 0 || !strings.Contains(subs.stdout, sub.ID) || !strings.Contains(subs.stdout, store.EventContactCreated) {
		t.Fatalf("list-subscriptions: exit %d, stdout %q; want %s for %s", subs.code, subs.stdout, sub.ID, store.EventContactCreated)
	}
	if strings.Contains(subs.stdout, sub.Secret) {
		t.Fatalf("list-subscriptions shows the signing secret: %q", subs.stdout)
	}

	dl := sb(t, nil, "admin", "list-deliveries", d, "--subscription", sub.ID)
	if dl.code != 0 || !strings.Contains(dl.stdout, delivery) || !strings.Contains(dl.stdout, store.DeliveryPending) {
		t.Fatalf("list-deliveries: exit %d, stdout %q; want the pending delivery %s", dl.code, dl.stdout, delivery)
	}
	fails(t, "--subscription", "admin", "list-deliveries", d)

	if got := ok(t, "admin", "redeliver", d, "--delivery", delivery); got != delivery {
		t.Fatalf("redeliver printed %q, want %s", got, delivery)
	}
	fails(t, "delivery not found", "admin", "redeliver", d, "--delivery", "01JDX0000000000000000000AA")

	if got := ok(t, "admin", "enable-subscription", d, "--subscription", sub.ID); got != sub.ID {
		t.Fatalf("enable-subscription printed %q, want %s", got, sub.ID)
	}
	fails(t, "subscription not found", "admin", "enable-subscription", d, "--subscription", "01JDX0000000000000000000AA")
}

// TestAdminRemoveMember ends a membership through the binary: the member's subscriptions go
// with it and their pending deliveries are cancelled; another member's stay. Bad input changes
// nothing.
func TestAdminRemoveMember(t *testing.T) {
	f := newFixture(t)
	d := "-data=" + f.data
	bo := ok(t, "admin", "create-user", d, "--email", "bo@example.com", "--name", "Bo")
	ok(t, "admin", "add-member", d, "--workspace", f.ws, "--user", bo)
	boToken := ok(t, "admin", "create-token", d, "--user", bo)

	s, err := store.Open(filepath.Join(f.data, "switchboard.db"), store.Options{})
	if err != nil {
		t.Fatal(err)
	}
	tok, err := s.Authenticate(boToken)
	if err != nil {
		t.Fatal(err)
	}
	boSub, err := s.SubscribeAs(tok, f.ws, store.EventContactCreated, "https://hooks.example.com/bo")
	if err != nil {
		t.Fatal(err)
	}
	anaSub, err := s.Subscribe(f.ws, f.user, store.EventContactCreated, "https://hooks.example.com/ana")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := s.CreateContact(f.ws, store.ContactInput{Phone: "+14155550123"}); err != nil {
		t.Fatal(err)
	}
	s.Close()

	// Refusals first: each names what is wrong and removes nothing.
	fails(t, "--user", "admin", "remove-member", d, "--workspace", f.ws)
	fails(t, "workspace not found", "admin", "remove-member", d, "--workspace", "01JDX0000000000000000000AA", "--user", bo)
	fails(t, "workspace not found", "admin", "remove-member", d, "--workspace", "not-a-ulid", "--user", bo)
	fails(t, "user not found", "admin", "remove-member", d, "--workspace", f.ws, "--user", "nobody")
	stranger := ok(t, "admin", "create-user", d, "--email", "eve@example.com", "--name", "Eve")
	fails(t, "membership not found", "admin", "remove-member", d, "--workspace", f.ws, "--user", stranger)
	check := func(wantBo bool) {
		t.Helper()
		s, err := store.Open(filepath.Join(f.data, "switchboard.db"), store.Options{})
		if err != nil {
			t.Fatal(err)
		}
		defer s.Close()
		subs, _ := s.Subscriptions(f.ws)
		has := map[string]bool{}
		for _, sub := range subs {
			has[sub.ID] = true
		}
		if has[boSub.ID] != wantBo || !has[anaSub.ID] {
			t.Fatalf("subscriptions %v: want Bo's present=%v and Ana's present", has, wantBo)
		}
		boDs, _ := s.SubscriptionDeliveries(boSub.ID, 0)
		anaDs, _ := s.SubscriptionDeliveries(anaSub.ID, 0)
		wantStatus := store.DeliveryPending
		if !wantBo {
			wantStatus = store.DeliveryCancelled
		}
		if len(boDs) != 1 || boDs[0].Status != wantStatus || len(anaDs) != 1 || anaDs[0].Status != store.DeliveryPending {
			t.Fatalf("deliveries: Bo %+v, Ana %+v; want Bo's %s and Ana's pending", boDs, anaDs, wantStatus)
		}
		wantDepth := 2
		if !wantBo {
			wantDepth = 1
		}
		if n, _ := s.QueueDepth(); n != wantDepth {
			t.Fatalf("queue depth %d, want %d", n, wantDepth)
		}
		member := s.Authorize(f.ws, bo) == nil
		if member != wantBo {
			t.Fatalf("Bo a member: %v, want %v", member, wantBo)
		}
	}
	check(true)

	r := sb(t, nil, "admin", "remove-member", d, "--workspace", f.ws, "--user", bo)
	if r.code != 0 || r.stdout != "" {
		t.Fatalf("remove-member: exit %d, stdout %q, stderr %q; want success and nothing on stdout", r.code, r.stdout, r.stderr)
	}
	check(false)
	fails(t, "membership not found", "admin", "remove-member", d, "--workspace", f.ws, "--user", bo)
}

// TestAdminCreateUserPasswordStdin takes the password from standard input (its line ending
// dropped) and refuses empty input, a too short password and both ways at once, creating nothing.
func TestAdminCreateUserPasswordStdin(t *testing.T) {
	f := newFixture(t)
	d := "-data=" + f.data
	r := sbStdin(t, nil, "correct horse battery\n", "admin", "create-user", d, "--email", "cy@example.com", "--name", "Cy", "--password-stdin")
	if r.code != 0 {
		t.Fatalf("create-user --password-stdin: exit %d, stderr %q", r.code, r.stderr)
	}
	wantULID(t, "create-user --password-stdin", strings.TrimSpace(r.stdout))

	refuse := func(stdin, want string, args ...string) {
		t.Helper()
		r := sbStdin(t, nil, stdin, append([]string{"admin", "create-user", d, "--name", "Dee", "--password-stdin"}, args...)...)
		if r.code == 0 || !strings.Contains(r.stderr, want) || r.stdout != "" {
			t.Errorf("stdin %q %v: exit %d, stdout %q, stderr %q; want failure naming %q", stdin, args, r.code, r.stdout, r.stderr, want)
		}
	}
	refuse("", "no password", "--email", "dee@example.com")
	refuse("\n", "no password", "--email", "dee@example.com")
	refuse("short\n", "8 to 72 characters", "--email", "dee@example.com")
	refuse("correct horse battery\n", "exclude each other", "--email", "dee@example.com", "--password", "another password")

	s, err := store.Open(filepath.Join(f.data, "switchboard.db"), store.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	u, err := s.UserByEmail("cy@example.com")
	if err != nil || !store.CheckPassword(u, "correct horse battery") || store.CheckPassword(u, "correct horse battery\n") {
		t.Fatalf("user from --password-stdin: %v; want the password without its line ending", err)
	}
	if _, err := s.UserByEmail("dee@example.com"); err == nil {
		t.Fatal("a refused create-user created the user")
	}
}

// TestAdminSetWorkspaceAndCompact: set-workspace changes only the settings given and checks
// them; compact shrinks nothing it needs and leaves a file the server opens.
func TestAdminSetWorkspaceAndCompact(t *testing.T) {
	f := newFixture(t)
	d := "-data=" + f.data
	if got := ok(t, "admin", "set-workspace", d, "--workspace", f.ws, "--retention-days", "30"); got != f.ws {
		t.Fatalf("set-workspace printed %q, want the workspace id", got)
	}
	fails(t, "retentionDays", "admin", "set-workspace", d, "--workspace", f.ws, "--retention-days", "-1")
	fails(t, "give a setting to change", "admin", "set-workspace", d, "--workspace", f.ws)
	fails(t, "workspace", "admin", "set-workspace", d, "--workspace", "01JDX0000000000000000000AA", "--name", "X")
	if got := ok(t, "admin", "set-workspace", d, "--workspace", f.ws, "--name", "Acme Dental"); got != f.ws {
		t.Fatalf("set-workspace --name printed %q", got)
	}
	out := ok(t, "admin", "compact", d)
	if !strings.HasPrefix(out, "compacted ") || !strings.Contains(out, "bytes") {
		t.Fatalf("compact printed %q", out)
	}
	s, err := store.Open(filepath.Join(f.data, "switchboard.db"), store.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	w, err := s.Workspace(f.ws)
	if err != nil || w.Name != "Acme Dental" || w.RetentionDays != 30 {
		t.Fatalf("after compact the workspace is %+v, %v; want the name and the retention set", w, err)
	}
	fails(t, "no arguments", "admin", "compact", d, "extra")
}

// TestAdminListsAndWorkspaceSettings: list-* print one tab-separated row each, and
// set-workspace carries the keyword replies, greeting, quiet hours and time zone, checked.
func TestAdminListsAndWorkspaceSettings(t *testing.T) {
	f := newFixture(t)
	d := "-data=" + f.data
	rows := func(out string) [][]string {
		var r [][]string
		for _, line := range strings.Split(strings.TrimSpace(out), "\n") {
			r = append(r, strings.Split(line, "\t"))
		}
		return r
	}
	if ws := rows(ok(t, "admin", "list-workspaces", d)); len(ws) != 1 || ws[0][0] != f.ws || ws[0][1] != "Acme" {
		t.Errorf("list-workspaces = %q, want the one workspace: id, name", ws)
	}
	if us := rows(ok(t, "admin", "list-users", d)); len(us) != 1 || us[0][0] != f.user || us[0][1] != "ana@example.com" || us[0][3] != "superuser" {
		t.Errorf("list-users = %q, want id, email, name, superuser", us)
	}
	ok(t, "admin", "add-number", d, "--workspace", f.ws, "--phone", "+14155550177", "--name", "Slow", "--rate", "2")
	r := sb(t, nil, "admin", "list-numbers", d, "--workspace", f.ws)
	if r.code != 0 {
		t.Fatalf("list-numbers: exit %d, %s", r.code, r.stderr)
	}
	ns := rows(r.stdout)
	if len(ns) != 2 || ns[0][2] != "+14155550100" || ns[0][4] != "sandbox" || ns[0][5] != "default" || ns[0][6] != "active" ||
		ns[1][2] != "+14155550177" || ns[1][5] != "2" {
		t.Errorf("list-numbers = %q, want id, workspace, phone, name, carrier, rate, state", ns)
	}
	fails(t, "workspace not found", "admin", "list-numbers", d, "--workspace", "01JDX0000000000000000000AA")

	got := ok(t, "admin", "set-workspace", d, "--workspace", f.ws, "--stop-reply", "", "--help-reply", "Call 555-0100",
		"--voice-greeting", "Texts only, please.", "--quiet-hours", "21:00-08:00", "--time-zone", "America/Chicago")
	if got != f.ws {
		t.Fatalf("set-workspace printed %q", got)
	}
	fails(t, "quietHours", "admin", "set-workspace", d, "--workspace", f.ws, "--quiet-hours", "25:00-08:00")
	fails(t, "timeZone", "admin", "set-workspace", d, "--workspace", f.ws, "--time-zone", "Mars/Olympus")
	s, err := store.Open(filepath.Join(f.data, "switchboard.db"), store.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	w, _ := s.Workspace(f.ws)
	if w.KeywordReply(store.KeywordStop) != "" || w.KeywordReply(store.KeywordHelp) != "Call 555-0100" ||
		w.KeywordReply(store.KeywordStart) != "Acme: you are resubscribed and will get messages again. Reply STOP to unsubscribe." ||
		w.Greeting() != "Texts only, please." || w.QuietHours != "21:00-08:00" || w.TimeZone != "America/Chicago" {
		t.Errorf("workspace after set-workspace = %+v", w)
	}
}

func TestAdminCommands(t *testing.T) {
	f := newFixture(t)
	d := "-data=" + f.data
	if _, err := os.Stat(filepath.Join(f.data, "switchboard.db")); err != nil {
		t.Fatalf("the data directory was not created: %v", err)
	}

	// Bad input: non-zero exit, a message on stderr.
	fails(t, "E.164", "admin", "add-number", d, "--workspace", f.ws, "--phone", "415 555")
	fails(t, "--email", "admin", "create-user", d, "--name", "No Email")
	fails(t, "email", "admin", "create-user", d, "--email", "not-an-email", "--name", "X")
	fails(t, "already exists", "admin", "create-user", d, "--email", "ANA@example.com", "--name", "Dup")
	fails(t, "--name", "admin", "create-workspace", d)
	fails(t, "workspace not found", "admin", "add-member", d, "--workspace", "01J00000000000000000000000", "--user", f.user)
	fails(t, "user not found", "admin", "add-member", d, "--workspace", f.ws, "--user", "nobody")
	fails(t, "type", "admin", "add-property", d, "--workspace", f.ws, "--name", "x", "--type", "color")
	fails(t, "already exists", "admin", "add-property", d, "--workspace", f.ws, "--name", "plan", "--type", "text")
	fails(t, "user not found", "admin", "create-token", d, "--user", "01J00000000000000000000000")
	fails(t, "token not found", "admin", "revoke-token", d, "--token", "sbp_nope")
	fails(t, "--token", "admin", "revoke-token", d)
	fails(t, "unknown admin command", "admin", "frobnicate", d)
	fails(t, "flag provided but not defined", "admin", "create-workspace", d, "--colour", "red")
	fails(t, "unknown command", "nonsense")

	// import-contacts reports what it did; a re-run updates instead of duplicating.
	csv := filepath.Join(t.TempDir(), "contacts.csv")
	os.WriteFile(csv, []byte("firstName,lastName,phone,email,company,plan\nAna,Lima,+14155550001,ana@example.com,Acme,gold\nBo,,415 555,,,\n"), 0o600)
	r := sb(t, nil, "admin", "import-contacts", d, "--workspace", f.ws, csv)
	if r.code != 0 || !strings.Contains(r.stdout, "imported 1, updated 0, rejected 1") || !strings.Contains(r.stdout, "line 3") {
		t.Errorf("import: exit %d, stdout %q, stderr %q", r.code, r.stdout, r.stderr)
	}
	r = sb(t, nil, "admin", "import-contacts", d, "--workspace", f.ws, csv)
	if r.code != 0 || !strings.Contains(r.stdout, "imported 0, updated 1, rejected 1") {
		t.Errorf("re-import: exit %d, stdout %q", r.code, r.stdout)
	}
	fails(t, "no such file", "admin", "import-contacts", d, "--workspace", f.ws, filepath.Join(t.TempDir(), "missing.csv"))
	fails(t, "CSV", "admin", "import-contacts", d, "--workspace", f.ws)

	// revoke-token prints the token's id and the token stops working.
	id := ok(t, "admin", "revoke-token", d, "--token", f.token)
	wantULID(t, "revoke-token", id)
	fails(t, "token not found", "admin", "revoke-token", d, "--token", f.token)

	// SWITCHBOARD_DATA is the default data directory of admin commands.
	r = sb(t, []string{"SWITCHBOARD_DATA=" + f.data}, "admin", "create-workspace", "--name", "Env WS")
	if r.code != 0 {
		t.Fatalf("admin with SWITCHBOARD_DATA: %q", r.stderr)
	}
	s, err := store.Open(filepath.Join(f.data, "switchboard.db"), store.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	wss, _ := s.Workspaces()
	if len(wss) != 2 {
		t.Errorf("%d workspaces in the data directory, want 2", len(wss))
	}
	if c, err := s.ContactByPhone(f.ws, "+14155550001"); err != nil || c.Properties["plan"] != "gold" || c.Source != store.SourceImport {
		t.Errorf("imported contact %+v, %v", c, err)
	}
}
