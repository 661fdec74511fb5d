package store

import (
	"bytes"
	"encoding/binary"
	"time"

	"switchboard/automation"
	"switchboard/store/kv"
)

// The automations' due-time queue. What must happen later — the conversation.unanswered rules
// of a waiting conversation, the moment it becomes overdue — waits in bAutoDue, keyed
// due(8, big-endian Unix nanoseconds) | workspace(16) | conversation(16) | kind(1) | ref(16),
// its value the start of the wait it was made for (8) and, for the unanswered rules, the time up
// to which they have been tested (8). RunDue reads the due entries first and stops at the first
// that is not, so nothing ever scans the conversations; cli owns the timer that calls it (at the
// next due time, woken when an earlier one is written).
//
// A waiting conversation has one entry for all its unanswered rules, due when the first of them
// is: when it comes due, the rules whose time has come since the last test fire, in their
// order, and the entry moves on to the next rule's time. An entry is checked when it comes due,
// not cancelled when its reason goes: a wait that was answered, closed or started again
// meanwhile leaves an entry whose start no longer matches, and it is dropped.

const (
	dueUnanswered    byte = 'u' // ref: the rule
	dueFirstResponse byte = 'f' // ref: none
)

const dueKeyLen = 8 + 16 + 16 + 1 + 16

func dueKey(at time.Time, ws, conv string, kind byte, ref string) []byte {
	k := make([]byte, 0, dueKeyLen)
	k = binary.BigEndian.AppendUint64(k, uint64(at.UnixNano()))
	k = append(k, idKey(ws)...)
	k = append(k, idKey(conv)...)
	k = append(k, kind)
	if ref == "" {
		return append(k, noID...)
	}
	return append(k, idKey(ref)...)
}

// putDue queues an entry due at at for the wait that started at since, its rules tested up to
// after.
func putDue(tx *wtx, at time.Time, c *Conversation, kind byte, since, after time.Time) error {
	tx.due = true
	v := binary.BigEndian.AppendUint64(make([]byte, 0, 16), uint64(since.UnixNano()))
	v = binary.BigEndian.AppendUint64(v, uint64(after.UnixNano()))
	return tx.Bucket(bAutoDue).Put(dueKey(at, c.WorkspaceID, c.ID, kind, ""), v)
}

// dueEntry is one entry taken from the queue.
type dueEntry struct {
	at    time.Time
	kind  byte
	since time.Time // the start of the wait it was made for
	after time.Time // the rules due up to then were tested already
}

// RunDue acts on the entries due at or before now (at most max) and reports how many it took
// and when the next one is due (zero when none waits).
func (s *Store) RunDue(now time.Time, max int) (done int, next time.Time, err error) {
	// Nothing due is the common case: a read transaction answers it.
	err = s.view(func(tx *kv.Tx) error {
		if k, _ := tx.Bucket(bAutoDue).Cursor().First(); len(k) >= 8 {
			next = time.Unix(0, int64(binary.BigEndian.Uint64(k[:8])))
		}
		return nil
	})
	if err != nil || next.IsZero() || next.After(now) {
		return 0, next, err
	}
	err = s.updateNow(func(tx *wtx) error {
		done, next = 0, time.Time{}
		b := tx.Bucket(bAutoDue)
		type convRef struct{ ws, conv string }
		var order []convRef
		byConv := map[convRef][]dueEntry{}
		var taken [][]byte
		c := b.Cursor()
		for k, v := c.First(); k != nil; k, v = c.Next() {
			if len(k) != dueKeyLen || len(v) != 16 {
				taken = append(taken, bytes.Clone(k))
				continue
			}
			at := time.Unix(0, int64(binary.BigEndian.Uint64(k[:8])))
			if at.After(now) || done >= max {
				next = at
				break
			}
			taken = append(taken, bytes.Clone(k))
			done++
			ref := convRef{idFromKey(k[8:24]), idFromKey(k[24:40])}
			if _, ok := byConv[ref]; !ok {
				order = append(order, ref)
			}
			byConv[ref] = append(byConv[ref], dueEntry{at: at, kind: k[40], since: time.Unix(0, int64(binary.BigEndian.Uint64(v[:8]))),
				after: time.Unix(0, int64(binary.BigEndian.Uint64(v[8:])))})
		}
		for _, k := range taken {
			if err := b.Delete(k); err != nil {
				return err
			}
		}
		for _, ref := range order {
			if err := s.dueFire(tx, ref.ws, ref.conv, byConv[ref], now); err != nil {
				return err
			}
		}
		return nil
	})
	return done, next, err
}

