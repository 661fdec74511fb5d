package store

import (
	"bytes"
	"time"

	"switchboard/store/kv"
)

// Cancelling a broadcast: the record stops, and its copies not yet handed to the carrier are
// cancelled, at most max of them per call of cancelCopies.

// CancelBroadcast cancels a draft, scheduled, sending or paused broadcast: it stops, and its
// copies still queued, held or waiting for a resume become cancelled (copies already handed to the carrier keep their state).
// Any other status is ErrConflict.
func (s *Store) CancelBroadcast(workspaceID, id string) (Broadcast, error) {
	var b Broadcast
	err := s.update(func(tx *wtx) error {
		ok, err := getJSON(tx.Bucket(bBroadcasts), wsKeyChecked(workspaceID, id), &b)
		if err != nil {
			return err
		}
		if !ok {
			return tx.refuse(errorf(ErrNotFound, "broadcast not found"))
		}
		switch b.Status {
		case BroadcastDraft, BroadcastScheduled, BroadcastSending, BroadcastPaused:
		default:
			return tx.refuse(errorf(ErrConflict, "broadcast is %s: it can no longer be cancelled", b.Status))
		}
		if b.Status == BroadcastScheduled && b.SendAt != nil {
			if err := tx.Bucket(bBroadcastSchedule).Delete(scheduleKey(*b.SendAt, workspaceID, id)); err != nil {
				return err
			}
		}
		now := s.Now()
		b.Status, b.CancelledAt, b.UpdatedAt, b.Fanout = BroadcastCancelled, &now, now, false
		// Recipients not queued yet are dropped.
		p := wsKey(workspaceID, id)
		var keys [][]byte
		c := tx.Bucket(bBroadcastPending).Cursor()
		for k, _ := c.Seek(p); k != nil && bytes.HasPrefix(k, p); k, _ = c.Next() {
			keys = append(keys, bytes.Clone(k))
		}
		for _, k := range keys {
			if err := tx.Bucket(bBroadcastPending).Delete(k); err != nil {
				return err
			}
		}
		return putJSON(tx.Bucket(bBroadcasts), wsKey(workspaceID, id), b)
	})
	if err != nil {
		return b, err
	}
	// The queued copies, in bounded transactions so that 1:1 sends never wait long. A copy the
	// dispatcher claims meanwhile is cancelled by the claim (it checks the broadcast).
	for {
		n := 0
		err = s.updateNow(func(tx *wtx) error {
			var err error
			n, err = s.cancelCopies(tx, &b, fanOutChunk)
			return err
		})
		if err != nil || n < fanOutChunk {
			break
		}
	}
	if err != nil {
		return b, err
	}
	return s.Broadcast(workspaceID, id)
}

// cancelCopies cancels up to max queued or held copies of b (in the ready and delayed queues,
// and those a pause set aside) and reports how many.
func (s *Store) cancelCopies(tx *wtx, b *Broadcast, max int) (int, error) {
	bid := idKey(b.ID)
	var msgs [][]byte // message ids
	var readyKeys, delayedKeys [][]byte
	p := append(idKey(b.NumberID), priorityByte(PriorityLow))
	c := tx.Bucket(bOutbox).Cursor()
	for k, v := c.Seek(p); k != nil && bytes.HasPrefix(k, p) && len(msgs) < max; k, v = c.Next() {
		if len(v) == 32 && bytes.Equal(v[16:], bid) {
			readyKeys = append(readyKeys, bytes.Clone(k))
			msgs = append(msgs, bytes.Clone(k[17:]))
		}
	}
	c = tx.Bucket(bOutboxDelayed).Cursor()
	var dues []time.Time
	for k, v := c.First(); k != nil && len(msgs) < max; k, v = c.Next() {
		if len(k) == 24 && len(v) == 49 && bytes.Equal(v[33:], bid) {
			delayedKeys = append(delayedKeys, bytes.Clone(k))
			msgs = append(msgs, bytes.Clone(k[8:]))
			dues = append(dues, time.Unix(0, int64(decodeUint(k[:8]))))
		}
	}
	// Copies that will not go give their places under the number's daily cap back.
	if err := uncountCopies(tx.Tx, b.WorkspaceID, b.NumberID, s.Now(), len(readyKeys), dues); err != nil {
		return 0, err
	}
	for _, k := range readyKeys {
		if err := tx.Bucket(bOutbox).Delete(k); err != nil {
			return 0, err
		}
	}
	for _, k := range delayedKeys {
		if err := tx.Bucket(bOutboxDelayed).Delete(k); err != nil {
			return 0, err
		}
	}
	now := s.Now()
	cancelled := 0
	for _, id := range msgs {
		ok, err := s.cancelQueued(tx, b.WorkspaceID, id, now)
		if err != nil {
			return 0, err
		}
		if ok {
			cancelled++
		}
	}
	n := len(msgs)
	if n < max {
		h, c, err := s.cancelPausedCopies(tx, b, max-n, now)
		if err != nil {
			return 0, err
		}
		n, cancelled = n+h, cancelled+c
	}
	return n, countCancelled(tx.Tx, b.WorkspaceID, b.ID, cancelled)
}

// cancelQueued cancels a queued or held message whose queue entry the caller removed, and
// reports whether it was still waiting (its broadcast counts it cancelled: the caller's job).
func (s *Store) cancelQueued(tx *wtx, ws string, msgID []byte, now time.Time) (bool, error) {
	tx.depth--
	key := append(idKey(ws), msgID...)
	var m Message
	ok, err := getJSON(tx.Bucket(bMessages), key, &m)
	if err != nil {
		return false, err
	}
	if !ok || (m.Status != MessageQueued && m.Status != MessageScheduled) {
		return false, nil
	}
	m.Status, m.UpdatedAt = MessageCancelled, now
	if err := tx.reportRecount(ws, m.ConversationID, func() error { return putJSON(tx.Bucket(bMessages), key, m) }); err != nil {
		return false, err
	}
	return true, s.liveMessage(tx, &m)
}

// countCancelled counts n copies of a broadcast cancelled: they are no longer outstanding.
func countCancelled(tx *kv.Tx, ws, broadcastID string, n int) error {
	if n == 0 {
		return nil
	}
	var b Broadcast
	if ok, err := getJSON(tx.Bucket(bBroadcasts), wsKey(ws, broadcastID), &b); err != nil || !ok {
		return err
	}
	b.TotalCancelled += n
	b.Outstanding = max(b.Outstanding-n, 0)
	return putJSON(tx.Bucket(bBroadcasts), wsKey(ws, broadcastID), b)
}
