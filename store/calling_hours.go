package store

import (
	"slices"
	"strings"
	"sync/atomic"
	"time"

	"github.com/nyaruka/phonenumbers"
)

// US state calling hours: when the workspace turns them on, a broadcast copy to a +1 number
// waits outside the hours the recipient's state allows, read in the recipient's time zone. The
// state comes from the area code (an area code never spans two states), through the geocoding
// data of github.com/nyaruka/phonenumbers (Google's libphonenumber): it names a state
// ("Texas") or a place with the state's postal code ("San Francisco, CA").

// dayWindow is the part of one day a text may go, in minutes after midnight: open <= m < close.
type dayWindow struct{ open, close int }

// CallingRule is a state's hours for each weekday (index time.Weekday) and how a held copy
// names it: name, then the day's qualifier when the hours differ by day ("Texas, Sunday").
type CallingRule struct {
	name string
	days [7]dayWindow
	// qualifier names the kind of day a window belongs to, "" when every day is the same.
	qualifier [7]string
}

func everyDay(open, close int) (d [7]dayWindow) {
	for i := range d {
		d[i] = dayWindow{open, close}
	}
	return d
}

const hour = 60

// defaultCallingHours is the federal (TCPA) window, 08:00–21:00, that every state without a
// stricter law of its own, and every +1 number whose state is unknown, follows.
var defaultCallingHours = everyDay(8*hour, 21*hour)

// stateRules are the states whose own law is stricter than the default.
var stateRules = map[string]CallingRule{
	"FL": {days: everyDay(8*hour, 20*hour)},
	"OK": {days: everyDay(8*hour, 20*hour)},
	"MD": {days: everyDay(8*hour, 20*hour)},
	"MS": {days: everyDay(8*hour, 20*hour)},
	"NJ": {days: everyDay(8*hour, 20*hour)},
	"CT": {days: everyDay(9*hour, 20*hour)},
	"TX": {
		days: [7]dayWindow{time.Sunday: {12 * hour, 21 * hour}, time.Monday: {9 * hour, 21 * hour}, time.Tuesday: {9 * hour, 21 * hour},
			time.Wednesday: {9 * hour, 21 * hour}, time.Thursday: {9 * hour, 21 * hour}, time.Friday: {9 * hour, 21 * hour}, time.Saturday: {9 * hour, 21 * hour}},
		qualifier: [7]string{time.Sunday: "Sunday", time.Monday: "Monday–Saturday", time.Tuesday: "Monday–Saturday",
			time.Wednesday: "Monday–Saturday", time.Thursday: "Monday–Saturday", time.Friday: "Monday–Saturday", time.Saturday: "Monday–Saturday"},
	},
	"RI": {
		days: [7]dayWindow{time.Sunday: {10 * hour, 17 * hour}, time.Monday: {9 * hour, 18 * hour}, time.Tuesday: {9 * hour, 18 * hour},
			time.Wednesday: {9 * hour, 18 * hour}, time.Thursday: {9 * hour, 18 * hour}, time.Friday: {9 * hour, 18 * hour}, time.Saturday: {10 * hour, 17 * hour}},
		qualifier: [7]string{time.Sunday: "weekend", time.Monday: "weekday", time.Tuesday: "weekday", time.Wednesday: "weekday",
			time.Thursday: "weekday", time.Friday: "weekday", time.Saturday: "weekend"},
	},
}

// CallingRuleFor is the calling-hours rule of a phone number: its state's for a US area code,
// the default 08:00–21:00 for any other +1 number (Canada, US territories, toll-free, an area
// code the data does not place), and false for numbers outside +1, which the rule leaves alone.
func CallingRuleFor(phone string) (CallingRule, bool) {
	if !plainE164(phone) || len(phone) != 12 || phone[1] != '1' {
		return CallingRule{}, false
	}
	code := usState(phone)
	r, ok := stateRules[code]
	if !ok {
		r = CallingRule{days: defaultCallingHours}
	}
	r.name = stateNames[code]
	if r.name == "" {
		r.name = "calling hours"
	}
	return r, true
}

