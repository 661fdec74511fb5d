package store

import (
	"bytes"
	"slices"
	"time"

	"switchboard/store/kv"
)

// Claim is a batch of outbound messages of one number, marked sending, for the dispatcher.
type Claim struct {
	Number   PhoneNumber
	Messages []Message
}

// ClaimOutbound takes ready messages, priority then age within each number, and marks them
// `sending` (attempts counted) in one transaction, so that a crash after it leaves them in
// outbox_sending for RequeueSending. quota says how many of a number's messages may go now (its
// rate); at most perNumber of one number and max in all are taken, numbers taken in turn from
// the one after `after`, so one number's backlog never starves another's.
func (s *Store) ClaimOutbound(max, perNumber int, after string, quota func(n *PhoneNumber) int) ([]Claim, error) {
	var claims []Claim
	// An empty queue costs a read, not a write transaction (a commit is an fsync even when
	// nothing changed, and the dispatcher asks often).
	if s.bucketEmpty(bOutbox) {
		return nil, nil
	}
	err := s.update(func(tx *wtx) error {
		claims = nil
		bc := broadcastCache{}
		held := 0 // copies of paused broadcasts set aside by this claim
		archived := map[string]bool{}
		ready := tx.Bucket(bOutbox)
		var numbers [][]byte
		c := ready.Cursor()
		for k, _ := c.First(); k != nil; k, _ = c.Seek(nextPrefix(k[:16])) {
			if len(k) < 16 {
				break
			}
			numbers = append(numbers, bytes.Clone(k[:16]))
		}
		if len(numbers) == 0 {
			return nil
		}
		// Start after the number served last.
		if _, ok := ParseID(after); ok {
			a := idKey(after)
			i, _ := slices.BinarySearchFunc(numbers, a, bytes.Compare)
			if i < len(numbers) && bytes.Equal(numbers[i], a) {
				i++
			}
			numbers = append(numbers[i:], numbers[:i]...)
		}
		now := s.Now()
		left := max
		for _, nid := range numbers {
			if left <= 0 {
				break
			}
			k, v := ready.Cursor().Seek(nid)
			if k == nil || len(v) < 16 {
				continue
			}
			ws := idFromKey(v[:16])
			var n PhoneNumber
			ok, err := getJSON(tx.Bucket(bNumbers), wsKey(ws, idFromKey(nid)), &n)
			if err != nil {
				return err
			}
			if !ok { // the number is gone: its messages still get an outcome (failed)
				n = PhoneNumber{ID: idFromKey(nid), WorkspaceID: ws}
			}
			take := min(left, perNumber)
			if n.Active {
				take = min(take, quota(&n))
			}
			if take <= 0 {
				continue
			}
			cl := Claim{Number: n}
			var done [][]byte
			rc := ready.Cursor()
		walk:
			for k, v := rc.Seek(nid); k != nil && bytes.HasPrefix(k, nid) && len(cl.Messages) < take; k, v = rc.Next() {
				done = append(done, bytes.Clone(k))
				if len(k) != 33 || len(v) < 16 {
					continue
				}
				var m Message
				ok, err := getJSON(tx.Bucket(bMessages), append(bytes.Clone(v[:16]), k[17:]...), &m)
				if err != nil {
					return err
				}
				if !ok || (m.Status != MessageQueued && m.Status != MessageScheduled) {
					tx.depth--
					continue // cancelled or deleted meanwhile: nothing to send
				}
				// The broadcast is decoded once per transaction (bc), so these checks cost a copy
				// nothing more than a comparison.
				switch status, err := bc.status(tx.Tx, &m); {
				case err != nil:
					return err
				case status == BroadcastCancelled:
					tx.depth--
					m.Status, m.UpdatedAt = MessageCancelled, now
					if err := tx.reportRecount(m.WorkspaceID, m.ConversationID, func() error {
						return putJSON(tx.Bucket(bMessages), wsKey(m.WorkspaceID, m.ID), m)
					}); err != nil {
						return err
					}
					if err := s.liveMessage(tx, &m); err != nil {
						return err
					}
					if err := bc.update(tx.Tx, &m, func(b *Broadcast) { b.TotalCancelled++; b.Outstanding-- }); err != nil {
						return err
					}
					continue
				case status == BroadcastPaused:
					// A copy of a paused broadcast (queued before the pause, a retry come due)
					// waits aside until a resume, so it is walked past once, not at every claim.
					if err := holdCopy(tx.Tx, k, v); err != nil {
						return err
					}
					if held++; held >= fanOutChunk {
						tx.outbox = true // more may wait behind: claim again at once
						break walk
					}
					continue
				}
				// Nothing goes from a workspace archived after this was queued (skipArchived).
				if skipped, err := s.skipArchived(tx, bc, archived, &m, now); err != nil {
					return err
				} else if skipped {
					continue
				}
				// A recipient who opted out after this was queued (texted STOP while a broadcast
				// drained) gets nothing more; only keyword replies (high) still go to them.
				if skipped, err := s.skipOptedOut(tx, bc, &m, now); err != nil {
					return err
				} else if skipped {
					continue
				}
				m.Status, m.Attempts, m.UpdatedAt = MessageSending, m.Attempts+1, now
				if err := putJSON(tx.Bucket(bMessages), wsKey(m.WorkspaceID, m.ID), m); err != nil {
					return err
				}
				if err := tx.Bucket(bOutboxSending).Put(bytes.Clone(k[17:]), outboxRef(nid, k[16], bytes.Clone(v))); err != nil {
					return err
				}
				cl.Messages = append(cl.Messages, m)
			}
			for _, k := range done {
				if err := ready.Delete(k); err != nil {
					return err
				}
			}
			if len(cl.Messages) > 0 {
				claims = append(claims, cl)
				left -= len(cl.Messages)
			}
		}
		return bc.flush(tx.Tx, now)
	})
	return claims, err
}

