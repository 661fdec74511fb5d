package store

import (
	"bytes"
	"time"

	"switchboard/store/kv"
)

// Auto-pause: a broadcast that keeps failing stops itself before it burns the number's
// reputation with the carriers. Once at least PauseMinJudged copies got the carrier's verdict,
// more than PauseFailedPercent % of them failing pauses it; its queued copies then wait in
// broadcast_held (out of the dispatcher's ready queue, so a paused broadcast costs the claim
// nothing) until an admin resumes or cancels it. A resume judges afresh: only verdicts after it
// count, so a broadcast needs another PauseMinJudged of them before it can pause again.
const (
	PauseMinJudged     = 100
	PauseFailedPercent = 20
)

// A verdict is the carrier accepting a copy or refusing it; a copy it accepted and later reports
// failed (a delivery receipt) stays one verdict but becomes a failed one.

// judgeAccepted counts a copy the carrier accepted.
func (b *Broadcast) judgeAccepted() { b.Judged++ }

// judgeFailed counts a failed copy; afterAccepted: the carrier had accepted it (already judged).
func (b *Broadcast) judgeFailed(afterAccepted bool) {
	if !afterAccepted {
		b.Judged++
	}
	b.JudgedFailed++
}

// ShouldPause is the auto-pause rule on a broadcast's verdicts since its start or last resume.
func ShouldPause(judged, failed int) bool {
	return judged >= PauseMinJudged && failed*100 > judged*PauseFailedPercent
}

// maybePause pauses a sending broadcast whose verdicts cross the rule, unless nothing is left to
// hold (then it finishes instead).
func (b *Broadcast) maybePause(now time.Time) {
	if b.Status != BroadcastSending || !ShouldPause(b.Judged, b.JudgedFailed) || (b.Outstanding <= 0 && !b.Fanout) {
		return
	}
	b.Status, b.PausedAt, b.PausedJudged, b.PausedFailed = BroadcastPaused, &now, b.Judged, b.JudgedFailed
}

func heldKey(ws, broadcastID string, msgID []byte) []byte {
	return append(wsKey(ws, broadcastID), msgID...)
}

// holdCopy moves a ready-queue entry (key number|priority|message, value ws|broadcast) of a
// paused broadcast's copy into broadcast_held. The message stays queued (and in the outbox depth).
func holdCopy(tx *kv.Tx, readyK, readyV []byte) error {
	if len(readyK) != 33 || len(readyV) != 32 {
		return nil
	}
	k := append(bytes.Clone(readyV), readyK[17:]...)
	return tx.Bucket(bBroadcastHeld).Put(k, outboxRef(readyK[:16], readyK[16], bytes.Clone(readyV)))
}

// ResumeBroadcast resumes a paused broadcast: it is sending again, judged afresh, its held
// copies go back to the ready queue and the recipients it had not queued yet are queued. A
// broadcast that is not paused is ErrConflict.
func (s *Store) ResumeBroadcast(workspaceID, id string) (Broadcast, error) {
	var b Broadcast
	err := s.update(func(tx *wtx) error {
		ok, err := getJSON(tx.Bucket(bBroadcasts), wsKeyChecked(workspaceID, id), &b)
		if err != nil {
			return err
		}
		if !ok {
			return tx.refuse(errorf(ErrNotFound, "broadcast not found"))
		}
		if b.Status != BroadcastPaused {
			return tx.refuse(errorf(ErrConflict, "broadcast is %s: only a paused broadcast can be resumed", b.Status))
		}
		now := s.Now()
		b.Status, b.ResumedAt, b.UpdatedAt, b.Judged, b.JudgedFailed = BroadcastSending, &now, now, 0, 0
		if b.Outstanding <= 0 && !b.Fanout {
			// Everything it had was already at the carrier when it paused: it is done.
			b.Outstanding, b.Status, b.DeliveredAt = 0, BroadcastSent, &now
			if b.TotalQueued > 0 && b.TotalFailed >= b.TotalQueued {
				b.Status = BroadcastFailed
			}
		}
		return putJSON(tx.Bucket(bBroadcasts), wsKey(workspaceID, id), b)
	})
	if err != nil {
		return b, err
	}
	// The held copies, in bounded transactions so that 1:1 sends never wait long. A pause that
	// comes again meanwhile stops the move; the claim holds whatever was already moved.
	for {
		n := 0
		err = s.updateNow(func(tx *wtx) error {
			n = 0
			var cur Broadcast
			if ok, err := getJSON(tx.Bucket(bBroadcasts), wsKey(workspaceID, id), &cur); err != nil || !ok || cur.Status != BroadcastSending {
				return err
			}
			p := wsKey(workspaceID, id)
			held := tx.Bucket(bBroadcastHeld)
			var keys [][]byte
			c := held.Cursor()
			for k, v := c.Seek(p); k != nil && bytes.HasPrefix(k, p) && len(keys) < fanOutChunk; k, v = c.Next() {
				keys = append(keys, bytes.Clone(k))
				if len(k) != 48 || len(v) < 33 {
					continue
				}
				if err := tx.Bucket(bOutbox).Put(readyKey(v[:16], v[16], k[32:]), bytes.Clone(v[17:])); err != nil {
					return err
				}
			}
			for _, k := range keys {
				if err := held.Delete(k); err != nil {
					return err
				}
			}
			n = len(keys)
			tx.outbox = n > 0
			return nil
		})
		if err != nil || n < fanOutChunk {
			break
		}
	}
	if err != nil {
		return b, err
	}
	if _, err := s.fanOut(workspaceID, id); err != nil {
		return b, err
	}
	return s.Broadcast(workspaceID, id)
}

// cancelPausedCopies cancels up to max copies of b waiting in broadcast_held and reports how many
// entries it removed and how many copies it cancelled.
func (s *Store) cancelPausedCopies(tx *wtx, b *Broadcast, max int, now time.Time) (n, cancelled int, err error) {
	p := wsKey(b.WorkspaceID, b.ID)
	held := tx.Bucket(bBroadcastHeld)
	var keys [][]byte
	c := held.Cursor()
	for k, _ := c.Seek(p); k != nil && bytes.HasPrefix(k, p) && len(keys) < max; k, _ = c.Next() {
		keys = append(keys, bytes.Clone(k))
	}
	for _, k := range keys {
		if err := held.Delete(k); err != nil {
			return 0, 0, err
		}
		if len(k) != 48 {
			continue
		}
		ok, err := s.cancelQueued(tx, b.WorkspaceID, k[32:], now)
		if err != nil {
			return 0, 0, err
		}
		if ok {
			cancelled++
		}
	}
	return len(keys), cancelled, nil
}