// Until reports whether t falls outside the rule's hours in loc and, if so, when they next
// open, with the words that name the window that opens ("Texas, Sunday"). Like QuietHours.Until
// it is DST-correct and counts seconds: 20:59:59 is inside a window that closes at 21:00.
func (r CallingRule) Until(t time.Time, loc *time.Location) (open time.Time, label string, held bool) {
	lt := t.In(loc)
	m := lt.Hour()*60 + lt.Minute()
	y, mo, d := lt.Date()
	wd := lt.Weekday()
	w := r.days[wd]
	switch {
	case m >= w.open && m < w.close:
		return time.Time{}, "", false
	case m >= w.close: // after today's window: tomorrow's opens
		d++
		wd = (wd + 1) % 7
	}
	return wallClockAfter(t, y, mo, d, r.days[wd].open, loc), r.label(wd), true
}

func (r CallingRule) label(wd time.Weekday) string {
	if q := r.qualifier[wd]; q != "" {
		return r.name + ", " + q
	}
	return r.name
}

// areaStates caches the state of each area code (index: the three digits), computed once from
// the geocoding data: 0 not looked up yet, 1 no state, else 2 + the state's index in stateCodes.
var areaStates [1000]atomic.Int32

// usState is the postal code of the US state (or "DC") of a +1 number's area code, "" when the
// area code is not a US state's.
func usState(phone string) string {
	ac := int(phone[2]-'0')*100 + int(phone[3]-'0')*10 + int(phone[4]-'0')
	switch v := areaStates[ac].Load(); {
	case v == 1:
		return ""
	case v >= 2:
		return stateCodes[v-2]
	}
	code := ""
	if num, err := phonenumbers.Parse(phone, ""); err == nil {
		if desc, err := phonenumbers.GetGeocodingForNumber(num, "en"); err == nil {
			code = stateOf(desc)
		}
	}
	v := int32(1)
	for i, c := range stateCodes {
		if c == code {
			v = int32(i) + 2
		}
	}
	areaStates[ac].Store(v)
	return code
}

// stateOf reads a state from a geocoding description: a state's name ("New Jersey"), or a
// place followed by the state's postal code ("San Francisco, CA"); "" for anything else
// ("Ontario", "Puerto Rico", "United States").
func stateOf(desc string) string {
	if i := strings.LastIndex(desc, ", "); i >= 0 {
		if c := desc[i+2:]; stateNames[c] != "" {
			return c
		}
	}
	for c, n := range stateNames {
		if n == desc {
			return c
		}
	}
	if desc == "Washington D.C." {
		return "DC"
	}
	return ""
}

var stateNames = map[string]string{
	"AL": "Alabama", "AK": "Alaska", "AZ": "Arizona", "AR": "Arkansas", "CA": "California", "CO": "Colorado",
	"CT": "Connecticut", "DE": "Delaware", "DC": "District of Columbia", "FL": "Florida", "GA": "Georgia",
	"HI": "Hawaii", "ID": "Idaho", "IL": "Illinois", "IN": "Indiana", "IA": "Iowa", "KS": "Kansas",
	"KY": "Kentucky", "LA": "Louisiana", "ME": "Maine", "MD": "Maryland", "MA": "Massachusetts",
	"MI": "Michigan", "MN": "Minnesota", "MS": "Mississippi", "MO": "Missouri", "MT": "Montana",
	"NE": "Nebraska", "NV": "Nevada", "NH": "New Hampshire", "NJ": "New Jersey", "NM": "New Mexico",
	"NY": "New York", "NC": "North Carolina", "ND": "North Dakota", "OH": "Ohio", "OK": "Oklahoma",
	"OR": "Oregon", "PA": "Pennsylvania", "RI": "Rhode Island", "SC": "South Carolina", "SD": "South Dakota",
	"TN": "Tennessee", "TX": "Texas", "UT": "Utah", "VT": "Vermont", "VA": "Virginia", "WA": "Washington",
	"WV": "West Virginia", "WI": "Wisconsin", "WY": "Wyoming",
}

// stateCodes orders stateNames' keys for areaStates.
var stateCodes = func() []string {
	out := make([]string, 0, len(stateNames))
	for c := range stateNames {
		out = append(out, c)
	}
	slices.Sort(out)
	return out
}()

// heldUntil words when a held copy goes, in loc: the time and zone ("12:00 CST"), with the day
// when it is not now's day ("Thu Nov 26 08:00 EST").
func heldUntil(at, now time.Time, loc *time.Location) string {
	la, ln := at.In(loc), now.In(loc)
	if y, m, d := la.Date(); func() bool { y2, m2, d2 := ln.Date(); return y == y2 && m == m2 && d == d2 }() {
		return la.Format("15:04 MST")
	}
	return la.Format("Mon Jan 2 15:04 MST")
}
