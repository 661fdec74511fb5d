package store_test

import (
	"fmt"
	"strings"
	"testing"
	"time"

	"switchboard/internal/testutil"
	"switchboard/store"
)

func TestParseQuietHours(t *testing.T) {
	for _, tc := range []struct {
		in      string
		want    store.QuietHours
		str     string
		wantErr string // substring; "" means valid
	}{
		{"21:00-08:00", store.QuietHours{Start: 21 * 60, End: 8 * 60}, "21:00-08:00", ""},
		{"9:00-17:00", store.QuietHours{Start: 9 * 60, End: 17 * 60}, "09:00-17:00", ""},
		{"09:00-17:00", store.QuietHours{Start: 9 * 60, End: 17 * 60}, "09:00-17:00", ""},
		{"12:00-13:00", store.QuietHours{Start: 12 * 60, End: 13 * 60}, "12:00-13:00", ""},
		{"00:00-23:59", store.QuietHours{Start: 0, End: 23*60 + 59}, "00:00-23:59", ""},
		{" 21:30 - 7:15 ", store.QuietHours{Start: 21*60 + 30, End: 7*60 + 15}, "21:30-07:15", ""},
		{"21:00–08:00", store.QuietHours{Start: 21 * 60, End: 8 * 60}, "21:00-08:00", ""}, // en dash, as typeset text writes it
		{"off", store.QuietHours{}, "off", ""},
		{"OFF", store.QuietHours{}, "off", ""},
		{"", store.QuietHours{}, "off", ""},
		{"25:00-08:00", store.QuietHours{}, "", "25:00 is not a time of day (00:00 to 23:59): must be HH:MM-HH:MM such as 21:00-08:00, or off"},
		{"21:60-08:00", store.QuietHours{}, "", "not a time of day"},
		{"24:00-08:00", store.QuietHours{}, "", "not a time of day"},
		{"21:00", store.QuietHours{}, "", "must be HH:MM-HH:MM such as 21:00-08:00, or off"},
		{"21:00-21:00", store.QuietHours{}, "", "starts and ends at the same time"},
		{"9:00-09:00", store.QuietHours{}, "", "write off"},
		{"21-08", store.QuietHours{}, "", "must be HH:MM-HH:MM"},
		{"21:0-08:00", store.QuietHours{}, "", "must be HH:MM-HH:MM"},
		{"021:00-08:00", store.QuietHours{}, "", "must be HH:MM-HH:MM"},
		{"-1:00-08:00", store.QuietHours{}, "", "must be HH:MM-HH:MM"},
		{"+9:00-08:00", store.QuietHours{}, "", "must be HH:MM-HH:MM"},
		{"9pm-8am", store.QuietHours{}, "", "must be HH:MM-HH:MM"},
		{"21:00-08:00-09:00", store.QuietHours{}, "", "must be HH:MM-HH:MM"},
		{"on", store.QuietHours{}, "", "must be HH:MM-HH:MM"},
	} {
		got, err := store.ParseQuietHours(tc.in)
		if tc.wantErr != "" {
			if err == nil || !strings.Contains(err.Error(), tc.wantErr) {
				t.Errorf("ParseQuietHours(%q) = %v, %v; want an error containing %q", tc.in, got, err, tc.wantErr)
			}
			continue
		}
		if err != nil || got != tc.want {
			t.Errorf("ParseQuietHours(%q) = %+v, %v; want %+v", tc.in, got, err, tc.want)
			continue
		}
		if got.String() != tc.str {
			t.Errorf("ParseQuietHours(%q).String() = %q, want %q", tc.in, got.String(), tc.str)
		}
		if got.Off() != (tc.str == "off") {
			t.Errorf("ParseQuietHours(%q).Off() = %v", tc.in, got.Off())
		}
	}
}

func mustQuiet(t *testing.T, s string) store.QuietHours {
	t.Helper()
	q, err := store.ParseQuietHours(s)
	if err != nil {
		t.Fatal(err)
	}
	return q
}

func mustZone(t *testing.T, name string) *time.Location {
	t.Helper()
	loc, err := time.LoadLocation(name)
	if err != nil {
		t.Fatal(err)
	}
	return loc
}

