package store_test

import (
	"testing"
	"time"

	"switchboard/store"
)

// The state of every rule, read from the area code, and each window's both sides, in the
// recipient's own zone. 2026-01-14 is a Wednesday, 01-17 a Saturday, 01-18 a Sunday.
func TestCallingRuleWindows(t *testing.T) {
	type at struct{ d, h, m, s int }
	for _, tc := range []struct {
		state, phone string
		zone         string
		at           at
		held         bool
		until        at // the day and time the window opens, when held
		label        string
	}{
		// Default (California): 08:00–21:00 every day.
		{"CA", "+14155550123", "America/Los_Angeles", at{14, 7, 59, 59}, true, at{14, 8, 0, 0}, "California"},
		{"CA", "+14155550123", "America/Los_Angeles", at{14, 8, 0, 0}, false, at{}, ""},
		{"CA", "+14155550123", "America/Los_Angeles", at{14, 20, 59, 59}, false, at{}, ""},
		{"CA", "+14155550123", "America/Los_Angeles", at{14, 21, 0, 0}, true, at{15, 8, 0, 0}, "California"},
		{"CA", "+14155550123", "America/Los_Angeles", at{18, 7, 0, 0}, true, at{18, 8, 0, 0}, "California"},
		// FL, OK, MD, MS, NJ: 08:00–20:00.
		{"FL", "+13055550123", "America/New_York", at{14, 7, 59, 59}, true, at{14, 8, 0, 0}, "Florida"},
		{"FL", "+13055550123", "America/New_York", at{14, 19, 59, 59}, false, at{}, ""},
		{"FL", "+13055550123", "America/New_York", at{14, 20, 0, 0}, true, at{15, 8, 0, 0}, "Florida"},
		{"OK", "+14055550123", "America/Chicago", at{14, 8, 0, 0}, false, at{}, ""},
		{"OK", "+14055550123", "America/Chicago", at{14, 20, 0, 0}, true, at{15, 8, 0, 0}, "Oklahoma"},
		{"MD", "+14105550123", "America/New_York", at{14, 7, 59, 0}, true, at{14, 8, 0, 0}, "Maryland"},
		{"MD", "+14105550123", "America/New_York", at{14, 20, 0, 0}, true, at{15, 8, 0, 0}, "Maryland"},
		{"MS", "+16015550123", "America/Chicago", at{14, 19, 59, 59}, false, at{}, ""},
		{"MS", "+16015550123", "America/Chicago", at{14, 20, 0, 0}, true, at{15, 8, 0, 0}, "Mississippi"},
		{"NJ", "+12015550123", "America/New_York", at{14, 7, 59, 59}, true, at{14, 8, 0, 0}, "New Jersey"},
		{"NJ", "+12015550123", "America/New_York", at{14, 20, 0, 0}, true, at{15, 8, 0, 0}, "New Jersey"},
		// CT: 09:00–20:00.
		{"CT", "+12035550123", "America/New_York", at{14, 8, 59, 59}, true, at{14, 9, 0, 0}, "Connecticut"},
		{"CT", "+12035550123", "America/New_York", at{14, 9, 0, 0}, false, at{}, ""},
		{"CT", "+12035550123", "America/New_York", at{14, 19, 59, 59}, false, at{}, ""},
		{"CT", "+12035550123", "America/New_York", at{14, 20, 0, 0}, true, at{15, 9, 0, 0}, "Connecticut"},
		// TX: 09:00–21:00 Monday–Saturday, 12:00–21:00 Sunday.
		{"TX", "+12145550123", "America/Chicago", at{14, 8, 59, 59}, true, at{14, 9, 0, 0}, "Texas, Monday–Saturday"},
		{"TX", "+12145550123", "America/Chicago", at{14, 20, 59, 59}, false, at{}, ""},
		{"TX", "+12145550123", "America/Chicago", at{17, 9, 0, 0}, false, at{}, ""},
		{"TX", "+12145550123", "America/Chicago", at{17, 21, 0, 0}, true, at{18, 12, 0, 0}, "Texas, Sunday"},
		{"TX", "+12145550123", "America/Chicago", at{18, 9, 0, 0}, true, at{18, 12, 0, 0}, "Texas, Sunday"},
		{"TX", "+12145550123", "America/Chicago", at{18, 11, 59, 59}, true, at{18, 12, 0, 0}, "Texas, Sunday"},
		{"TX", "+12145550123", "America/Chicago", at{18, 12, 0, 0}, false, at{}, ""},
		{"TX", "+12145550123", "America/Chicago", at{18, 21, 0, 0}, true, at{19, 9, 0, 0}, "Texas, Monday–Saturday"},
		// RI: 09:00–18:00 weekdays, 10:00–17:00 weekends.
		{"RI", "+14015550123", "America/New_York", at{14, 8, 59, 59}, true, at{14, 9, 0, 0}, "Rhode Island, weekday"},
		{"RI", "+14015550123", "America/New_York", at{14, 17, 59, 59}, false, at{}, ""},
		{"RI", "+14015550123", "America/New_York", at{14, 18, 0, 0}, true, at{15, 9, 0, 0}, "Rhode Island, weekday"},
		{"RI", "+14015550123", "America/New_York", at{16, 18, 0, 0}, true, at{17, 10, 0, 0}, "Rhode Island, weekend"},
		{"RI", "+14015550123", "America/New_York", at{17, 9, 59, 59}, true, at{17, 10, 0, 0}, "Rhode Island, weekend"},
		{"RI", "+14015550123", "America/New_York", at{17, 10, 0, 0}, false, at{}, ""},
		{"RI", "+14015550123", "America/New_York", at{18, 16, 59, 59}, false, at{}, ""},
		{"RI", "+14015550123", "America/New_York", at{18, 17, 0, 0}, true, at{19, 9, 0, 0}, "Rhode Island, weekday"},
		// Other +1 numbers (Canada, toll-free) keep the default hours.
		{"ON", "+14165550123", "America/Toronto", at{14, 7, 0, 0}, true, at{14, 8, 0, 0}, "calling hours"},
		{"ON", "+14165550123", "America/Toronto", at{14, 20, 0, 0}, false, at{}, ""},
	} {
		rule, ok := store.CallingRuleFor(tc.phone)
		if !ok {
			t.Fatalf("%s %s: no calling rule", tc.state, tc.phone)
		}
		loc := mustZone(t, tc.zone)
		if got := store.ContactLocation("", tc.phone, nil, time.Date(2026, 1, 14, 12, 0, 0, 0, time.UTC)); got.String() != tc.zone {
			t.Errorf("%s: zone %s, want %s", tc.phone, got, tc.zone)
		}
		now := time.Date(2026, 1, tc.at.d, tc.at.h, tc.at.m, tc.at.s, 0, loc)
		open, label, held := rule.Until(now, loc)
		if held != tc.held {
			t.Errorf("%s at %s: held %v, want %v", tc.state, now.Format("Mon 15:04:05"), held, tc.held)
			continue
		}
		if !held {
			continue
		}
		want := time.Date(2026, 1, tc.until.d, tc.until.h, tc.until.m, 0, 0, loc)
		if !open.Equal(want) || label != tc.label {
			t.Errorf("%s at %s: held until %s (%q), want %s (%q)", tc.state, now.Format("Mon 15:04:05"),
				open.In(loc).Format("Mon 15:04"), label, want.Format("Mon 15:04"), tc.label)
		}
	}
	if _, ok := store.CallingRuleFor("+447700900123"); ok {
		t.Error("a UK number has a US calling rule")
	}
}

