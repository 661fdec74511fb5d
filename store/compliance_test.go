package store_test

import (
	"errors"
	"slices"
	"strings"
	"testing"
	"time"

	"switchboard/internal/testutil"
	"switchboard/store"
)

// Opt-out lifting: keyword and carrier opt-outs are the contact's own and refuse a lift; admin
// and api ones are lifted only with a confirmation and a reason, both recorded.
func TestLiftOptOutRules(t *testing.T) {
	clock := testutil.NewClock(time.Date(2026, 7, 1, 9, 0, 0, 0, time.UTC))
	f := newFixtureOn(t, openStore(t, store.Options{Now: clock.Now}))
	cases := []struct {
		phone, reason string
		liftable      bool
	}{
		{"+14155550201", store.OptOutKeyword, false},
		{"+14155550202", store.OptOutCarrier, false},
		{"+14155550203", store.OptOutAdmin, true},
		{"+14155550204", store.OptOutAPI, true},
	}
	for _, tc := range cases {
		if _, _, err := f.s.CreateOptOut(f.ws, "", tc.phone, tc.reason); err != nil {
			t.Fatal(err)
		}
		if got := store.LiftableByAdmin(tc.reason); got != tc.liftable {
			t.Errorf("LiftableByAdmin(%s) = %v", tc.reason, got)
		}
		if _, err := f.s.LiftOptOut(f.ws, f.user.ID, tc.phone, false, "asked on the phone"); !hasField(err, "confirm") {
			t.Errorf("%s: lift without confirmation = %v, want a confirm error", tc.reason, err)
		}
		if _, err := f.s.LiftOptOut(f.ws, f.user.ID, tc.phone, true, "  "); !hasField(err, "reason") {
			t.Errorf("%s: lift without reason = %v, want a reason error", tc.reason, err)
		}
		clock.Advance(time.Minute)
		l, err := f.s.LiftOptOut(f.ws, f.user.ID, tc.phone, true, "asked on the phone")
		out, _ := f.s.IsOptedOut(f.ws, tc.phone)
		if !tc.liftable {
			if !errors.Is(err, store.ErrForbidden) || !out {
				t.Errorf("%s: lift = %v, opted out %v; want forbidden and still opted out", tc.reason, err, out)
			}
			continue
		}
		if err != nil || out {
			t.Fatalf("%s: lift = %v, opted out %v; want lifted", tc.reason, err, out)
		}
		if l.UserID != f.user.ID || l.Reason != "asked on the phone" || !l.Confirmed || !l.At.Equal(clock.Now()) || l.OptOutReason != tc.reason {
			t.Errorf("%s: lift record = %+v", tc.reason, l)
		}
		lifts, _ := f.s.OptOutLifts(f.ws, tc.phone)
		if len(lifts) != 1 || lifts[0].ID != l.ID {
			t.Errorf("%s: OptOutLifts = %+v", tc.reason, lifts)
		}
	}
	if _, err := f.s.LiftOptOut(f.ws, f.user.ID, "+14155550299", true, "x"); !errors.Is(err, store.ErrNotFound) {
		t.Errorf("lift of a number not opted out = %v, want not found", err)
	}
	// The contact's own START lifts a keyword opt-out and records consent granted.
	if _, err := f.s.ReceiveMessage(f.ws, store.InboundMessage{From: "+14155550201", To: f.number, Text: "start", Keyword: store.KeywordStart}); err != nil {
		t.Fatal(err)
	}
	if out, _ := f.s.IsOptedOut(f.ws, "+14155550201"); out {
		t.Error("START did not lift the keyword opt-out")
	}
	latest, ok, err := f.s.LatestConsent(f.ws, "+14155550201")
	if err != nil || !ok || latest.Status != store.ConsentGranted || latest.Source != store.ConsentKeyword {
		t.Errorf("LatestConsent after START = %+v %v %v; want granted by keyword", latest, ok, err)
	}
	hist, _ := f.s.Consents(f.ws, "+14155550201")
	if len(hist) != 2 || hist[1].Status != store.ConsentRevoked || hist[1].Source != store.ConsentKeyword {
		t.Errorf("history = %+v; want granted after revoked", hist)
	}
}

func hasField(err error, field string) bool {
	var v store.ValidationError
	if !errors.As(err, &v) {
		return false
	}
	for _, fe := range v {
		if fe.Field == field {
			return true
		}
	}
	return false
}

