package store

import (
	"errors"
	"fmt"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"
	_ "time/tzdata" // zone names must validate the same on a host without /usr/share/zoneinfo

	"github.com/nyaruka/phonenumbers"
)

// Quiet hours: a broadcast copy due inside the workspace's quiet hours, in the
// contact's own time zone, waits until they end. This file holds the pure parts: the window, the
// time-zone names, and the zone of a phone number.

// QuietHours is a daily window in local wall-clock time, in minutes after midnight (0–1439).
// Start == End means off; that is the zero value. A window whose End is before its Start crosses
// midnight (21:00-08:00 is quiet from 21:00 to 08:00 the next morning). A minute belongs to the
// window when Start <= minute < End (or, crossing midnight, minute >= Start or minute < End).
type QuietHours struct{ Start, End int }

const quietHoursForm = "must be HH:MM-HH:MM such as 21:00-08:00, or off"

// ParseQuietHours reads "HH:MM-HH:MM" in 24-hour time, the hour with one or two digits and the
// minutes with two (9:00-17:00 and 09:00-17:00 are the same), spaces around the parts and an en
// dash (as typeset text writes it) allowed; "off" (any case) or "" is off. The error message, fit for a
// validation error on the field, says the expected form. An equal start and end is an error: the
// window would be empty or the whole day, and "off" is how to turn quiet hours off.
func ParseQuietHours(s string) (QuietHours, error) {
	s = strings.TrimSpace(s)
	if s == "" || strings.EqualFold(s, "off") {
		return QuietHours{}, nil
	}
	a, b, ok := strings.Cut(s, "-")
	if !ok {
		a, b, ok = strings.Cut(s, "–")
	}
	if !ok {
		return QuietHours{}, errors.New(quietHoursForm)
	}
	start, err := parseClock(strings.TrimSpace(a))
	if err != nil {
		return QuietHours{}, err
	}
	end, err := parseClock(strings.TrimSpace(b))
	if err != nil {
		return QuietHours{}, err
	}
	if start == end {
		return QuietHours{}, errors.New("starts and ends at the same time: " + quietHoursForm + " (write off to turn quiet hours off)")
	}
	return QuietHours{Start: start, End: end}, nil
}

// parseClock reads H:MM or HH:MM, 00:00 to 23:59, as minutes after midnight.
func parseClock(s string) (int, error) {
	h, m, ok := strings.Cut(s, ":")
	if !ok || len(h) < 1 || len(h) > 2 || len(m) != 2 || !allDigits(h) || !allDigits(m) {
		return 0, errors.New(quietHoursForm)
	}
	hh, _ := strconv.Atoi(h)
	mm, _ := strconv.Atoi(m)
	if hh > 23 || mm > 59 {
		// s is at most 5 characters here, so quoting it is safe.
		return 0, fmt.Errorf("%s is not a time of day (00:00 to 23:59): %s", s, quietHoursForm)
	}
	return hh*60 + mm, nil
}

func allDigits(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] < '0' || s[i] > '9' {
			return false
		}
	}
	return true
}

// String is "HH:MM-HH:MM" (zero-padded), or "off"; ParseQuietHours reads it back.
func (q QuietHours) String() string {
	if q.Off() {
		return "off"
	}
	return fmt.Sprintf("%02d:%02d-%02d:%02d", q.Start/60, q.Start%60, q.End/60, q.End%60)
}

// Off reports whether the window is empty (Start == End).
func (q QuietHours) Off() bool { return q.Start == q.End }

// Until reports whether t falls inside the window in loc (nil is UTC) and, if so, when the window
// ends: the first instant after t at which it is not quiet, the End wall-clock time of the day the
// window closes. It is DST-correct: an End that does not exist that day (skipped by a
// spring-forward) is the instant of the jump, the next valid one; an End that occurs twice (a
// fall-back) is its first occurrence, or the second when t lies between the two. Seconds count:
// 20:59:59 is before a 21:00 start, and 07:59:59 is still inside a window ending at 08:00.
func (q QuietHours) Until(t time.Time, loc *time.Location) (end time.Time, quiet bool) {
	if q.Off() {
		return time.Time{}, false
	}
	if loc == nil {
		loc = time.UTC
	}
	lt := t.In(loc)
	m := lt.Hour()*60 + lt.Minute()
	y, mo, d := lt.Date()
	switch {
	case q.Start < q.End: // 12:00-13:00: ends the same day
		if m < q.Start || m >= q.End {
			return time.Time{}, false
		}
	case m >= q.End && m < q.Start: // crossing midnight, between the end and the start
		return time.Time{}, false
	case m >= q.Start: // crossing midnight, evening part: ends tomorrow
		d++
	}
	return wallClockAfter(t, y, mo, d, q.End, loc), true
}