func TestQuietHoursUntil(t *testing.T) {
	ny := mustZone(t, "America/New_York")
	paris := mustZone(t, "Europe/Paris")
	at := func(loc *time.Location, s string) time.Time {
		t.Helper()
		v, err := time.ParseInLocation("2006-01-02 15:04:05", s, loc)
		if err != nil {
			t.Fatal(err)
		}
		return v
	}
	utc := func(s string) time.Time { return at(time.UTC, s) }
	for _, tc := range []struct {
		name    string
		window  string
		t       time.Time
		loc     *time.Location
		quiet   bool
		wantEnd time.Time // compared as instants
	}{
		{"off is never quiet", "off", utc("2026-11-22 23:00:00"), time.UTC, false, time.Time{}},
		// crossing midnight
		{"evening inside", "21:00-08:00", at(ny, "2026-11-22 22:15:00"), ny, true, at(ny, "2026-11-23 08:00:00")},
		{"at the start", "21:00-08:00", at(ny, "2026-11-22 21:00:00"), ny, true, at(ny, "2026-11-23 08:00:00")},
		{"a second before the start", "21:00-08:00", at(ny, "2026-11-22 20:59:59"), ny, false, time.Time{}},
		{"morning inside", "21:00-08:00", at(ny, "2026-11-23 07:59:59"), ny, true, at(ny, "2026-11-23 08:00:00")},
		{"at the end", "21:00-08:00", at(ny, "2026-11-23 08:00:00"), ny, false, time.Time{}},
		{"midday", "21:00-08:00", at(ny, "2026-11-23 12:00:00"), ny, false, time.Time{}},
		{"midnight", "21:00-08:00", at(ny, "2026-11-23 00:00:00"), ny, true, at(ny, "2026-11-23 08:00:00")},
		{"across a month end", "21:00-08:00", at(ny, "2026-11-30 23:00:00"), ny, true, at(ny, "2026-12-01 08:00:00")},
		{"across a year end", "21:00-08:00", utc("2026-12-31 23:00:00"), time.UTC, true, utc("2027-01-01 08:00:00")},
		{"zone decides, not UTC", "21:00-08:00", utc("2026-11-23 03:00:00"), ny, true, at(ny, "2026-11-23 08:00:00")},
		{"same instant in UTC is daytime", "21:00-08:00", utc("2026-11-23 15:00:00"), ny, false, time.Time{}},
		{"nil location is UTC", "21:00-08:00", utc("2026-11-23 03:00:00"), nil, true, utc("2026-11-23 08:00:00")},
		// not crossing midnight
		{"lunch inside", "12:00-13:00", at(ny, "2026-11-23 12:30:00"), ny, true, at(ny, "2026-11-23 13:00:00")},
		{"lunch before", "12:00-13:00", at(ny, "2026-11-23 11:59:59"), ny, false, time.Time{}},
		{"lunch after", "12:00-13:00", at(ny, "2026-11-23 13:00:00"), ny, false, time.Time{}},
		{"lunch at night", "12:00-13:00", at(ny, "2026-11-23 23:30:00"), ny, false, time.Time{}},
		// New York springs forward 2026-03-08 at 02:00 EST (07:00Z) to 03:00 EDT: 02:00–02:59 does not exist.
		{"spring forward, end in the gap", "21:00-02:30", at(ny, "2026-03-07 23:00:00"), ny, true, utc("2026-03-08 07:00:00")},
		{"spring forward, end in the gap, just before it", "21:00-02:30", at(ny, "2026-03-08 01:59:00"), ny, true, utc("2026-03-08 07:00:00")},
		{"spring forward, end after the gap", "21:00-08:00", at(ny, "2026-03-07 22:00:00"), ny, true, utc("2026-03-08 12:00:00")}, // 08:00 EDT
		{"spring forward, night is an hour shorter", "21:00-08:00", at(ny, "2026-03-08 00:30:00"), ny, true, at(ny, "2026-03-08 08:00:00")},
		{"spring forward, after the gap", "21:00-02:30", at(ny, "2026-03-08 03:10:00"), ny, false, time.Time{}},
		// New York falls back 2026-11-01 at 02:00 EDT (06:00Z) to 01:00 EST: 01:00–01:59 occurs twice.
		{"fall back, end repeated, first occurrence", "21:00-01:30", at(ny, "2026-10-31 22:00:00"), ny, true, utc("2026-11-01 05:30:00")},
		{"fall back, between the two occurrences", "21:00-01:30", utc("2026-11-01 06:10:00"), ny, true, utc("2026-11-01 06:30:00")}, // 01:10 EST
		{"fall back, after the second", "21:00-01:30", utc("2026-11-01 06:40:00"), ny, false, time.Time{}},
		{"fall back, end after", "21:00-08:00", at(ny, "2026-10-31 22:00:00"), ny, true, utc("2026-11-01 13:00:00")}, // 08:00 EST
		// Paris (east of UTC, where time.Date picks the other side of a gap or repeat).
		{"Paris spring forward, end in the gap", "21:00-02:30", at(paris, "2026-03-28 23:00:00"), paris, true, utc("2026-03-29 01:00:00")},
		{"Paris fall back, first occurrence", "21:00-02:30", at(paris, "2026-10-24 23:00:00"), paris, true, utc("2026-10-25 00:30:00")},
		{"Paris fall back, between the two", "21:00-02:30", utc("2026-10-25 01:10:00"), paris, true, utc("2026-10-25 01:30:00")}, // 02:10 CET
	} {
		t.Run(tc.name, func(t *testing.T) {
			q := mustQuiet(t, tc.window)
			end, quiet := q.Until(tc.t, tc.loc)
			if quiet != tc.quiet || !end.Equal(tc.wantEnd) {
				t.Fatalf("%s.Until(%s): got %s, %v; want %s, %v", tc.window, tc.t.In(locOr(tc.loc)), end, quiet, tc.wantEnd, tc.quiet)
			}
			if quiet {
				if !end.After(tc.t) {
					t.Errorf("end %s is not after t %s", end, tc.t)
				}
				if _, still := q.Until(end, tc.loc); still {
					t.Errorf("still quiet at the end %s", end)
				}
				if _, before := q.Until(end.Add(-time.Second), tc.loc); !before {
					t.Errorf("not quiet a second before the end %s", end)
				}
			}
		})
	}
}