func TestConsentValidation(t *testing.T) {
	clock := testutil.NewClock(time.Date(2026, 7, 1, 9, 0, 0, 0, time.UTC))
	f := newFixtureOn(t, openStore(t, store.Options{Now: clock.Now}))
	ok := store.ConsentInput{At: "2026-06-30T10:00:00Z", Source: "form", Method: "Web form", Evidence: "IP 203.0.113.5"}
	bad := []struct {
		in    store.ConsentInput
		field string
	}{
		{store.ConsentInput{At: "yesterday", Source: "form"}, "consent.at"},
		{store.ConsentInput{At: "", Source: "form"}, "consent.at"},
		{store.ConsentInput{At: "2026-07-02T00:00:00Z", Source: "form"}, "consent.at"},
		{store.ConsentInput{At: "2026-06-30T10:00:00Z", Source: "fax"}, "consent.source"},
		{store.ConsentInput{At: "2026-06-30T10:00:00Z", Source: "api", Evidence: strings.Repeat("é", 1001)}, "consent.evidence"},
	}
	for _, tc := range bad {
		if errs := f.s.CheckConsent("consent.", tc.in); !hasField(errs, tc.field) {
			t.Errorf("CheckConsent(%+v) = %v, want %s", tc.in, errs, tc.field)
		}
	}
	if errs := f.s.CheckConsent("consent.", store.ConsentInput{At: ok.At, Source: "api", Evidence: strings.Repeat("é", 1000)}); errs != nil {
		t.Errorf("1,000 characters of evidence refused: %v", errs)
	}
	c, err := f.s.AddConsent(f.ws, f.user.ID, "+14155550300", ok)
	if err != nil || c.RecordedBy != f.user.ID || c.Status != store.ConsentGranted || c.Source != "form" {
		t.Fatalf("AddConsent = %+v, %v", c, err)
	}
	if _, _, err := f.s.CreateOptOut(f.ws, f.user.ID, "+14155550300", store.OptOutAdmin); err != nil {
		t.Fatal(err)
	}
	latest, _, _ := f.s.LatestConsent(f.ws, "+14155550300")
	if latest.Status != store.ConsentRevoked || latest.Source != store.ConsentAdmin || latest.RecordedBy != f.user.ID {
		t.Errorf("latest after an admin opt-out = %+v; want revoked by admin", latest)
	}
}

// FuzzCheckConsent: never a panic; an accepted entry has a known source and short evidence.
func FuzzCheckConsent(f *testing.F) {
	f.Add("2026-06-30T10:00:00Z", "form", "x")
	f.Add("2026-13-30T10:00:00Z", "fax", "")
	f.Add("\xff", "", strings.Repeat("a", 1001))
	s := openStore(f, store.Options{Now: func() time.Time { return time.Date(2026, 7, 1, 0, 0, 0, 0, time.UTC) }})
	f.Fuzz(func(t *testing.T, at, source, evidence string) {
		errs := s.CheckConsent("", store.ConsentInput{At: at, Source: source, Evidence: evidence})
		if errs == nil && (!slices.Contains(store.ConsentSources, strings.TrimSpace(source)) || len([]rune(strings.TrimSpace(evidence))) > 1000) {
			t.Errorf("accepted source %q evidence %d", source, len(evidence))
		}
	})
}

// A text asking to stop in other words labels its conversation in its own transaction and opts
// no one out.
func TestPossibleOptOutLabel(t *testing.T) {
	f := newFixture(t)
	r, err := f.s.ReceiveMessage(f.ws, store.InboundMessage{From: "+14155550400", To: f.number, Text: "stop texting me", PossibleOptOut: true})
	if err != nil {
		t.Fatal(err)
	}
	c, err := f.s.Conversation(f.ws, r.Message.ConversationID)
	if err != nil || !slices.Contains(c.Labels, store.LabelPossibleOptOut) {
		t.Errorf("labels = %v, %v; want %q", c.Labels, err, store.LabelPossibleOptOut)
	}
	if out, _ := f.s.IsOptedOut(f.ws, "+14155550400"); out {
		t.Error("a possible opt-out opted the number out")
	}
	// A second such text does not add the label twice.
	r, _ = f.s.ReceiveMessage(f.ws, store.InboundMessage{From: "+14155550400", To: f.number, Text: "remove me", PossibleOptOut: true})
	c, _ = f.s.Conversation(f.ws, r.Message.ConversationID)
	if n := len(c.Labels); n != 1 {
		t.Errorf("labels after two flagged texts = %v", c.Labels)
	}
}

// The import's consentAt, consentSource and consentMethod columns add a granted entry; a bad
// value rejects the row, named by its column.
func TestImportConsentColumns(t *testing.T) {
	clock := testutil.NewClock(time.Date(2026, 7, 1, 9, 0, 0, 0, time.UTC))
	f := newFixtureOn(t, openStore(t, store.Options{Now: clock.Now}))
	csv := "phone,consentAt,consentSource,consentMethod\n" +
		"+14155550601,2026-01-02T03:04:05Z,form,Signup sheet\n" +
		"+14155550602,2026-01-02T03:04:05Z,,\n" +
		"+14155550603,2027-01-01T00:00:00Z,form,\n" +
		"+14155550604,2026-01-02T03:04:05Z,fax,\n" +
		"+14155550605,,,\n"
	rep, err := f.s.ImportContacts(f.ws, strings.NewReader(csv), nil)
	if err != nil {
		t.Fatal(err)
	}
	if rep.Imported != 3 || rep.Rejected != 2 {
		t.Fatalf("report %+v; want 3 imported, 2 rejected", rep)
	}
	if !strings.Contains(rep.Errors[0].Reason, "consentAt") || !strings.Contains(rep.Errors[1].Reason, "consentSource") {
		t.Errorf("reasons %+v; want consentAt then consentSource named", rep.Errors)
	}
	c, ok, _ := f.s.LatestConsent(f.ws, "+14155550601")
	if !ok || c.Source != "form" || c.Method != "Signup sheet" || c.Status != store.ConsentGranted {
		t.Errorf("consent of the first row = %+v %v", c, ok)
	}
	if c, ok, _ := f.s.LatestConsent(f.ws, "+14155550602"); !ok || c.Source != store.ConsentImport {
		t.Errorf("consent without a source = %+v %v; want source import", c, ok)
	}
	if _, ok, _ := f.s.LatestConsent(f.ws, "+14155550605"); ok {
		t.Error("a row with empty consent columns recorded consent")
	}
}
