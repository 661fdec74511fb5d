package store_test

import (
	"strings"
	"testing"

	"switchboard/store"
)

func TestGuessNumberType(t *testing.T) {
	for phone, want := range map[string]string{
		"+18005550100":  store.NumberTollFree,
		"+18335550100":  store.NumberTollFree,
		"+18445550100":  store.NumberTollFree,
		"+18555550100":  store.NumberTollFree,
		"+18665550100":  store.NumberTollFree,
		"+18775550100":  store.NumberTollFree,
		"+18885550100":  store.NumberTollFree,
		"+18995550100":  store.NumberLocal, // 899 is no toll-free code
		"+14155550100":  store.NumberLocal,
		"+448005550100": store.NumberLocal, // a UK 800 number is not NANP toll-free
		"+12345":        store.NumberShortCode,
		"+123456":       store.NumberShortCode,
		"+1234567":      store.NumberLocal,
	} {
		if got := store.GuessNumberType(phone); got != want {
			t.Errorf("GuessNumberType(%s) = %s, want %s", phone, got, want)
		}
	}
}

func TestNumberRegistration(t *testing.T) {
	f := newFixture(t)
	n, err := f.s.CreateNumber(f.ws, store.NumberInput{Phone: "+18885550100", Carrier: store.ProviderTwilio})
	if err != nil {
		t.Fatal(err)
	}
	// No registration recorded: type guessed, unregistered, and a warning for compose pages.
	if n.NumberType() != store.NumberTollFree || n.RegistrationStatus() != store.RegUnregistered || !n.NeedsRegistration() {
		t.Errorf("new toll-free number: %s %s needs %v, want toll-free unregistered needing registration", n.NumberType(), n.RegistrationStatus(), n.NeedsRegistration())
	}
	if w := n.RegistrationWarning(); !strings.Contains(w, "toll-free") || !strings.Contains(w, "unregistered") {
		t.Errorf("warning %q, want it to name the type and status", w)
	}
	n, err = f.s.SetNumberRegistration(f.ws, n.ID, store.NumberRegistration{Status: store.RegApproved, VerificationID: "  TF-123  "})
	if err != nil {
		t.Fatal(err)
	}
	if n.NeedsRegistration() || n.RegistrationWarning() != "" || n.Registration.VerificationID != "TF-123" {
		t.Errorf("approved: needs %v warning %q id %q, want no warning and the id trimmed", n.NeedsRegistration(), n.RegistrationWarning(), n.Registration.VerificationID)
	}
	got, err := f.s.Number(f.ws, n.ID)
	if err != nil || got.RegistrationStatus() != store.RegApproved || got.NumberType() != store.NumberTollFree {
		t.Errorf("stored: %+v %v", got.Registration, err)
	}
	// A short code is never warned about; nor is a sandbox number.
	sc, err := f.s.CreateNumber(f.ws, store.NumberInput{Phone: "+15005", Carrier: store.ProviderTwilio})
	if err != nil || sc.NumberType() != store.NumberShortCode || sc.NeedsRegistration() {
		t.Errorf("short code: %s needs %v, %v", sc.NumberType(), sc.NeedsRegistration(), err)
	}
	if sandbox := (store.PhoneNumber{Phone: testFrom, Carrier: store.ProviderSandbox}); sandbox.NeedsRegistration() {
		t.Error("a sandbox number needs registration")
	}

	// Bad input names its field and changes nothing.
	_, err = f.s.SetNumberRegistration(f.ws, n.ID, store.NumberRegistration{Type: "mobile", Status: "done", BrandID: strings.Repeat("B", 65)})
	wantFields(t, err, "brandId", "registrationStatus", "type")
	_, err = f.s.CreateNumber(f.ws, store.NumberInput{Phone: "+14155550999", Registration: &store.NumberRegistration{CampaignID: "a\nb"}})
	wantFields(t, err, "campaignId")
	_, err = f.s.SetNumberRegistration(f.ws, "01JDX0000000000000000000AA", store.NumberRegistration{})
	wantKind(t, err, store.ErrNotFound, "number not found")
}

func FuzzNumberRegistration(f *testing.F) {
	f.Add("local", "approved", "BN123", "CM456", "")
	f.Add("toll-free", "pending", "", "", "TF\x00")
	f.Add("", "", "", "", "")
	f.Add("short-code", "rejected", "é", "\t", "x")
	f.Fuzz(func(t *testing.T, typ, status, brand, campaign, verification string) {
		r, err := store.NormalizeRegistration(store.NumberRegistration{Type: typ, Status: status, BrandID: brand, CampaignID: campaign, VerificationID: verification})
		if err == nil {
			n := store.PhoneNumber{Phone: "+14155550100", Carrier: store.ProviderTwilio, Registration: &r}
			switch n.NumberType() {
			case store.NumberLocal, store.NumberTollFree, store.NumberShortCode:
			default:
				t.Fatalf("accepted type %q", n.NumberType())
			}
			switch n.RegistrationStatus() {
			case store.RegUnregistered, store.RegPending, store.RegApproved, store.RegRejected:
			default:
				t.Fatalf("accepted status %q", n.RegistrationStatus())
			}
		}
	})
}