// wallClockAfter is the first instant after t at which the clock in loc reads minute on day
// y-mo-d (d may overflow into the next month, as with time.Date), or, when that wall-clock time
// does not exist that day, the instant the clock jumps past it. time.Date alone does not do
// this: for a skipped or repeated time it picks either side depending on the zone's offset sign.
func wallClockAfter(t time.Time, y int, mo time.Month, d, minute int, loc *time.Location) time.Time {
	r := time.Date(y, mo, d, minute/60, minute%60, 0, 0, loc)
	want := time.Date(y, mo, d, minute/60, minute%60, 0, 0, time.UTC).Unix() // the wall clock as if UTC
	_, off := r.Zone()
	got := r.Unix() + int64(off)
	start, zoneEnd := r.ZoneBounds()
	switch {
	case got < want: // skipped, and r lies before the gap: the gap starts r's zone's end
		return zoneEnd
	case got > want: // skipped, and r lies after the gap
		return start
	}
	// The wall time exists; it may also exist in the zone period before r's (a fall-back repeats
	// an hour). Prefer that first occurrence unless it is not after t.
	if !start.IsZero() {
		_, prevOff := start.Add(-time.Second).Zone()
		if first := want - int64(prevOff); first < start.Unix() {
			if ft := time.Unix(first, 0).In(loc); ft.After(t) {
				return ft
			}
		}
	}
	// The other way round: r may be the first occurrence and t lie between the two.
	if !r.After(t) && !zoneEnd.IsZero() {
		_, nextOff := zoneEnd.Zone()
		if second := want - int64(nextOff); second >= zoneEnd.Unix() {
			return time.Unix(second, 0).In(loc)
		}
	}
	return r
}

// locations caches loaded zones by name: time.LoadLocation reads and parses a file each call, and
// a broadcast asks for the same few zones 100,000 times. Only valid names are cached, so the map
// is bounded by the tz database (about 600 names).
var locations sync.Map // name -> *time.Location

// loadLocation is time.LoadLocation, cached; it refuses "" and "Local", which LoadLocation maps
// to UTC and to the host's zone rather than to a zone of the tz database.
func loadLocation(name string) (*time.Location, bool) {
	if v, ok := locations.Load(name); ok {
		return v.(*time.Location), true
	}
	// The longest tz name is about 32 characters; a long one would only make LoadLocation probe
	// the file system for nothing.
	if name == "" || name == "Local" || len(name) > 64 {
		return nil, false
	}
	loc, err := time.LoadLocation(name)
	if err != nil {
		return nil, false
	}
	locations.Store(name, loc)
	return loc, true
}

// ValidTimeZone reports whether name is an IANA time-zone name that time.LoadLocation accepts
// ("Europe/London", "UTC"); "" and "Local" are not. Names are case-sensitive.
func ValidTimeZone(name string) bool {
	_, ok := loadLocation(name)
	return ok
}

// zoneChoice is the cached answer for one multi-zone list from phonenumbers: its loaded zones,
// and the last pick with the span of instants over which no candidate's offset changes, so the
// pick holds for every at inside it (a broadcast's instants all fall in one such span).
type zoneChoice struct {
	regionWide bool // every zone of the country: unknown (see regionWide)
	locs       []*time.Location
	pick       atomic.Pointer[zonePick]
}

type zonePick struct {
	loc      *time.Location
	from, to time.Time // to.IsZero(): no later change
}

// phoneZones caches zoneChoices keyed by the address of the list's first element: phonenumbers
// hands out the slices of its own prefix map, loaded once, so the same area code gives the same
// pointer, and the key costs neither a join nor an allocation. phoneZonesLen caps the map in case
// a later phonenumbers copies its slices; past the cap the pick is computed uncached.
var (
	phoneZones    sync.Map // *string -> *zoneChoice
	phoneZonesLen atomic.Int64
)