func locOr(loc *time.Location) *time.Location {
	if loc == nil {
		return time.UTC
	}
	return loc
}

// TestQuietHoursUntilEveryMinute walks two DST weekends minute by minute: whenever Until says
// quiet, the end is after t, not quiet, and the second before it is quiet; and the end is at
// most a day and an hour away.
func TestQuietHoursUntilEveryMinute(t *testing.T) {
	for _, zone := range []string{"America/New_York", "Europe/Paris", "Australia/Lord_Howe", "UTC"} {
		loc := mustZone(t, zone)
		for _, w := range []string{"21:00-08:00", "21:00-02:30", "01:30-02:30", "02:15-03:00", "12:00-13:00", "23:59-00:00"} {
			q := mustQuiet(t, w)
			checked := 0
			for _, day := range []string{"2026-03-07T12:00:00Z", "2026-10-24T12:00:00Z", "2026-10-31T12:00:00Z", "2026-04-04T12:00:00Z"} {
				start, _ := time.Parse(time.RFC3339, day)
				for m := 0; m < 48*60; m++ {
					now := start.Add(time.Duration(m)*time.Minute + 17*time.Second)
					end, quiet := q.Until(now, loc)
					if !quiet {
						continue
					}
					checked++
					if !end.After(now) || end.Sub(now) > 24*time.Hour+time.Hour {
						t.Fatalf("%s %s at %s: end %s", zone, w, now.In(loc), end.In(loc))
					}
					if _, still := q.Until(end, loc); still {
						t.Fatalf("%s %s at %s: still quiet at the end %s", zone, w, now.In(loc), end.In(loc))
					}
					if _, before := q.Until(end.Add(-time.Second), loc); !before {
						t.Fatalf("%s %s at %s: not quiet a second before the end %s", zone, w, now.In(loc), end.In(loc))
					}
				}
			}
			if checked == 0 {
				t.Errorf("%s %s: never quiet over four days", zone, w)
			}
		}
	}
}

func TestValidTimeZone(t *testing.T) {
	for name, want := range map[string]bool{
		"America/New_York": true, "Europe/London": true, "Asia/Kolkata": true, "UTC": true,
		"":                        false,
		"Local":                   false,
		"america/new_york":        false, // names are case-sensitive
		"Mars/Olympus_Mons":       false,
		"EST5EDT ":                false,
		"../../etc/passwd":        false,
		"Europe/London\x00":       false,
		strings.Repeat("A/", 100): false,
	} {
		if got := store.ValidTimeZone(name); got != want {
			t.Errorf("ValidTimeZone(%q) = %v, want %v", name, got, want)
		}
	}
}

