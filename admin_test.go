package main

import (
	"path/filepath"
	"strings"
	"testing"

	"switchboard/store"
)

// TestAdminOAuthCommands runs the OAuth client and grant commands as an operator would.
func TestAdminOAuthCommands(t *testing.T) {
	f := newFixture(t)
	d := "-data=" + f.data

	// Confidential: the id on line 1, the secret on line 2 (DESIGN §2), nothing else on stdout.
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
	fails(t, "", "admin", "create-oauth-client", d, "--name", "Bad", "--redirect-uri", "not a url")

	list := sb(t, nil, "admin", "list-oauth-clients", d)
	if list.code != 0 || !strings.Contains(list.stdout, conf+"\tconfidential\tZapier") || !strings.Contains(list.stdout, pub+"\tpublic\tDesktop") {
		t.Fatalf("list-oauth-clients: exit %d, stdout %q; want both clients with their kinds", list.code, list.stdout)
	}

	rotated := ok(t, "admin", "rotate-oauth-secret", d, "--client", conf)
	if rotated == secret || len(rotated) < 40 {
		t.Fatalf("rotate-oauth-secret printed %q, want a new secret (old %q)", rotated, secret)
	}
	fails(t, "", "admin", "rotate-oauth-secret", d, "--client", pub) // a public client has no secret

	if got := ok(t, "admin", "delete-oauth-client", d, "--client", pub); got != pub {
		t.Fatalf("delete-oauth-client printed %q, want %s", got, pub)
	}
	if list := sb(t, nil, "admin", "list-oauth-clients", d); strings.Contains(list.stdout, pub) {
		t.Fatalf("deleted client still listed: %q", list.stdout)
	}
	fails(t, "", "admin", "delete-oauth-client", d, "--client", pub)

	// No app connected yet: an empty list, and revoking an unknown grant is an error.
	if g := sb(t, nil, "admin", "list-grants", d, "--user", f.user); g.code != 0 || g.stdout != "" {
		t.Fatalf("list-grants with none: exit %d, stdout %q; want success and nothing", g.code, g.stdout)
	}
	fails(t, "--user", "admin", "list-grants", d)
	fails(t, "", "admin", "revoke-grant", d, "--grant", "01JDX0000000000000000000AA")
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
	fails(t, "", "admin", "redeliver", d, "--delivery", "01JDX0000000000000000000AA")

	if got := ok(t, "admin", "enable-subscription", d, "--subscription", sub.ID); got != sub.ID {
		t.Fatalf("enable-subscription printed %q, want %s", got, sub.ID)
	}
	fails(t, "", "admin", "enable-subscription", d, "--subscription", "01JDX0000000000000000000AA")
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
	fails(t, "--name or --retention-days", "admin", "set-workspace", d, "--workspace", f.ws)
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