// SweepDue acts on everything due by the store's clock, 500 entries per transaction, and
// reports how many it took and when the next one is due.
func (s *Store) SweepDue() (int, time.Time, error) {
	total := 0
	for {
		n, next, err := s.RunDue(s.Now(), 500)
		total += n
		if err != nil || n < 500 {
			return total, next, err
		}
	}
}

// dueFire acts on a conversation's due entries: an overdue moment tells the open inboxes; the
// unanswered rules whose time has come since they were last tested fire, in the rules' order
// (a rule that says stop ends the others due with it), if the conversation still waits as it
// did when they were queued; the entry moves on to the next rule's time.
func (s *Store) dueFire(tx *wtx, ws, convID string, entries []dueEntry, now time.Time) error {
	var conv Conversation
	ok, err := getJSON(tx.Bucket(bConversations), wsKey(ws, convID), &conv)
	if err != nil || !ok {
		return err
	}
	w, err := getWorkspace(tx.Tx, ws)
	if err != nil {
		return nil // the workspace went: nothing to do
	}
	if tx.Bucket(bMeta).Get(archivedKey(ws)) != nil {
		return nil
	}
	r, err := s.routingOf(tx.Tx, ws)
	if err != nil {
		return err
	}
	var due []*automation.Compiled
	for _, e := range entries {
		switch e.kind {
		case dueFirstResponse:
			if conv.FirstResponseDue != nil && conv.FirstResponseDue.Equal(e.at) && conv.Status != ConversationClosed {
				if err := s.live(tx, ws, LiveConversation, conv.ID, "", map[string]any{"change": "overdue", "status": conv.Status}); err != nil {
					return err
				}
			}
		case dueUnanswered:
			if conv.Status != ConversationOpen || conv.AwaitingSince == nil || !conv.AwaitingSince.Equal(e.since) {
				continue // answered, closed or snoozed, or a newer wait: not this one
			}
			var next time.Time
			for _, rule := range r.rules.Rules(automation.TriggerUnanswered) {
				at, ok := unansweredDue(r, &conv, &rule.Rule, w.Location())
				switch {
				case !ok || !at.After(e.after):
				case !at.After(now):
					due = append(due, rule)
				case next.IsZero() || at.Before(next):
					next = at
				}
			}
			if !next.IsZero() {
				if err := putDue(tx, next, &conv, dueUnanswered, e.since, now); err != nil {
					return err
				}
			}
		}
	}
	if len(due) == 0 {
		return nil
	}
	ev := &ruleEvent{trigger: automation.TriggerUnanswered, w: &w, r: r, conv: &conv, now: now, msg: lastInbound(tx.Tx, ws, conv.ID)}
	before := conv
	f := s.facts(tx.Tx, ev)
	for _, rule := range due {
		if !rule.Matches(f) {
			continue
		}
		if err := s.fireRule(tx, ev, rule); err != nil {
			return err
		}
		if rule.Rule.Stop {
			break
		}
	}
	return s.saveAutomated(tx.Tx, &conv, &before)
}

// lastInbound is the conversation's newest inbound message (nil when none among its last 50).
func lastInbound(tx *kv.Tx, ws, convID string) *Message {
	return lastMessageWhere(tx, ws, convID, func(m *Message) bool { return !m.Outbound })
}

// lastOutbound is the conversation's newest outbound message (nil when none among its last 50).
func lastOutbound(tx *kv.Tx, ws, convID string) *Message {
	return lastMessageWhere(tx, ws, convID, func(m *Message) bool { return m.Outbound })
}

func lastMessageWhere(tx *kv.Tx, ws, convID string, keep func(*Message) bool) *Message {
	var out *Message
	p := idxPrefix(ws, convID)
	seen := 0
	_ = reverseScan(tx.Bucket(bConvMessages), p, func(k []byte) (bool, error) {
		if len(k) != len(p)+16 {
			return false, nil
		}
		seen++
		var m Message
		if ok, err := getJSON(tx.Bucket(bMessages), wsKey(ws, idFromKey(k)), &m); err != nil || !ok {
			return seen >= 50, nil
		}
		if keep(&m) {
			out = &m
			return true, nil
		}
		return seen >= 50, nil
	})
	return out
}
