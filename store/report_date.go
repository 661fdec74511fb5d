package store

import (
	"encoding/binary"
	"slices"
	"time"
)

// Date is a calendar day in a workspace's time zone, counted in days from 1 January 1970: the
// unit of the reports, whose rollups are kept per workspace day.
type Date int32

// MaxReportDays is the longest range a report covers (both ends included).
const MaxReportDays = 400

// DateOf is the day t falls on in loc.
func DateOf(t time.Time, loc *time.Location) Date {
	y, m, d := t.In(loc).Date()
	return dateFrom(y, m, d)
}

func dateFrom(y int, m time.Month, d int) Date {
	return Date(time.Date(y, m, d, 0, 0, 0, 0, time.UTC).Unix() / 86400)
}

// ParseDate reads YYYY-MM-DD strictly: four-digit year, two-digit month and day, a real
// calendar date (2027-02-30 is not one).
func ParseDate(s string) (Date, bool) {
	if len(s) != 10 || s[4] != '-' || s[7] != '-' {
		return 0, false
	}
	for i, c := range []byte(s) {
		if i != 4 && i != 7 && (c < '0' || c > '9') {
			return 0, false
		}
	}
	t, err := time.Parse(time.DateOnly, s)
	if err != nil || t.Year() < 1 {
		return 0, false
	}
	return dateFrom(t.Date()), true
}

// Time is the day's midnight in UTC (for its year, month, day and weekday).
func (d Date) Time() time.Time { return time.Unix(int64(d)*86400, 0).UTC() }

// String is YYYY-MM-DD.
func (d Date) String() string { return d.Time().Format(time.DateOnly) }

// Weekday is the day of the week.
func (d Date) Weekday() time.Weekday { return d.Time().Weekday() }

// Start is the instant the day begins in loc (the first instant after midnight on a day whose
// midnight a DST change skips).
func (d Date) Start(loc *time.Location) time.Time {
	y, m, dd := d.Time().Date()
	return time.Date(y, m, dd, 0, 0, 0, 0, loc)
}

// key is the day's 4 bytes in keys: the count with its sign bit flipped, so that keys sort by
// date for days before 1970 too.
func (d Date) key() [4]byte {
	var k [4]byte
	binary.BigEndian.PutUint32(k[:], uint32(d)^1<<31)
	return k
}

func dateFromKey(b []byte) Date { return Date(binary.BigEndian.Uint32(b) ^ 1<<31) }

// Durations summarises a set of durations in whole seconds: how many, their median and their
// 90th percentile (nearest rank: the smallest value at least half, or nine tenths, of the set
// is at or under). Median and P90 are nil when the set is empty: nothing to measure.
type Durations struct {
	Count  int
	Median *int64
	P90    *int64
}

// summarise sorts secs and summarises it.
func summarise(secs []uint32) Durations {
	if len(secs) == 0 {
		return Durations{}
	}
	slices.Sort(secs)
	at := func(pct int) *int64 {
		rank := (pct*len(secs) + 99) / 100 // ceil(pct/100 × n), at least 1
		v := int64(secs[max(rank, 1)-1])
		return &v
	}
	return Durations{Count: len(secs), Median: at(50), P90: at(90)}
}

// durationSeconds is end − start in whole seconds (0 when end is not after start: clocks set
// back), capped to what a sample holds.
func durationSeconds(start, end time.Time) uint32 {
	d := end.Sub(start)
	if d <= 0 {
		return 0
	}
	return uint32(min(int64(d/time.Second), 1<<32-1))
}

// Response-time bands of the reports' distribution charts, upper bounds exclusive; the last
// band is everything longer.
var ReportBands = []struct {
	Label string
	Below uint32 // seconds; 0 for the last band
}{
	{"Under 1 min", 60}, {"1–5 min", 300}, {"5–15 min", 900}, {"15–60 min", 3600},
	{"1–4 h", 4 * 3600}, {"4–24 h", 24 * 3600}, {"Over a day", 0},
}

// band is the index in ReportBands of a duration.
func band(secs uint32) int {
	for i, b := range ReportBands {
		if b.Below == 0 || secs < b.Below {
			return i
		}
	}
	return len(ReportBands) - 1
}