const phoneZonesCap = 4096

// PhoneTimeZone is the zone of an E.164 number by its country and area code, from
// github.com/nyaruka/phonenumbers. When the number maps to several zones — a country or area
// code spanning zones, or a NANP number whose area code the data does not know (toll-free 800,
// or an unassigned one), which maps to every NANP zone from Guam to Pago Pago — it is the
// latest-waking one: the zone with the smallest UTC offset at the instant at, so no recipient is
// woken; among equal offsets the first name in phonenumbers' (alphabetical) list. It is false
// when the number is not E.164 or phonenumbers does not know it ("Etc/Unknown").
func PhoneTimeZone(phone string, at time.Time) (*time.Location, bool) {
	if !plainE164(phone) {
		return nil, false
	}
	names, err := phonenumbers.GetTimezonesForPrefix(phone)
	if err != nil || len(names) == 0 || names[0] == phonenumbers.UNKNOWN_TIMEZONE {
		return nil, false
	}
	if len(names) == 1 {
		return loadLocation(names[0])
	}
	key := &names[0]
	var c *zoneChoice
	if v, ok := phoneZones.Load(key); ok {
		c = v.(*zoneChoice)
	} else {
		c = &zoneChoice{regionWide: regionWide(phone, names)}
		for _, n := range names {
			if loc, ok := loadLocation(n); ok {
				c.locs = append(c.locs, loc)
			}
		}
		if phoneZonesLen.Load() < phoneZonesCap {
			if _, loaded := phoneZones.LoadOrStore(key, c); !loaded {
				phoneZonesLen.Add(1)
			}
		}
	}
	if c.regionWide {
		return nil, false
	}
	if p := c.pick.Load(); p != nil && !at.Before(p.from) && (p.to.IsZero() || at.Before(p.to)) {
		return p.loc, true
	}
	p := latestWaking(c.locs, at)
	if p.loc == nil {
		return nil, false
	}
	c.pick.Store(p)
	return p.loc, true
}

// regionWide reports whether names is every zone of the number's country: the data knows nothing
// of where in the country the number is (a toll-free 800 number, an unassigned area code), so
// it says nothing about the contact's zone and the workspace's applies. Without this, every such
// number would take the country's latest-waking zone (Pago Pago for +1) and wait for hours.
func regionWide(phone string, names []string) bool {
	num, err := phonenumbers.Parse(phone, "")
	if err != nil {
		return false
	}
	all, err := phonenumbers.GetTimezonesForPrefix("+" + strconv.Itoa(int(num.GetCountryCode())))
	return err == nil && len(all) > 1 && len(all) == len(names)
}

// latestWaking picks the zone with the smallest offset at at, with the span around at in which
// no zone of locs changes its offset.
func latestWaking(locs []*time.Location, at time.Time) *zonePick {
	p := &zonePick{}
	bestOff := 0
	for _, loc := range locs {
		lt := at.In(loc)
		_, off := lt.Zone()
		if p.loc == nil || off < bestOff {
			p.loc, bestOff = loc, off
		}
		from, to := lt.ZoneBounds()
		if from.After(p.from) {
			p.from = from
		}
		if !to.IsZero() && (p.to.IsZero() || to.Before(p.to)) {
			p.to = to
		}
	}
	return p
}

// plainE164 is ValidE164 without the regular expression, which cost most of a lookup: "+", a
// digit 1–9, then 1 to 14 more digits.
func plainE164(s string) bool {
	if len(s) < 3 || len(s) > 16 || s[0] != '+' || s[1] < '1' || s[1] > '9' {
		return false
	}
	return allDigits(s[2:])
}

// ContactLocation picks the zone a contact's quiet hours are read in: its own timeZone when that
// is a valid name, else the zone of its phone number (PhoneTimeZone at the instant at), else the
// workspace's zone, else UTC. It never returns nil.
func ContactLocation(contactTZ, phone string, workspace *time.Location, at time.Time) *time.Location {
	if loc, ok := loadLocation(contactTZ); ok {
		return loc
	}
	if loc, ok := PhoneTimeZone(phone, at); ok {
		return loc
	}
	if workspace != nil {
		return workspace
	}
	return time.UTC
}
