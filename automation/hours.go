// Package automation holds routing and automations as data: business hours and their week
// notation, the rule document (the JSON an admin writes, exports and imports), its validation,
// and the small interpreter that evaluates a workspace's compiled rules against the facts of
// one event. It reads no database and writes nothing: the store gives it facts and applies the
// actions it chooses, inside the write transaction of the event that fired them.
package automation

import (
	"encoding/json"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"time"
)

// Range is one opening range of a day, in minutes after midnight of the wall clock:
// 0 ≤ From < To ≤ 1440 (24:00 ends a range at midnight).
type Range struct{ From, To int }

// Week holds each weekday's ranges, indexed by time.Weekday (Sunday is 0), sorted and not
// overlapping. A week with no range at all is always open.
type Week [7][]Range

// Hours are business hours: a week in the wall clock of a time zone, and holidays (closed all
// day). The zero value is always open.
type Hours struct {
	Week     Week
	Holidays []string // YYYY-MM-DD, sorted, unique
}

// AlwaysOpen reports whether the week has no range (holidays still close).
func (w *Week) AlwaysOpen() bool {
	for _, d := range w {
		if len(d) > 0 {
			return false
		}
	}
	return true
}

// IsZero reports whether h is the default: always open, no holidays.
func (h Hours) IsZero() bool { return h.Week.AlwaysOpen() && len(h.Holidays) == 0 }

// hoursJSON is how hours are stored: the week in its notation, the holidays as dates.
type hoursJSON struct {
	Week     string   `json:"week,omitempty"`
	Holidays []string `json:"holidays,omitempty"`
}

// MarshalJSON writes the week in its notation ("mon-fri 09:00-17:00").
func (h Hours) MarshalJSON() ([]byte, error) {
	return json.Marshal(hoursJSON{Week: h.Week.String(), Holidays: h.Holidays})
}

// UnmarshalJSON reads what MarshalJSON wrote, checking it like ParseWeek and ParseHolidays.
func (h *Hours) UnmarshalJSON(b []byte) error {
	var j hoursJSON
	if err := json.Unmarshal(b, &j); err != nil {
		return err
	}
	w, err := ParseWeek(j.Week)
	if err != nil {
		return err
	}
	days, err := ParseHolidays(strings.Join(j.Holidays, ","))
	if err != nil {
		return err
	}
	*h = Hours{Week: w, Holidays: days}
	return nil
}

// Days in the notation, Monday first (the order a week is written in).
var (
	dayNames  = [7]string{"sun", "mon", "tue", "wed", "thu", "fri", "sat"}
	dayFull   = [7]string{"sunday", "monday", "tuesday", "wednesday", "thursday", "friday", "saturday"}
	weekOrder = [7]time.Weekday{time.Monday, time.Tuesday, time.Wednesday, time.Thursday, time.Friday, time.Saturday, time.Sunday}
)

// maxWeekLen bounds the notation a person may give; maxRanges the ranges of one day.
const (
	maxWeekLen = 2000
	maxRanges  = 12
)

// ParseWeek reads the week notation: clauses separated by ";" (or new lines), each one or more
// days — a day ("mon", "monday"), a span ("mon-fri", wrapping like "fri-mon") or a list
// ("mon,wed") — followed by one or more ranges "HH:MM-HH:MM" (24:00 ends a day):
// "mon-fri 09:00-12:00, 13:00-17:00; sat 10:00-13:00". Blank is always open. A range that ends
// at or before its start, or that overlaps another range of the same day, is an error naming it.
func ParseWeek(s string) (Week, error) {
	var w Week
	if len(s) > maxWeekLen {
		return w, fmt.Errorf("must be at most %d characters", maxWeekLen)
	}
	clauses := strings.FieldsFunc(s, func(r rune) bool { return r == ';' || r == '\n' || r == '\r' })
	for _, clause := range clauses {
		tokens := strings.FieldsFunc(clause, func(r rune) bool { return r == ',' || r == ' ' || r == '\t' })
		if len(tokens) == 0 {
			continue
		}
		var days []time.Weekday
		var ranges []Range
		for _, tok := range tokens {
			if tok[0] >= '0' && tok[0] <= '9' {
				r, err := parseRange(tok)
				if err != nil {
					return Week{}, err
				}
				ranges = append(ranges, r)
				continue
			}
			if len(ranges) > 0 {
				return Week{}, fmt.Errorf("%q: write the days before their hours, e.g. mon-fri 09:00-17:00", strings.TrimSpace(clause))
			}
			ds, err := parseDays(tok)
			if err != nil {
				return Week{}, err
			}
			days = append(days, ds...)
		}
		switch {
		case len(days) == 0:
			return Week{}, fmt.Errorf("%q: say which days, e.g. mon-fri 09:00-17:00", strings.TrimSpace(clause))
		case len(ranges) == 0:
			return Week{}, fmt.Errorf("%q: give the hours, e.g. %s 09:00-17:00", strings.TrimSpace(clause), tokens[0])
		}
		for _, d := range days {
			for _, r := range ranges {
				if slices.Contains(w[d], r) {
					continue // the same range given twice for a day is the same hours
				}
				w[d] = append(w[d], r)
			}
		}
	}
	for _, d := range weekOrder {
		rs := w[d]
		slices.SortFunc(rs, func(a, b Range) int { return a.From - b.From })
		for i := 1; i < len(rs); i++ {
			if rs[i].From < rs[i-1].To {
				return Week{}, fmt.Errorf("%s: %s and %s overlap", dayFull[d], rs[i-1], rs[i])
			}
		}
		if len(rs) > maxRanges {
			return Week{}, fmt.Errorf("%s: at most %d ranges a day", dayFull[d], maxRanges)
		}
	}
	return w, nil
}