func TestPhoneTimeZone(t *testing.T) {
	winter := time.Date(2026, 1, 15, 12, 0, 0, 0, time.UTC)
	summer := time.Date(2026, 7, 15, 12, 0, 0, 0, time.UTC)
	for _, tc := range []struct {
		phone string
		at    time.Time
		want  string // "" means unknown
	}{
		{"+12125550147", winter, "America/New_York"},
		{"+14155550100", winter, "America/Los_Angeles"},
		{"+442071234567", winter, "Europe/London"},
		{"+33612345678", winter, "Europe/Paris"},
		{"+79161234567", winter, "Europe/Moscow"},
		{"+74232123456", winter, "Asia/Vladivostok"},
		// Several zones: the latest-waking one, the smallest UTC offset.
		{"+19075550100", winter, "America/Adak"},     // Alaska: Adak (UTC-10) and Anchorage (UTC-9)
		{"+61891234567", winter, "Australia/Perth"},  // Adelaide (UTC+10:30 in January) and Perth (UTC+8)
		{"+61891234567", summer, "Australia/Perth"},  // Adelaide (UTC+9:30 in July)
		{"+18005550100", winter, ""},                 // toll-free: every NANP zone, which says nothing: unknown (the workspace's zone applies)
		{"+15555550100", winter, ""},                 // an area code the data does not know: the same
		{"+447911123456", winter, "Europe/Guernsey"}, // a UK mobile: Guernsey, Isle of Man, London, all equal; the first
		{"+999123456", winter, ""},                   // no such country
		{"12125550147", winter, ""},                  // not E.164
		{"+1 212 555 0147", winter, ""},              // formatted
		{"", winter, ""},
	} {
		loc, ok := store.PhoneTimeZone(tc.phone, tc.at)
		got := ""
		if ok {
			got = loc.String()
		}
		if got != tc.want {
			t.Errorf("PhoneTimeZone(%q, %s) = %q, want %q", tc.phone, tc.at.Format("2006-01"), got, tc.want)
		}
	}
}

// TestPhoneTimeZoneSeasons: +1 928 7 maps to Denver and Phoenix, equal in winter (the first,
// Denver) while in summer Denver springs ahead and Phoenix, which keeps no DST, is behind. The
// cached pick must follow at across the seasons, back and forth.
func TestPhoneTimeZoneSeasons(t *testing.T) {
	winter := time.Date(2026, 1, 15, 12, 0, 0, 0, time.UTC)
	summer := time.Date(2026, 7, 15, 12, 0, 0, 0, time.UTC)
	for i, tc := range []struct {
		at   time.Time
		want string
	}{{summer, "America/Phoenix"}, {winter, "America/Denver"}, {summer, "America/Phoenix"}, {summer.Add(time.Hour), "America/Phoenix"}, {winter, "America/Denver"}} {
		loc, ok := store.PhoneTimeZone("+19287555010", tc.at)
		if !ok || loc.String() != tc.want {
			t.Errorf("call %d at %s: got %v, %v; want %s", i, tc.at, loc, ok, tc.want)
		}
	}
}

// TestPhoneTimeZoneLatestWaking checks the rule against the offsets themselves: for a country
// spanning zones the pick is behind or equal to every candidate, at instants on both sides of DST.
func TestPhoneTimeZoneLatestWaking(t *testing.T) {
	for _, at := range []time.Time{
		time.Date(2026, 1, 15, 12, 0, 0, 0, time.UTC),
		time.Date(2026, 7, 15, 12, 0, 0, 0, time.UTC),
	} {
		// +1 907 is Alaska: Anchorage and Adak; in no season is Adak ahead.
		loc, ok := store.PhoneTimeZone("+19075550100", at)
		if !ok {
			t.Fatal("+1 907: want a zone")
		}
		_, got := at.In(loc).Zone()
		for _, other := range []string{"America/Anchorage", "America/Adak"} {
			if _, off := at.In(mustZone(t, other)).Zone(); off < got {
				t.Errorf("at %s: picked %s (offset %d), but %s is behind it (%d)", at, loc, got, other, off)
			}
		}
	}
}

func TestContactLocation(t *testing.T) {
	at := time.Date(2026, 11, 22, 12, 0, 0, 0, time.UTC)
	berlin := mustZone(t, "Europe/Berlin")
	for _, tc := range []struct {
		tz, phone string
		ws        *time.Location
		want      string
	}{
		{"Asia/Tokyo", "+12125550147", berlin, "Asia/Tokyo"},         // its own zone first
		{"", "+12125550147", berlin, "America/New_York"},             // then the phone's
		{"Not/AZone", "+14155550100", berlin, "America/Los_Angeles"}, // an invalid own zone is skipped
		{"Local", "+999123456", berlin, "Europe/Berlin"},             // then the workspace's
		{"", "", nil, "UTC"}, // then UTC
		{"", "+999123456", nil, "UTC"},
	} {
		if got := store.ContactLocation(tc.tz, tc.phone, tc.ws, at).String(); got != tc.want {
			t.Errorf("ContactLocation(%q, %q, %v) = %s, want %s", tc.tz, tc.phone, tc.ws, got, tc.want)
		}
	}
}

