package tzlist

import (
	"slices"
	"testing"
	"time"
	_ "time/tzdata" // as the server loads them, on a host without /usr/share/zoneinfo too
)

// Every listed name loads (the embedded tzdata included), in order, with the zones a practice
// in the US or Europe looks for.
func TestNamesLoad(t *testing.T) {
	if !slices.IsSorted(names) || len(names) < 300 {
		t.Fatalf("%d names, sorted %v; want the IANA regions' zones in order", len(names), slices.IsSorted(names))
	}
	for _, want := range []string{"UTC", "America/New_York", "America/Los_Angeles", "Europe/London", "Asia/Kolkata", "Australia/Sydney"} {
		if !slices.Contains(names, want) {
			t.Errorf("%s missing", want)
		}
	}
	for _, n := range names {
		if _, err := time.LoadLocation(n); err != nil {
			t.Errorf("%s does not load: %v", n, err)
		}
	}
}
