package store_test

import (
	"testing"
	"time"

	"switchboard/store"
)

// FuzzCallingRuleUntil: for any +1 number and instant, a held copy's opening time is after the
// instant, inside the rule's hours, and within two days; an instant not held is inside them.
func FuzzCallingRuleUntil(f *testing.F) {
	f.Add("2145550123", int64(1768752000), "America/Chicago") // a Sunday in Texas
	f.Add("4015550123", int64(1768665600), "America/New_York")
	f.Add("2035550123", int64(1772953200), "America/Chicago") // the spring-forward night
	f.Add("8005550123", int64(0), "Pacific/Auckland")
	f.Add("4165550123", int64(1700000000), "Asia/Kathmandu")
	f.Fuzz(func(t *testing.T, national string, unix int64, zone string) {
		if len(national) != 10 || unix < 0 || unix > 4102444800 { // up to 2100
			return
		}
		rule, ok := store.CallingRuleFor("+1" + national)
		if !ok {
			return
		}
		loc, err := time.LoadLocation(zone)
		if err != nil || zone == "" || zone == "Local" {
			return
		}
		at := time.Unix(unix, 0)
		open, label, held := rule.Until(at, loc)
		if !held {
			return
		}
		if !open.After(at) || open.Sub(at) > 48*time.Hour || label == "" {
			t.Fatalf("at %s in %s: held until %s (%q)", at.In(loc), zone, open.In(loc), label)
		}
		if _, _, again := rule.Until(open, loc); again {
			t.Fatalf("at %s in %s: opens %s, which is itself held", at.In(loc), zone, open.In(loc))
		}
	})
}