// parseDays reads one day token: "mon", "monday", "mon-fri" (a span, wrapping past Sunday).
func parseDays(tok string) ([]time.Weekday, error) {
	from, to, span := strings.Cut(strings.ToLower(tok), "-")
	a, ok := parseDay(from)
	if !ok {
		return nil, fmt.Errorf("%q is not a day: write mon, tue, wed, thu, fri, sat or sun", tok)
	}
	if !span {
		return []time.Weekday{a}, nil
	}
	b, ok := parseDay(to)
	if !ok {
		return nil, fmt.Errorf("%q is not a span of days: write e.g. mon-fri", tok)
	}
	var out []time.Weekday
	for d := a; ; d = (d + 1) % 7 {
		out = append(out, d)
		if d == b {
			return out, nil
		}
	}
}

func parseDay(s string) (time.Weekday, bool) {
	for i := range dayNames {
		if s == dayNames[i] || s == dayFull[i] {
			return time.Weekday(i), true
		}
	}
	return 0, false
}

// parseRange reads "HH:MM-HH:MM".
func parseRange(tok string) (Range, error) {
	a, b, ok := strings.Cut(tok, "-")
	if !ok {
		return Range{}, fmt.Errorf("%q is not a range of hours: write HH:MM-HH:MM, e.g. 09:00-17:00", tok)
	}
	from, okA := parseClock(a, false)
	to, okB := parseClock(b, true)
	if !okA || !okB {
		return Range{}, fmt.Errorf("%q is not a range of hours: write HH:MM-HH:MM, e.g. 09:00-17:00", tok)
	}
	if to <= from {
		return Range{}, fmt.Errorf("%s ends before it starts: a range runs within one day (split a night, e.g. fri 22:00-24:00; sat 00:00-02:00)", tok)
	}
	return Range{from, to}, nil
}

// parseClock reads H:MM or HH:MM as minutes after midnight; 24:00 only as an end.
func parseClock(s string, end bool) (int, bool) {
	h, m, ok := strings.Cut(s, ":")
	if !ok || len(h) < 1 || len(h) > 2 || len(m) != 2 {
		return 0, false
	}
	hh, err1 := strconv.Atoi(h)
	mm, err2 := strconv.Atoi(m)
	if err1 != nil || err2 != nil || h[0] == '+' || h[0] == '-' || m[0] == '+' || m[0] == '-' || mm > 59 || hh < 0 || mm < 0 {
		return 0, false
	}
	if hh == 24 && mm == 0 && end {
		return 1440, true
	}
	if hh > 23 {
		return 0, false
	}
	return hh*60 + mm, true
}

func clock(min int) string { return fmt.Sprintf("%02d:%02d", min/60, min%60) }

// String writes a range as HH:MM-HH:MM.
func (r Range) String() string { return clock(r.From) + "-" + clock(r.To) }

// String writes the week in its notation, Monday first, runs of days with the same hours
// joined ("mon-fri 09:00-17:00; sat 10:00-13:00"); "" when always open. ParseWeek reads it back
// to the same week.
func (w *Week) String() string {
	var clauses []string
	for i := 0; i < 7; {
		d := weekOrder[i]
		if len(w[d]) == 0 {
			i++
			continue
		}
		j := i + 1
		for j < 7 && slices.Equal(w[weekOrder[j]], w[d]) {
			j++
		}
		days := dayNames[d]
		if j-i > 1 {
			days += "-" + dayNames[weekOrder[j-1]]
		}
		var rs []string
		for _, r := range w[d] {
			rs = append(rs, r.String())
		}
		clauses = append(clauses, days+" "+strings.Join(rs, ", "))
		i = j
	}
	return strings.Join(clauses, "; ")
}

// maxHolidays bounds the holidays of one set of hours.
const maxHolidays = 400

// ParseHolidays reads dates YYYY-MM-DD separated by commas, spaces or new lines into a sorted
// list without repeats; a date that is not a real calendar date is an error naming it.
func ParseHolidays(s string) ([]string, error) {
	var out []string
	for _, f := range strings.FieldsFunc(s, func(r rune) bool { return r == ',' || r == ' ' || r == '\n' || r == '\r' || r == '\t' || r == ';' }) {
		t, err := time.Parse(time.DateOnly, f)
		if err != nil || t.Format(time.DateOnly) != f {
			return nil, fmt.Errorf("%q is not a date: write YYYY-MM-DD, e.g. 2026-12-25", f)
		}
		out = append(out, f)
	}
	slices.Sort(out)
	out = slices.Compact(out)
	if len(out) > maxHolidays {
		return nil, fmt.Errorf("at most %d holidays", maxHolidays)
	}
	return out, nil
}

