package cli

import (
	"strings"
	"testing"
)

// TestAdminNumberRegistration: add-number takes a number's type and registration, set-number
// changes them later (flags not given keep their values), and bad values are refused.
func TestAdminNumberRegistration(t *testing.T) {
	f := newFixture(t)
	d := "-data=" + f.data
	id := ok(t, "admin", "add-number", d, "--workspace", f.ws, "--phone", "+14155550166", "--registration", "pending",
		"--brand-id", "BN0001", "--campaign-id", "CM0001")
	wantULID(t, "add-number", id)

	// Only --registration given: the type stays guessed, the ids stay.
	got := strings.Split(ok(t, "admin", "set-number", d, "--workspace", f.ws, "--number", id, "--registration", "approved"), "\t")
	if want := []string{id, "+14155550166", "local", "approved", "BN0001", "CM0001", "", "0"}; strings.Join(got, "|") != strings.Join(want, "|") {
		t.Errorf("set-number = %q, want %q", got, want)
	}
	// By phone, a toll-free number of the fixture's defaults: guessed toll-free, unregistered.
	ok(t, "admin", "add-number", d, "--workspace", f.ws, "--phone", "+18885550100")
	got = strings.Split(ok(t, "admin", "set-number", d, "--workspace", f.ws, "--phone", "+18885550100", "--verification-id", "TFV-9"), "\t")
	if got[2] != "toll-free" || got[3] != "unregistered" || got[6] != "TFV-9" {
		t.Errorf("set-number --phone = %q, want toll-free unregistered with the verification id", got)
	}

	fails(t, "registrationStatus", "admin", "set-number", d, "--workspace", f.ws, "--number", id, "--registration", "done")
	fails(t, "type", "admin", "add-number", d, "--workspace", f.ws, "--phone", "+14155550167", "--type", "mobile")
	fails(t, "nothing to change", "admin", "set-number", d, "--workspace", f.ws, "--number", id)
	fails(t, "not in workspace", "admin", "set-number", d, "--workspace", f.ws, "--phone", "+14155550999", "--registration", "approved")
	fails(t, "missing --number or --phone", "admin", "set-number", d, "--workspace", f.ws, "--registration", "approved")
}
