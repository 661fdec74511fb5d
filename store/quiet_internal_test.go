package store

import (
	"testing"
	"time"
)

// FuzzParseQuietHours: parsing never panics; a parsed window is within the day, and its String()
// parses back to the same window.
func FuzzParseQuietHours(f *testing.F) {
	for _, s := range []string{"21:00-08:00", "9:00-17:00", "off", "", "25:00-08:00", "21:00", "21:00-21:00",
		"21:00–08:00", " 1:05 - 2:10 ", "-", ":-:", "00:00-23:59", "9:0-1:00", "\xff"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		q, err := ParseQuietHours(s)
		if err != nil {
			if q != (QuietHours{}) {
				t.Fatalf("ParseQuietHours(%q) failed (%v) but returned %+v", s, err, q)
			}
			return
		}
		if q.Start < 0 || q.Start >= 24*60 || q.End < 0 || q.End >= 24*60 {
			t.Fatalf("ParseQuietHours(%q) = %+v, outside the day", s, q)
		}
		back, err := ParseQuietHours(q.String())
		if err != nil || back != q {
			t.Fatalf("ParseQuietHours(%q) = %+v; its String %q parses to %+v, %v", s, q, q.String(), back, err)
		}
		// Until must not panic on any window either.
		_, _ = q.Until(time.Date(2026, 3, 8, 6, 30, 0, 0, time.UTC), time.UTC)
	})
}

// FuzzPlainE164: the fast check agrees with ValidE164's regular expression.
func FuzzPlainE164(f *testing.F) {
	for _, s := range []string{"+14155550123", "+12", "+1", "+", "", "+04155550123", "+123456789012345", "+1234567890123456", "+1 415", "+١٢٣"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		if plainE164(s) != ValidE164(s) {
			t.Fatalf("plainE164(%q) = %v, ValidE164 = %v", s, plainE164(s), ValidE164(s))
		}
	})
}
