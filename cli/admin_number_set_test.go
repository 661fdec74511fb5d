package cli

import (
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"switchboard/store"
)

// The daily cap from add-number and set-number, the state-hours switch from set-workspace,
// and their bad input.
func TestAdminDailyCapAndStateHours(t *testing.T) {
	f := newFixture(t)
	d := "-data=" + f.data
	fails(t, "--daily-cap", "admin", "add-number", d, "--workspace", f.ws, "--phone", "+14155550178", "--daily-cap", "-1")
	fails(t, "not a whole number", "admin", "add-number", d, "--workspace", f.ws, "--phone", "+14155550178", "--daily-cap", "lots")
	id := ok(t, "admin", "add-number", d, "--workspace", f.ws, "--phone", "+14155550178", "--daily-cap", "1000")
	fails(t, "--daily-cap", "admin", "set-number", d, "--number", "+14155550178", "--daily-cap", "-5")
	fails(t, "nothing to change", "admin", "set-number", d, "--number", "+14155550178")
	fails(t, "no number", "admin", "set-number", d, "--number", "+14155550999", "--daily-cap", "5")
	if got := ok(t, "admin", "set-number", d, "--number", "+14155550100", "--daily-cap", "250"); got == "" {
		t.Fatal("set-number printed nothing")
	}
	if got := strings.Split(ok(t, "admin", "set-number", d, "--number", id, "--daily-cap", "0"), "\t"); got[0] != id || got[len(got)-1] != "0" {
		t.Fatalf("set-number by id printed %q, want %s", got, id)
	}
	fails(t, "on or off", "admin", "set-workspace", d, "--workspace", f.ws, "--state-hours", "maybe")
	ok(t, "admin", "set-workspace", d, "--workspace", f.ws, "--state-hours", "on")

	s, err := store.Open(filepath.Join(f.data, "switchboard.db"), store.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	caps := map[string]int{}
	ns, _ := s.Numbers(f.ws)
	for _, n := range ns {
		caps[n.Phone] = n.DailyCap
	}
	if caps["+14155550100"] != 250 || caps["+14155550178"] != 0 {
		t.Errorf("daily caps %v, want 250 on +14155550100 and none on +14155550178", caps)
	}
	if w, _ := s.Workspace(f.ws); !w.StateHours {
		t.Error("set-workspace --state-hours on left state hours off")
	}
}

// FuzzParseDailyCap: a cap is accepted exactly when it is a whole number from 0 to the most a
// number may have, and the error of any other says what is expected.
func FuzzParseDailyCap(f *testing.F) {
	for _, s := range []string{"0", "1000", "-1", "ten", " 5 ", "99999999999999999999", ""} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		n, err := parseDailyCap(s)
		want, convErr := strconv.Atoi(strings.TrimSpace(s))
		valid := convErr == nil && want >= 0 && want <= store.MaxDailyCap
		if valid != (err == nil) || (valid && n != want) {
			t.Fatalf("parseDailyCap(%q) = %d, %v", s, n, err)
		}
		if err != nil && !strings.Contains(err.Error(), "texts a day") {
			t.Fatalf("parseDailyCap(%q) error %q does not say what is expected", s, err)
		}
	})
}