// BenchmarkPhoneTimeZone: a broadcast looks up 100,000 recipients; the figure times 100,000
// is the broadcast's cost. The numbers mix single-zone area codes and multi-zone ones.
func BenchmarkPhoneTimeZone(b *testing.B) {
	phones := make([]string, 0, 1000)
	for i := range 1000 {
		area := []string{"212", "415", "907", "800", "555", "312"}[i%6]
		phones = append(phones, fmt.Sprintf("+1%s555%04d", area, i))
	}
	phones = append(phones, "+442071234567", "+61891234567", "+79161234567")
	at := time.Date(2026, 11, 22, 12, 0, 0, 0, time.UTC)
	b.ReportAllocs()
	i := 0
	for b.Loop() {
		if _, ok := store.PhoneTimeZone(phones[i%len(phones)], at); !ok {
			b.Fatal("unknown zone")
		}
		i++
	}
}

func BenchmarkContactLocation(b *testing.B) {
	at := time.Date(2026, 11, 22, 12, 0, 0, 0, time.UTC)
	b.ReportAllocs()
	for b.Loop() {
		_ = store.ContactLocation("America/Chicago", "+12125550147", time.UTC, at)
	}
}

func TestQuietHoursHoldCopiesUntilTheyEnd(t *testing.T) {
	// 03:00 UTC is 22:00 in New York (EST) and 19:00 in Los Angeles.
	clock := testutil.NewClock(time.Date(2026, 11, 23, 3, 0, 0, 0, time.UTC))
	f := newFixtureOn(t, openStore(t, store.Options{Now: clock.Now}))
	if _, err := f.s.UpdateWorkspace(f.ws, store.WorkspaceSettings{QuietHours: ptr("21:00-08:00"), TimeZone: ptr("Europe/London")}); err != nil {
		t.Fatal(err)
	}
	b, err := f.s.SendBroadcast(f.ws, store.BroadcastInput{From: f.number, Text: "x",
		Recipients: []string{"+12125550100", "+14155550100"}})
	if err != nil {
		t.Fatal(err)
	}
	msgs, _ := f.s.ListMessages(f.ws, store.MessageFilter{Limit: 10})
	status := map[string]string{}
	for _, m := range msgs {
		status[m.To] = m.Status
	}
	if status["+12125550100"] != store.MessageScheduled || status["+14155550100"] != store.MessageQueued {
		t.Errorf("copy statuses %v, want New York held (scheduled) and Los Angeles queued", status)
	}
	// Only the Los Angeles copy can be claimed now; the held one is not in the ready queue.
	if d := f.s.OutboxDepth(); d != 2 {
		t.Errorf("OutboxDepth = %d, want 2 (one ready, one held)", d)
	}
	cl := claimAll(t, f.s, 10)
	if ids := claimedIDs(cl); len(ids) != 1 || cl[0].Messages[0].To != "+14155550100" {
		t.Fatalf("claimed %v, want only the Los Angeles copy", ids)
	}
	// The New York copy joins the queue at 08:00 New York time (13:00 UTC).
	_, next, _ := f.s.PromoteDue(clock.Now(), 10)
	if want := time.Date(2026, 11, 23, 13, 0, 0, 0, time.UTC); !next.Equal(want) {
		t.Errorf("held until %v, want %v", next, want)
	}
	clock.Set(time.Date(2026, 11, 23, 13, 0, 0, 0, time.UTC))
	if moved, _, _ := f.s.PromoteDue(clock.Now(), 10); moved != 1 {
		t.Fatalf("PromoteDue at 08:00 New York moved %d, want 1", moved)
	}
	if ids := claimedIDs(claimAll(t, f.s, 10)); len(ids) != 1 {
		t.Errorf("after the quiet hours claimed %v, want the held copy", ids)
	}
	// Single sends are never held.
	m := send(t, f, "+12125550199", "urgent")
	if m.Status != store.MessageQueued {
		t.Errorf("a 1:1 send inside quiet hours is %q, want queued", m.Status)
	}
	_ = b
	_, err = f.s.UpdateWorkspace(f.ws, store.WorkspaceSettings{QuietHours: ptr("25:00-08:00"), TimeZone: ptr("Mars/Olympus")})
	wantFields(t, err, "quietHours", "timeZone")
}
