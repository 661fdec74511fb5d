package cli

import (
	"path/filepath"
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
	fails(t, "give a setting", "admin", "set-number", d, "--number", "+14155550178")
	fails(t, "no number", "admin", "set-number", d, "--number", "+14155550999", "--daily-cap", "5")
	if got := ok(t, "admin", "set-number", d, "--number", "+14155550100", "--daily-cap", "250"); got == "" {
		t.Fatal("set-number printed nothing")
	}
	if got := ok(t, "admin", "set-number", d, "--number", id, "--daily-cap", "0"); got != id {
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