// skipOptedOut fails a queued message whose recipient has opted out since it was queued,
// instead of claiming it: message.failed with the same reason a send to them gets, and for a
// broadcast copy the recipient counts as opted out. Keyword replies (high) are never skipped.
func (s *Store) skipOptedOut(tx *wtx, bc broadcastCache, m *Message, now time.Time) (bool, error) {
	if m.Priority == PriorityHigh || m.To == "" {
		return false, nil
	}
	out, err := s.isOptedOut(tx.Tx, m.WorkspaceID, m.To)
	if err != nil || !out {
		return false, err
	}
	before := m.Status
	m.Status, m.ProviderErr, m.UpdatedAt = MessageFailed, "recipient "+m.To+" has opted out", now
	tx.depth--
	if err := tx.reportStatus(m, before); err != nil {
		return false, err
	}
	if err := putJSON(tx.Bucket(bMessages), wsKey(m.WorkspaceID, m.ID), *m); err != nil {
		return false, err
	}
	if err := s.liveMessage(tx, m); err != nil {
		return false, err
	}
	if err := s.emit(tx, m.WorkspaceID, EventMessageFailed, messagePayload(m)); err != nil {
		return false, err
	}
	return true, bc.update(tx.Tx, m, func(b *Broadcast) { b.TotalOptedOut++; b.Outstanding-- })
}

// bucketEmpty reports whether a bucket has no keys, in a read transaction.
func (s *Store) bucketEmpty(name []byte) bool {
	empty := true
	_ = s.view(func(tx *kv.Tx) error {
		k, _ := tx.Bucket(name).Cursor().First()
		empty = k == nil
		return nil
	})
	return empty
}

// nextPrefix is the smallest key greater than every key starting with p.
func nextPrefix(p []byte) []byte {
	n := bytes.Clone(p)
	for i := len(n) - 1; i >= 0; i-- {
		if n[i] < 0xff {
			n[i]++
			return n[:i+1]
		}
	}
	return append(n, 0xff) // all 0xff: nothing sorts after it but longer keys
}

// PromoteDue moves retries whose time has come back into the ready queue (at most max) and
// reports when the next one is due (zero when none waits).
func (s *Store) PromoteDue(now time.Time, max int) (moved int, next time.Time, err error) {
	// Nothing due is the common case: answer it from a read transaction.
	err = s.view(func(tx *kv.Tx) error {
		k, _ := tx.Bucket(bOutboxDelayed).Cursor().First()
		if k != nil && len(k) == 24 {
			next = time.Unix(0, int64(decodeUint(k[:8])))
		}
		return nil
	})
	if err != nil || next.IsZero() || next.After(now) {
		return 0, next, err
	}
	err = s.updateNow(func(tx *wtx) error {
		moved, next = 0, time.Time{}
		delayed := tx.Bucket(bOutboxDelayed)
		var keys [][]byte
		c := delayed.Cursor()
		for k, v := c.First(); k != nil; k, v = c.Next() {
			if len(k) != 24 || len(v) < 33 {
				keys = append(keys, bytes.Clone(k))
				continue
			}
			due := time.Unix(0, int64(decodeUint(k[:8])))
			if due.After(now) || moved >= max {
				next = due
				break
			}
			keys = append(keys, bytes.Clone(k))
			if err := tx.Bucket(bOutbox).Put(readyKey(v[:16], v[16], k[8:]), bytes.Clone(v[17:])); err != nil {
				return err
			}
			moved++
		}
		for _, k := range keys {
			if err := delayed.Delete(k); err != nil {
				return err
			}
		}
		tx.outbox = moved > 0
		return nil
	})
	return moved, next, err
}

// RequeueSending puts back into the ready queue every message found `sending` — cut off by a
// crash or a kill between the claim and the recorded outcome. Such a message may reach the
// carrier twice (at least once): the window is one carrier call. It runs at dispatcher start.
func (s *Store) RequeueSending() (int, error) {
	n := 0
	err := s.updateNow(func(tx *wtx) error {
		n = 0
		sending := tx.Bucket(bOutboxSending)
		var keys [][]byte
		err := sending.ForEach(func(k, v []byte) error {
			keys = append(keys, bytes.Clone(k))
			if len(k) != 16 || len(v) < 33 {
				return nil
			}
			var m Message
			ok, err := getJSON(tx.Bucket(bMessages), append(bytes.Clone(v[17:33]), k...), &m)
			if err != nil || !ok {
				return err
			}
			if m.Status == MessageSending {
				m.Status = MessageQueued
				if err := putJSON(tx.Bucket(bMessages), wsKey(m.WorkspaceID, m.ID), m); err != nil {
					return err
				}
			}
			n++
			return tx.Bucket(bOutbox).Put(readyKey(v[:16], v[16], k), bytes.Clone(v[17:]))
		})
		if err != nil {
			return err
		}
		for _, k := range keys {
			if err := sending.Delete(k); err != nil {
				return err
			}
		}
		tx.outbox = n > 0
		return nil
	})
	return n, err
}