// Across the change to daylight time (Sunday 2026-03-08, 02:00 CST → 03:00 CDT) the Texas
// Sunday window still opens at 12:00 local, now CDT.
func TestCallingRuleDST(t *testing.T) {
	rule, _ := store.CallingRuleFor("+12145550123")
	chi := mustZone(t, "America/Chicago")
	at := time.Date(2026, 3, 7, 22, 0, 0, 0, chi) // Saturday 22:00 CST
	open, label, held := rule.Until(at, chi)
	if want := time.Date(2026, 3, 8, 17, 0, 0, 0, time.UTC); !held || !open.Equal(want) || label != "Texas, Sunday" {
		t.Fatalf("Saturday 22:00 CST: held %v until %s (%s), want until 12:00 CDT (17:00 UTC)", held, open.UTC(), label)
	}
	if open.In(chi).Format("15:04 MST") != "12:00 CDT" {
		t.Errorf("opens %s, want 12:00 CDT", open.In(chi).Format("15:04 MST"))
	}
	// A week before, in standard time, the same window is 18:00 UTC.
	open, _, _ = rule.Until(time.Date(2026, 3, 1, 3, 0, 0, 0, chi), chi)
	if want := time.Date(2026, 3, 1, 18, 0, 0, 0, time.UTC); !open.Equal(want) {
		t.Errorf("Sunday 03:00 CST: until %s, want %s", open.UTC(), want)
	}
}

// BenchmarkCallingRule is the per-copy cost of the state rule: the area code's state (cached)
// and the window at an instant.
func BenchmarkCallingRule(b *testing.B) {
	chi, _ := time.LoadLocation("America/Chicago")
	at := time.Date(2026, 1, 18, 7, 0, 0, 0, chi)
	phones := []string{"+12145550123", "+14155550123", "+14015550123", "+18005550123"}
	for i := 0; b.Loop(); i++ {
		rule, _ := store.CallingRuleFor(phones[i%len(phones)])
		rule.Until(at, chi)
	}
}
