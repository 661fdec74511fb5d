package store

import (
	"strconv"
	"strings"
	"time"

	"switchboard/store/kv"
)

// Holding broadcast copies: a copy may wait (status scheduled, in the delayed queue, the same
// place as a retry) for three rules, and goes only when all of them allow it:
//   - the workspace's quiet hours, in the contact's time zone;
//   - US state calling hours (a workspace setting), in the contact's time zone;
//   - its number's daily cap, counted per day in the workspace's time zone.
// A held copy says which rule held it ("held until 12:00 CST: Texas, Sunday"); the broadcast
// keeps a count per such reason for its page. Deciding costs no read or write per copy beyond
// the contact the quiet-hours rule already reads: the cap's day counters are read once per day
// and written once per fan-out chunk.

// HeldGroup counts a broadcast's copies held for one reason.
type HeldGroup struct {
	Until  time.Time `json:"until"`
	Reason string    `json:"reason"`
	Count  int       `json:"count"`
}

// maxHeldGroups bounds the reasons a broadcast keeps; copies held for further reasons join the
// last group, whose reason then says so.
const maxHeldGroups = 24

// HeldNow is the groups of b whose copies still wait at now, latest-opening last.
func (b *Broadcast) HeldNow(now time.Time) []HeldGroup {
	var out []HeldGroup
	for _, g := range b.Held {
		if g.Until.After(now) {
			out = append(out, g)
		}
	}
	return out
}

func (b *Broadcast) countHeld(until time.Time, reason string) {
	for i := range b.Held {
		if b.Held[i].Reason == reason {
			b.Held[i].Count++
			return
		}
	}
	if len(b.Held) >= maxHeldGroups {
		last := &b.Held[len(b.Held)-1]
		last.Count++
		last.Reason = "held for these and other reasons"
		if until.After(last.Until) {
			last.Until = until
		}
		return
	}
	b.Held = append(b.Held, HeldGroup{Until: until, Reason: reason, Count: 1})
}

// copyHold decides when the copies of one fan-out chunk may go.
type copyHold struct {
	quiet      QuietHours
	stateHours bool
	wsLoc      *time.Location
	now        time.Time
	cap        dayCounter // cap.limit 0: no daily cap
}

// needsZone reports whether the rules read the contact's time zone (and so its record).
func (h *copyHold) needsZone() bool { return !h.quiet.Off() || h.stateHours }

// when is when a copy to phone may go: the zero time for now, else the instant it is held until
// with the words that say why; ok false when no instant within a week both the quiet hours and
// the state's hours allow (the copy cannot be sent). contactTZ is the contact's own zone.
func (h *copyHold) when(tx *kv.Tx, phone, contactTZ string) (hold time.Time, reason string, ok bool, err error) {
	loc := h.wsLoc
	var rule CallingRule
	hasRule := false
	if h.needsZone() {
		loc = ContactLocation(contactTZ, phone, h.wsLoc, h.now)
		if h.stateHours {
			rule, hasRule = CallingRuleFor(phone)
		}
	}
	t, capped := h.now, false
	var why string
	for tries := 0; tries < 16; tries++ {
		if h.cap.limit > 0 {
			var moved bool
			if t, moved, err = h.cap.firstRoom(tx, t); err != nil {
				return time.Time{}, "", false, err
			}
			capped = capped || moved
		}
		var fits bool
		t, why, fits = h.windows(t, rule, hasRule, loc)
		if !fits {
			break
		}
		if h.cap.limit > 0 {
			full, err := h.cap.full(tx, t)
			if err != nil {
				return time.Time{}, "", false, err
			}
			if full { // the window opens on a day already full: look from the next day
				t, capped = h.cap.nextDay(t), true
				continue
			}
			h.cap.add(t)
		}
		if !t.After(h.now) {
			return time.Time{}, "", true, nil
		}
		var parts []string
		if capped {
			parts = append(parts, "daily cap of "+thousands(h.cap.limit)+" reached")
		}
		if why != "" {
			parts = append(parts, why)
		}
		shown := loc // a copy held by the cap alone waits for the workspace's midnight: say it in that zone
		if why == "" {
			shown = h.wsLoc
		}
		return t, "held until " + heldUntil(t, h.now, shown) + ": " + strings.Join(parts, "; "), true, nil
	}
	return time.Time{}, "", false, nil
}

// windows moves t to the first instant at or after it when neither the quiet hours nor the
// state's hours hold a copy (the stricter of the two wins), with the words of the rule that
// moved it last; false when no such instant comes within a week (the two never overlap).
func (h *copyHold) windows(t time.Time, rule CallingRule, hasRule bool, loc *time.Location) (time.Time, string, bool) {
	why := ""
	limit := t.Add(8 * 24 * time.Hour)
	for t.Before(limit) {
		moved := false
		if end, quiet := h.quiet.Until(t, loc); quiet {
			t, why, moved = end, "quiet hours "+strings.Replace(h.quiet.String(), "-", "–", 1), true
		}
		if hasRule {
			if open, label, held := rule.Until(t, loc); held {
				t, why, moved = open, label, true
			}
		}
		if !moved {
			return t, why, true
		}
	}
	return t, why, false
}

// thousands writes n with comma separators: 1,000.
func thousands(n int) string {
	s := strconv.Itoa(n)
	for i := len(s) - 3; i > 0; i -= 3 {
		s = s[:i] + "," + s[i:]
	}
	return s
}
