package store_test

import (
	"encoding/csv"
	"slices"
	"strings"
	"testing"
	"time"

	"switchboard/internal/testutil"
	"switchboard/store"
)

// TestWriteContactsCSVColumns: every column of the export in order, one per custom property,
// and the consent columns from the number's consent history — its latest entry, whatever the
// order the entries were recorded in.
func TestWriteContactsCSVColumns(t *testing.T) {
	clock := testutil.NewClock(time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC))
	f := newFixtureOn(t, openStore(t, store.Options{Now: clock.Now}))
	for _, p := range []struct{ name, typ string }{{"plan", store.PropertyText}, {"score", store.PropertyNumber}} {
		if _, err := f.s.AddProperty(f.ws, p.name, p.typ); err != nil {
			t.Fatal(err)
		}
	}
	importCSV(t, f, "firstName,lastName,phone,email,company,timeZone,groups,plan,score,consentAt,consentSource,consentMethod\n"+
		"Ana,Lima,+14155550101,ana@example.com,Acme,America/Chicago,Gold;VIP,pro,42,2026-01-05T09:00:00Z,form,Web form\n"+
		"Bo,,+14155550102,,,,,,,,,\n")
	ana, _ := f.s.ContactByPhone(f.ws, "+14155550101")
	bo, _ := f.s.ContactByPhone(f.ws, "+14155550102")
	// A later grant recorded first, then an older one: the export shows the latest by time.
	if _, err := f.s.AddConsent(f.ws, f.user.ID, bo.Phone(), store.ConsentInput{At: "2026-02-01T10:00:00Z", Source: store.ConsentAdmin}); err != nil {
		t.Fatal(err)
	}
	if _, err := f.s.AddConsent(f.ws, f.user.ID, bo.Phone(), store.ConsentInput{At: "2025-12-01T10:00:00Z", Source: store.ConsentImport}); err != nil {
		t.Fatal(err)
	}
	// Ana opts out later: the opt-out records a revoked entry, which is now her current one.
	clock.Advance(time.Hour)
	if _, _, err := f.s.CreateOptOut(f.ws, "", ana.Phone(), store.OptOutAPI); err != nil {
		t.Fatal(err)
	}
	var out strings.Builder
	if err := f.s.WriteContactsCSV(&out, f.ws, store.ContactFilter{}, nil); err != nil {
		t.Fatal(err)
	}
	rows, err := csv.NewReader(strings.NewReader(out.String())).ReadAll()
	if err != nil || len(rows) != 3 {
		t.Fatalf("export: %q %v", rows, err)
	}
	wantHeader := []string{"id", "firstName", "lastName", "phone", "email", "company", "timeZone", "groups", "plan", "score",
		"optedOut", "optOutReason", "optedOutAt", "consentStatus", "consentAt", "consentSource", "createdAt"}
	if !slices.Equal(rows[0], wantHeader) {
		t.Fatalf("header %q\nwant   %q", rows[0], wantHeader)
	}
	optedAt := store.FormatTime(clock.Now())
	created := store.FormatTime(ana.CreatedAt)
	want := map[string][]string{
		ana.ID: {ana.ID, "Ana", "Lima", "+14155550101", "ana@example.com", "Acme", "America/Chicago", "Gold;VIP", "pro", "42",
			"true", "api", optedAt, "revoked", optedAt, "api", created},
		bo.ID: {bo.ID, "Bo", "", "+14155550102", "", "", "", "", "", "",
			"false", "", "", "granted", "2026-02-01T10:00:00.000Z", "admin", store.FormatTime(bo.CreatedAt)},
	}
	for _, r := range rows[1:] {
		if w := want[r[0]]; !slices.Equal(r, w) {
			t.Errorf("row\n got %q\nwant %q", r, w)
		}
	}
}
