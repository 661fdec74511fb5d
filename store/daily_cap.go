package store

import (
	"fmt"
	"time"

	"switchboard/store/kv"
)

// Daily cap per number: a number may have a cap on the texts it sends per day (0 = none),
// the day being the workspace's calendar day in its time zone. What counts toward a day: every
// outbound message of the number due that day — broadcast copies on the day they are released
// (queued now, or held for that day), single, group and keyword-reply messages on the day they
// are queued or scheduled for. Only broadcast copies wait for room; the others go even when the
// day is full (they answer or follow up a conversation). A copy cancelled before it went gives
// its place back.

// MaxDailyCap bounds a number's daily cap (a day has 86,400 seconds; no carrier allows more
// than this many texts a day from one number).
const MaxDailyCap = 10_000_000

// CheckDailyCap is the validation message for a daily cap, "" when it is fine.
func CheckDailyCap(n int) string {
	if n < 0 || n > MaxDailyCap {
		return fmt.Sprintf("must be a whole number of texts a day from 0 (no cap) to %s", thousands(MaxDailyCap))
	}
	return ""
}

// SetNumberDailyCap changes a number's daily cap (0 removes it). A cap below 0 is a
// ValidationError on dailyCap; another workspace's or an unknown number is ErrNotFound.
func (s *Store) SetNumberDailyCap(workspaceID, id string, cap int) (PhoneNumber, error) {
	return s.SetNumberSettings(workspaceID, id, nil, &cap)
}

// SentOnDay is how many messages count toward the number's cap on the workspace day that
// contains at.
func (s *Store) SentOnDay(workspaceID, numberID string, at time.Time) (int, error) {
	var count int
	err := s.view(func(tx *kv.Tx) error {
		w, err := getWorkspace(tx, workspaceID)
		if err != nil {
			return err
		}
		count = int(decodeUint(tx.Bucket(bNumberDaySends).Get(dayKey(idKey(numberID), at, w.Location()))))
		return nil
	})
	return count, err
}

// dayKey is the counter key of the number's day containing t in loc.
func dayKey(number []byte, t time.Time, loc *time.Location) []byte {
	return append(append(make([]byte, 0, 24), number...), t.In(loc).Format("20060102")...)
}

// dayStart is midnight (or the day's first instant, where a clock change skips midnight) of the
// day d days after the one containing t, in loc.
func dayStart(t time.Time, d int, loc *time.Location) time.Time {
	y, m, dd := t.In(loc).Date()
	return time.Date(y, m, dd+d, 0, 0, 0, 0, loc)
}

// dayCounter tracks a number's per-day counts across one transaction: read once per day,
// written back by flush.
type dayCounter struct {
	limit  int
	number []byte
	loc    *time.Location
	counts map[string]int // day key -> count
	dirty  map[string]bool
	// room is the first instant of the first day that may still have room: every day before it
	// is full, so a large broadcast does not walk its full days again for each copy.
	room time.Time
}

func newDayCounter(limit int, numberID string, loc *time.Location, now time.Time) dayCounter {
	return dayCounter{limit: limit, number: idKey(numberID), loc: loc, counts: map[string]int{}, dirty: map[string]bool{},
		room: dayStart(now, 0, loc)}
}

func (c *dayCounter) count(tx *kv.Tx, t time.Time) (int, string) {
	k := string(dayKey(c.number, t, c.loc))
	n, ok := c.counts[k]
	if !ok {
		n = int(decodeUint(tx.Bucket(bNumberDaySends).Get([]byte(k))))
		c.counts[k] = n
	}
	return n, k
}

func (c *dayCounter) full(tx *kv.Tx, t time.Time) (bool, error) {
	n, _ := c.count(tx, t)
	return n >= c.limit, nil
}

func (c *dayCounter) nextDay(t time.Time) time.Time { return dayStart(t, 1, c.loc) }

// firstRoom is t when its day has room, else the start of the first later day with room.
func (c *dayCounter) firstRoom(tx *kv.Tx, t time.Time) (time.Time, bool, error) {
	moved := false
	if c.room.After(t) {
		t, moved = c.room, true
	}
	for n, k := c.count(tx, t); n >= c.limit; n, k = c.count(tx, t) {
		if k == string(dayKey(c.number, c.room, c.loc)) {
			c.room = c.nextDay(t) // only a full day at the front moves the front
		}
		t, moved = c.nextDay(t), true
	}
	return t, moved, nil
}

func (c *dayCounter) add(t time.Time) {
	k := string(dayKey(c.number, t, c.loc))
	c.counts[k]++ // count was read before (full or firstRoom)
	c.dirty[k] = true
}

// flush writes the changed days, and drops the number's days before yesterday: nothing counts
// toward them any more.
func (c *dayCounter) flush(tx *kv.Tx, now time.Time) error {
	b := tx.Bucket(bNumberDaySends)
	for k := range c.dirty {
		if err := b.Put([]byte(k), encodeUint(uint64(c.counts[k]))); err != nil {
			return err
		}
	}
	clear(c.dirty)
	return dropOldDays(b, c.number, dayKey(c.number, dayStart(now, -1, c.loc), c.loc))
}

func dropOldDays(b *kv.Bucket, number, before []byte) error {
	var old [][]byte
	cur := b.Cursor()
	for k, _ := cur.Seek(number); k != nil && len(k) == 24 && string(k[:16]) == string(number) && string(k) < string(before); k, _ = cur.Next() {
		old = append(old, append([]byte(nil), k...))
	}
	for _, k := range old {
		if err := b.Delete(k); err != nil {
			return err
		}
	}
	return nil
}

// countSend counts a message that is not a broadcast copy toward its number's day (the day it is
// due), when the number has a cap. It reads the number only for such messages.
func countSend(tx *kv.Tx, m *Message, due time.Time) error {
	var n struct {
		DailyCap int `json:"dailyCap"`
	}
	if ok, err := getJSON(tx.Bucket(bNumbers), wsKey(m.WorkspaceID, m.NumberID), &n); err != nil || !ok || n.DailyCap <= 0 {
		return err
	}
	w, err := getWorkspace(tx, m.WorkspaceID)
	if err != nil {
		return err
	}
	b := tx.Bucket(bNumberDaySends)
	k := dayKey(idKey(m.NumberID), due, w.Location())
	return b.Put(k, encodeUint(decodeUint(b.Get(k))+1))
}

// uncountCopies gives back the places of cancelled broadcast copies that had not gone: ready
// ones counted today, held ones on the day they were due.
func uncountCopies(tx *kv.Tx, workspaceID, numberID string, now time.Time, ready int, held []time.Time) error {
	if ready == 0 && len(held) == 0 {
		return nil
	}
	w, err := getWorkspace(tx, workspaceID)
	if err != nil {
		return err
	}
	loc, number, b := w.Location(), idKey(numberID), tx.Bucket(bNumberDaySends)
	take := func(t time.Time, n int) error {
		k := dayKey(number, t, loc)
		v := b.Get(k)
		if v == nil {
			return nil // no cap counted it
		}
		left := int(decodeUint(v)) - n
		return b.Put(k, encodeUint(uint64(max(left, 0))))
	}
	if err := take(now, ready); err != nil {
		return err
	}
	for _, t := range held {
		if err := take(t, 1); err != nil {
			return err
		}
	}
	return nil
}
