package store

import (
	"bytes"
	"encoding/binary"
	"time"

	"switchboard/store/kv"
)

// A snoozed conversation with a time waits in idx_conversation_snooze, keyed
// until(8, big-endian Unix nanoseconds) | workspace(16) | conversation(16), so that a sweep
// reads the due ones first and stops at the first that is not. The entry changes in the
// transaction that changes the conversation's status; an inbound message reopens the
// conversation and drops it (touchConversation).

func snoozeKey(c *Conversation) []byte {
	k := make([]byte, 0, 40)
	k = binary.BigEndian.AppendUint64(k, uint64(c.SnoozedUntil.UnixNano()))
	k = append(k, idKey(c.WorkspaceID)...)
	return append(k, idKey(c.ID)...)
}

// setStatus gives c status (snoozed until until, when both are set) and keeps the snooze
// index in step. It writes only the index; the caller writes c.
func setStatus(tx *kv.Tx, c *Conversation, status string, until *time.Time) error {
	if c.SnoozedUntil != nil {
		if err := tx.Bucket(bConvSnooze).Delete(snoozeKey(c)); err != nil {
			return err
		}
		c.SnoozedUntil = nil
	}
	c.Status = status
	if status == ConversationSnoozed && until != nil {
		t := until.UTC()
		c.SnoozedUntil = &t
		return tx.Bucket(bConvSnooze).Put(snoozeKey(c), nil)
	}
	return nil
}

// checkSnooze validates a snooze time: in the future and at most a year ahead.
func checkSnooze(until *time.Time, now time.Time) *FieldError {
	switch {
	case until == nil:
		return nil
	case !until.After(now):
		return &FieldError{"snoozeUntil", "must be in the future"}
	case until.After(LatestSendAt(now)):
		return &FieldError{"snoozeUntil", "must be at most one year ahead"}
	}
	return nil
}

// WakeSnoozed reopens the conversations whose snooze time is at or before now (at most max),
// each with an activity entry, and reports how many it reopened and when the next one is due
// (zero when none waits).
func (s *Store) WakeSnoozed(now time.Time, max int) (woken int, next time.Time, err error) {
	// Nothing due is the common case: answer it from a read transaction (a write one is an
	// fsync, and the sweep asks every few seconds).
	err = s.view(func(tx *kv.Tx) error {
		if k, _ := tx.Bucket(bConvSnooze).Cursor().First(); len(k) == 40 {
			next = time.Unix(0, int64(binary.BigEndian.Uint64(k[:8])))
		}
		return nil
	})
	if err != nil || next.IsZero() || next.After(now) {
		return 0, next, err
	}
	err = s.updateNow(func(tx *wtx) error {
		woken, next = 0, time.Time{}
		idx := tx.Bucket(bConvSnooze)
		var due [][]byte
		c := idx.Cursor()
		for k, _ := c.First(); k != nil; k, _ = c.Next() {
			if len(k) != 40 {
				due = append(due, bytes.Clone(k))
				continue
			}
			at := time.Unix(0, int64(binary.BigEndian.Uint64(k[:8])))
			if at.After(now) || len(due) >= max {
				next = at
				break
			}
			due = append(due, bytes.Clone(k))
		}
		for _, k := range due {
			if err := idx.Delete(k); err != nil {
				return err
			}
			if len(k) != 40 {
				continue
			}
			var conv Conversation
			ok, err := getJSON(tx.Bucket(bConversations), k[8:], &conv)
			if err != nil {
				return err
			}
			if !ok || conv.Status != ConversationSnoozed || conv.SnoozedUntil == nil {
				continue
			}
			before := conv
			conv.SnoozedUntil, conv.Status, conv.UpdatedAt = nil, ConversationOpen, s.Now()
			if err := syncOpenAssigned(tx.Tx, &conv, before.Status, before.AssignedUserIDs); err != nil {
				return err
			}
			if err := s.putEntry(tx, ConversationEntry{WorkspaceID: conv.WorkspaceID, ConversationID: conv.ID,
				Kind: EntrySnoozeUp, Status: ConversationOpen, SnoozeUntil: before.SnoozedUntil}); err != nil {
				return err
			}
			if err := putJSON(tx.Bucket(bConversations), k[8:], conv); err != nil {
				return err
			}
			woken++
		}
		return nil
	})
	return woken, next, err
}

// SweepSnoozed reopens every conversation whose snooze time has passed (by the store's clock),
// 500 per transaction, and says how many it reopened. cli runs it on a timer.
func (s *Store) SweepSnoozed() (int, error) {
	total := 0
	for {
		n, _, err := s.WakeSnoozed(s.Now(), 500)
		total += n
		if err != nil || n < 500 {
			return total, err
		}
	}
}
