package store

import (
	"bytes"
	"encoding/binary"
	"slices"
	"time"

	"switchboard/automation"

	bolt "go.etcd.io/bbolt"
)

// The automations' due-time queue. What must happen later — a conversation.unanswered rule's
// test, the moment a conversation becomes overdue — waits in bAutoDue, keyed
// due(8, big-endian Unix nanoseconds) | workspace(16) | conversation(16) | kind(1) | ref(16),
// its value the start of the wait it was made for (8). RunDue reads the due entries first and
// stops at the first that is not, so nothing ever scans the conversations; cli owns the timer
// that calls it (at the next due time, woken when an earlier one is written).
//
// An entry is checked when it comes due, not cancelled when its reason goes: a wait that was
// answered, closed or started again meanwhile leaves an entry whose start no longer matches,
// and it is dropped.

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

// putDue queues an entry due at at for the wait that started at since.
func putDue(tx *bolt.Tx, fx *effects, at time.Time, c *Conversation, kind byte, ref string, since time.Time) error {
	fx.due = true
	return tx.Bucket(bAutoDue).Put(dueKey(at, c.WorkspaceID, c.ID, kind, ref), binary.BigEndian.AppendUint64(nil, uint64(since.UnixNano())))
}

// OnDue registers the function called after a commit that queued a due entry: the timer's
// wake, so it can wait for an earlier time than it knew of.
func (s *Store) OnDue(f func()) { s.hookMu.Lock(); s.onDue = f; s.hookMu.Unlock() }

func (s *Store) notifyDue() {
	s.hookMu.RLock()
	f := s.onDue
	s.hookMu.RUnlock()
	if f != nil {
		f()
	}
}

// dueEntry is one entry taken from the queue.
type dueEntry struct {
	at    time.Time
	kind  byte
	ref   string
	since time.Time
}

// RunDue acts on the entries due at or before now (at most max) and reports how many it took
// and when the next one is due (zero when none waits).
func (s *Store) RunDue(now time.Time, max int) (done int, next time.Time, err error) {
	// Nothing due is the common case: a read transaction answers it.
	err = s.db.View(func(tx *bolt.Tx) error {
		if k, _ := tx.Bucket(bAutoDue).Cursor().First(); len(k) >= 8 {
			next = time.Unix(0, int64(binary.BigEndian.Uint64(k[:8])))
		}
		return nil
	})
	if err != nil || next.IsZero() || next.After(now) {
		return 0, next, err
	}
	err = s.updateNow(func(tx *bolt.Tx, fx *effects) error {
		done, next = 0, time.Time{}
		b := tx.Bucket(bAutoDue)
		type convRef struct{ ws, conv string }
		var order []convRef
		byConv := map[convRef][]dueEntry{}
		var taken [][]byte
		c := b.Cursor()
		for k, v := c.First(); k != nil; k, v = c.Next() {
			if len(k) != dueKeyLen || len(v) != 8 {
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
			e := dueEntry{at: at, kind: k[40], since: time.Unix(0, int64(binary.BigEndian.Uint64(v)))}
			if !bytes.Equal(k[41:], noID) {
				e.ref = idFromKey(k[41:])
			}
			byConv[ref] = append(byConv[ref], e)
		}
		for _, k := range taken {
			if err := b.Delete(k); err != nil {
				return err
			}
		}
		for _, ref := range order {
			if err := s.dueFire(tx, fx, ref.ws, ref.conv, byConv[ref], now); err != nil {
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

// dueFire acts on a conversation's due entries: an overdue moment tells the open inboxes;
// the unanswered rules whose wait is still the one they were queued for are tested, in the
// rules' order, and fire (a rule that says stop ends the others due at the same time).
func (s *Store) dueFire(tx *bolt.Tx, fx *effects, ws, convID string, entries []dueEntry, now time.Time) error {
	var conv Conversation
	ok, err := getJSON(tx.Bucket(bConversations), wsKey(ws, convID), &conv)
	if err != nil || !ok {
		return err
	}
	w, err := getWorkspace(tx, ws)
	if err != nil {
		return nil // the workspace went: nothing to do
	}
	if tx.Bucket(bMeta).Get(archivedKey(ws)) != nil {
		return nil
	}
	r, err := s.routingOf(tx, ws)
	if err != nil {
		return err
	}
	var due []*automation.Compiled
	for _, e := range entries {
		switch e.kind {
		case dueFirstResponse:
			if conv.FirstResponseDue != nil && conv.FirstResponseDue.Equal(e.at) && conv.Status != ConversationClosed {
				if err := s.live(tx, fx, ws, LiveConversation, conv.ID, "", map[string]any{"change": "overdue", "status": conv.Status}); err != nil {
					return err
				}
			}
		case dueUnanswered:
			if conv.Status != ConversationOpen || conv.AwaitingSince == nil || !conv.AwaitingSince.Equal(e.since) {
				continue // answered, closed or snoozed, or a newer wait: not this one
			}
			rule := r.rules.Find(e.ref)
			if rule == nil || !rule.Rule.Enabled || rule.Rule.Trigger != automation.TriggerUnanswered {
				continue
			}
			at, ok := unansweredDue(r, &conv, &rule.Rule, w.Location())
			if !ok {
				continue
			}
			if at.After(now) { // the rule's minutes grew since: wait on
				if err := putDue(tx, fx, at, &conv, dueUnanswered, rule.Rule.ID, e.since); err != nil {
					return err
				}
				continue
			}
			due = append(due, rule)
		}
	}
	if len(due) == 0 {
		return nil
	}
	order := r.rules.Rules(automation.TriggerUnanswered)
	slices.SortFunc(due, func(a, b *automation.Compiled) int { return slices.Index(order, a) - slices.Index(order, b) })
	ev := &ruleEvent{trigger: automation.TriggerUnanswered, w: &w, r: r, conv: &conv, now: now, msg: lastInbound(tx, ws, conv.ID)}
	before := conv
	f := s.facts(tx, ev)
	for _, rule := range due {
		if !rule.Matches(f) {
			continue
		}
		if err := s.fireRule(tx, fx, ev, rule); err != nil {
			return err
		}
		if rule.Rule.Stop {
			break
		}
	}
	return s.saveAutomated(tx, &conv, &before)
}

// lastInbound is the conversation's newest inbound message (nil when none among its last 50).
func lastInbound(tx *bolt.Tx, ws, convID string) *Message {
	return lastMessageWhere(tx, ws, convID, func(m *Message) bool { return !m.Outbound })
}

// lastOutbound is the conversation's newest outbound message (nil when none among its last 50).
func lastOutbound(tx *bolt.Tx, ws, convID string) *Message {
	return lastMessageWhere(tx, ws, convID, func(m *Message) bool { return m.Outbound })
}

func lastMessageWhere(tx *bolt.Tx, ws, convID string, keep func(*Message) bool) *Message {
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
