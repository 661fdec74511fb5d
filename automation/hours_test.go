package automation

import (
	"strings"
	"testing"
	"time"
)

func TestParseWeek(t *testing.T) {
	good := []struct{ in, want string }{
		{"", ""},
		{"mon-fri 09:00-17:00; sat 10:00-13:00", "mon-fri 09:00-17:00; sat 10:00-13:00"},
		{"Monday 9:00-12:00, 13:00-17:00", "mon 09:00-12:00, 13:00-17:00"},
		{"mon,wed,fri 08:00-12:00\nsun 10:00-24:00", "mon 08:00-12:00; wed 08:00-12:00; fri 08:00-12:00; sun 10:00-24:00"},
		{"fri-mon 10:00-11:00", "mon 10:00-11:00; fri-sun 10:00-11:00"},
		{"mon 09:00-12:00; mon 12:00-13:00", "mon 09:00-12:00, 12:00-13:00"},
		{"mon-sun 00:00-24:00", "mon-sun 00:00-24:00"},
	}
	for _, g := range good {
		w, err := ParseWeek(g.in)
		if err != nil {
			t.Fatalf("ParseWeek(%q): %v", g.in, err)
		}
		if got := w.String(); got != g.want {
			t.Fatalf("ParseWeek(%q) = %q, want %q", g.in, got, g.want)
		}
	}
	bad := []struct{ in, says string }{
		{"mon 17:00-09:00", "ends before it starts"},
		{"mon 09:00-09:00", "ends before it starts"},
		{"mon 09:00-12:00, 11:00-13:00", "overlap"},
		{"mon-fri 09:00-17:00; wed 16:00-18:00", "overlap"},
		{"moon 09:00-17:00", "not a day"},
		{"mon 9-17", "not a range"},
		{"mon 24:00-24:30", "not a range"},
		{"mon 09:60-10:00", "not a range"},
		{"09:00-17:00", "which days"},
		{"mon", "give the hours"},
		{"mon 09:00-10:00 tue", "before their hours"},
	}
	for _, b := range bad {
		if _, err := ParseWeek(b.in); err == nil || !strings.Contains(err.Error(), b.says) {
			t.Fatalf("ParseWeek(%q) = %v, want an error saying %q", b.in, err, b.says)
		}
	}
}

func TestParseHolidays(t *testing.T) {
	got, err := ParseHolidays("2027-01-01, 2026-12-25\n2026-12-25")
	if err != nil || strings.Join(got, ",") != "2026-12-25,2027-01-01" {
		t.Fatalf("ParseHolidays = %v, %v", got, err)
	}
	for _, bad := range []string{"2027-02-30", "25/12/2026", "2026-1-5"} {
		if _, err := ParseHolidays(bad); err == nil {
			t.Fatalf("ParseHolidays(%q) accepted", bad)
		}
	}
}

func ny(t *testing.T) *time.Location {
	t.Helper()
	loc, err := time.LoadLocation("America/New_York")
	if err != nil {
		t.Fatal(err)
	}
	return loc
}

func TestOpenNextOpenAndBusinessTime(t *testing.T) {
	loc := ny(t)
	w, _ := ParseWeek("mon-fri 09:00-12:00, 13:00-17:00")
	h := Hours{Week: w, Holidays: []string{"2027-01-06"}}
	at := func(s string) time.Time {
		tm, err := time.ParseInLocation("2006-01-02 15:04", s, loc)
		if err != nil {
			t.Fatal(err)
		}
		return tm
	}
	for _, c := range []struct {
		now  string
		open bool
		next string
	}{
		{"2027-01-04 08:59", false, "2027-01-04 09:00"},
		{"2027-01-04 09:00", true, "2027-01-04 09:00"},
		{"2027-01-04 12:30", false, "2027-01-04 13:00"},
		{"2027-01-04 17:00", false, "2027-01-05 09:00"},
		{"2027-01-05 20:00", false, "2027-01-07 09:00"}, // Wednesday is a holiday
		{"2027-01-08 18:00", false, "2027-01-11 09:00"}, // the weekend
	} {
		now := at(c.now)
		if got := h.Open(now, loc); got != c.open {
			t.Fatalf("Open(%s) = %v", c.now, got)
		}
		next, ok := h.NextOpen(now, loc)
		if !ok || !next.Equal(at(c.next)) {
			t.Fatalf("NextOpen(%s) = %s, %v; want %s", c.now, next.In(loc), ok, c.next)
		}
	}
	// 15 business minutes from Monday 16:50: 10 on Monday, 5 on Tuesday from 09:00.
	got, ok := h.AddBusiness(at("2027-01-04 16:50"), 15*time.Minute, loc)
	if !ok || !got.Equal(at("2027-01-05 09:05")) {
		t.Fatalf("AddBusiness = %s, %v", got.In(loc), ok)
	}
	// Across lunch and the holiday.
	got, _ = h.AddBusiness(at("2027-01-05 16:00"), 2*time.Hour, loc)
	if !got.Equal(at("2027-01-07 10:00")) {
		t.Fatalf("AddBusiness over the holiday = %s", got.In(loc))
	}
	// Always open: only holidays close.
	always := Hours{Holidays: []string{"2027-01-06"}}
	if !always.Open(at("2027-01-05 03:00"), loc) || always.Open(at("2027-01-06 12:00"), loc) {
		t.Fatal("always-open hours with a holiday")
	}
	if next, _ := always.NextOpen(at("2027-01-06 12:00"), loc); !next.Equal(at("2027-01-07 00:00")) {
		t.Fatalf("always open, after the holiday: %s", next.In(loc))
	}
	// Words for the header and for {{nextOpen}}.
	now := at("2027-01-08 18:00")
	next, _ := h.NextOpen(now, loc)
	if s := ShortOpening(next, now, loc); s != "Mon 09:00" {
		t.Fatalf("ShortOpening = %q", s)
	}
	if s := LongOpening(next, now, loc); s != "Monday 09:00" {
		t.Fatalf("LongOpening = %q", s)
	}
}