// holiday reports whether the local date of t is a holiday.
func (h *Hours) holiday(y int, m time.Month, d int) bool {
	if len(h.Holidays) == 0 {
		return false
	}
	_, found := slices.BinarySearch(h.Holidays, fmt.Sprintf("%04d-%02d-%02d", y, m, d))
	return found
}

// Open reports whether the hours are open at t, read in loc's wall clock.
func (h *Hours) Open(t time.Time, loc *time.Location) bool {
	open := false
	h.spans(t, loc, 1, func(start, end time.Time) bool {
		open = !start.After(t) && t.Before(end)
		return false
	})
	return open
}

// searchDays bounds how far ahead the next opening is looked for (holidays may close many
// days in a row).
const searchDays = maxHolidays + 8

// NextOpen is when the hours are next open at or after t: t itself while open; ok is false
// when they never open again within the search (every coming day a holiday).
func (h *Hours) NextOpen(t time.Time, loc *time.Location) (next time.Time, ok bool) {
	h.spans(t, loc, searchDays, func(start, _ time.Time) bool {
		next, ok = start, true
		if next.Before(t) {
			next = t
		}
		return false
	})
	return next, ok
}

// AddBusiness is the moment d of open time has passed since t (time while closed does not
// count); ok is false when the hours do not hold that much open time within the search.
func (h *Hours) AddBusiness(t time.Time, d time.Duration, loc *time.Location) (at time.Time, ok bool) {
	left := d
	h.spans(t, loc, searchDays+int(d/(24*time.Hour)), func(start, end time.Time) bool {
		if start.Before(t) {
			start = t
		}
		if span := end.Sub(start); span >= left {
			at, ok = start.Add(left), true
			return false
		} else if span > 0 {
			left -= span
		}
		return true
	})
	return at, ok
}

// Within is how much of [start, end) the hours are open, read in loc's wall clock: the
// business-hours length of a wait (zero when end is not after start). Always-open hours give
// the wall-clock length.
func (h *Hours) Within(start, end time.Time, loc *time.Location) time.Duration {
	if !end.After(start) {
		return 0
	}
	if h.IsZero() {
		return end.Sub(start)
	}
	var in time.Duration
	// Every local day the span touches, and one more for a day lengthened by a clock change.
	days := int(end.Sub(start)/(24*time.Hour)) + 2
	h.spans(start, loc, days, func(from, to time.Time) bool {
		if !from.Before(end) {
			return false
		}
		if from.Before(start) {
			from = start
		}
		if to.After(end) {
			to = end
		}
		if to.After(from) {
			in += to.Sub(from)
		}
		return true
	})
	return in
}

// spans calls fn with the open spans [start, end) of each day from t's local date on, for up to
// days days, in order, while fn returns true. An always-open day is one span from midnight to
// midnight; a holiday has none.
func (h *Hours) spans(t time.Time, loc *time.Location, days int, fn func(start, end time.Time) bool) {
	if loc == nil {
		loc = time.UTC
	}
	lt := t.In(loc)
	y, m, d := lt.Date()
	always := h.Week.AlwaysOpen()
	for i := range days {
		day := time.Date(y, m, d+i, 0, 0, 0, 0, loc)
		dy, dm, dd := day.Date()
		if h.holiday(dy, dm, dd) {
			continue
		}
		if always {
			if !fn(day, time.Date(dy, dm, dd+1, 0, 0, 0, 0, loc)) {
				return
			}
			continue
		}
		for _, r := range h.Week[day.Weekday()] {
			start := time.Date(dy, dm, dd, r.From/60, r.From%60, 0, 0, loc)
			end := time.Date(dy, dm, dd, r.To/60, r.To%60, 0, 0, loc)
			if !end.After(t) {
				continue
			}
			if !fn(start, end) {
				return
			}
		}
	}
}

// ShortOpening writes an opening time for the inbox header: "Mon 09:00", with the date too
// when it is a week or more after now ("Mon Jan 4 09:00").
func ShortOpening(at, now time.Time, loc *time.Location) string {
	if loc == nil {
		loc = time.UTC
	}
	at = at.In(loc)
	if at.Sub(now) >= 6*24*time.Hour {
		return at.Format("Mon Jan 2 15:04")
	}
	return at.Format("Mon 15:04")
}

// LongOpening writes an opening time for a text ({{nextOpen}}): "Monday 09:00", with the date
// too when it is a week or more after now ("Monday, January 4 09:00").
func LongOpening(at, now time.Time, loc *time.Location) string {
	if loc == nil {
		loc = time.UTC
	}
	at = at.In(loc)
	if at.Sub(now) >= 6*24*time.Hour {
		return at.Format("Monday, January 2 15:04")
	}
	return at.Format("Monday 15:04")
}