// A day that changes clocks keeps its wall-clock hours.
func TestHoursAcrossDaylightSaving(t *testing.T) {
	loc := ny(t)
	w, _ := ParseWeek("sun 01:00-04:00")
	h := Hours{Week: w}
	// 14 March 2027: clocks go from 02:00 to 03:00, so the range holds two hours of real time:
	// two business hours from 00:30 end at 04:00, and a third runs on to the next Sunday.
	start := time.Date(2027, 3, 14, 0, 30, 0, 0, loc)
	got, ok := h.AddBusiness(start, 2*time.Hour, loc)
	if !ok || got.In(loc).Format("2006-01-02 15:04") != "2027-03-14 04:00" {
		t.Fatalf("two business hours from the DST night = %s, %v", got.In(loc), ok)
	}
	got, _ = h.AddBusiness(start, 3*time.Hour, loc)
	if got.In(loc).Format("2006-01-02 15:04") != "2027-03-21 02:00" {
		t.Fatalf("three business hours from the DST night = %s", got.In(loc))
	}
}

// Within is the open part of a wait: lunch, nights, weekends and holidays do not count, and
// AddBusiness of that much from the start lands on the end of an open stretch.
func TestWithinCountsOpenTimeOnly(t *testing.T) {
	loc := ny(t)
	w, _ := ParseWeek("mon-fri 09:00-12:00, 13:00-17:00")
	h := Hours{Week: w, Holidays: []string{"2027-01-06"}}
	at := func(s string) time.Time {
		tm, err := time.ParseInLocation("2006-01-02 15:04", s, loc)
		if err != nil {
			t.Fatal(err)
		}
		return tm
	}
	for _, c := range []struct {
		from, to string
		want     time.Duration
	}{
		{"2027-01-04 10:00", "2027-01-04 10:20", 20 * time.Minute},
		{"2027-01-04 11:30", "2027-01-04 13:30", time.Hour},          // lunch
		{"2027-01-04 16:50", "2027-01-05 09:05", 15 * time.Minute},   // the night
		{"2027-01-05 16:00", "2027-01-07 10:00", 2 * time.Hour},      // the holiday
		{"2027-01-08 18:00", "2027-01-11 08:00", 0},                  // the weekend
		{"2027-01-04 00:00", "2027-01-11 00:00", 4 * 7 * time.Hour},  // a week, four days open
		{"2027-01-04 10:00", "2027-01-04 09:00", 0},                  // backwards
		{"2027-01-04 12:15", "2027-01-04 12:45", 0},                  // all at lunch
		{"2027-01-04 08:00", "2027-02-01 08:00", 19 * 7 * time.Hour}, // four weeks less the holiday
	} {
		if got := h.Within(at(c.from), at(c.to), loc); got != c.want {
			t.Fatalf("Within(%s, %s) = %s, want %s", c.from, c.to, got, c.want)
		}
	}
	// Always open: the wall clock, across a clock change (23 hours on 14 March 2027).
	var always Hours
	if got := always.Within(at("2027-03-14 00:00"), at("2027-03-15 00:00"), loc); got != 23*time.Hour {
		t.Fatalf("always open over the DST day = %s", got)
	}
	// The DST night: the range 01:00-04:00 holds two real hours that Sunday.
	dw, _ := ParseWeek("sun 01:00-04:00")
	dst := Hours{Week: dw}
	if got := dst.Within(time.Date(2027, 3, 14, 0, 0, 0, 0, loc), time.Date(2027, 3, 14, 6, 0, 0, 0, loc), loc); got != 2*time.Hour {
		t.Fatalf("the DST night's open time = %s", got)
	}
}

// The week notation reads back what it writes, and no input makes the parser panic.
func FuzzParseWeek(f *testing.F) {
	for _, s := range []string{"", "mon-fri 09:00-17:00; sat 10:00-13:00", "fri-mon 22:00-24:00", "mon,tue 9:00-9:30, 10:00-11:00",
		"sunday 00:00-24:00", "mon 17:00-09:00", "x", ";;", "mon-mon 01:00-02:00"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		w, err := ParseWeek(s)
		if err != nil {
			return
		}
		again, err := ParseWeek(w.String())
		if err != nil {
			t.Fatalf("ParseWeek(%q) wrote %q, which does not parse: %v", s, w.String(), err)
		}
		if again.String() != w.String() {
			t.Fatalf("round trip of %q: %q then %q", s, w.String(), again.String())
		}
		for _, d := range w {
			for i, r := range d {
				if r.From < 0 || r.To > 1440 || r.From >= r.To || (i > 0 && r.From < d[i-1].To) {
					t.Fatalf("ParseWeek(%q) gave a bad range %v in %v", s, r, d)
				}
			}
		}
	})
}
