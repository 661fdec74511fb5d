package store

import (
	"time"

	"switchboard/store/kv"
)

// The outbox is the durable send queue: a message queued survives a crash and is sent once the
// process is back. A queued message has one entry in exactly
// one of three buckets:
//
//	outbox          number id(16) | priority(1) | message id(16) → ws(16) [| broadcast id(16)]
//	outbox_delayed  due(8) | message id(16) → number id | priority | ws [| broadcast id]
//	outbox_sending  message id(16) → number id | priority | ws [| broadcast id]
//
// The ready queue holds what may go now, in dispatch order; the delayed one retries and copies
// held for quiet hours, by due time; sending what is at the carrier. A broadcast copy carries
// its broadcast's id, so cancelling a broadcast finds its copies without decoding messages.
//
// Keying the ready queue by number first lets the dispatcher hold each number to its own rate
// without walking another number's backlog; within a number the key orders by priority (high,
// normal, low), then age (the ULID).

func priorityByte(priority string) byte {
	switch priority {
	case PriorityHigh:
		return 0
	case PriorityLow:
		return 2
	}
	return 1
}

func priorityName(b byte) string {
	switch b {
	case 0:
		return PriorityHigh
	case 2:
		return PriorityLow
	}
	return PriorityNormal
}

// readyValue is a ready-queue value: the workspace, and the broadcast of a copy.
func readyValue(m *Message) []byte {
	v := make([]byte, 0, 32)
	v = append(v, idKey(m.WorkspaceID)...)
	if m.BroadcastID != "" {
		v = append(v, idKey(m.BroadcastID)...)
	}
	return v
}

// outboxRef is what the side buckets remember of a queued message: its ready key's number and
// priority, and its ready value.
func outboxRef(numberID []byte, priority byte, value []byte) []byte {
	v := make([]byte, 0, 17+len(value))
	v = append(v, numberID...)
	v = append(v, priority)
	return append(v, value...)
}

func readyKey(numberID []byte, priority byte, msgID []byte) []byte {
	k := make([]byte, 0, 33)
	k = append(k, numberID...)
	k = append(k, priority)
	return append(k, msgID...)
}

// enqueue puts a message into the ready queue.
func enqueue(tx *wtx, m *Message) error {
	tx.outbox = true
	tx.depth++
	return tx.Bucket(bOutbox).Put(readyKey(idKey(m.NumberID), priorityByte(m.Priority), idKey(m.ID)), readyValue(m))
}

// delay puts a message into the delayed queue, due at due (a retry, a copy held for quiet hours).
func delay(tx *wtx, m *Message, due time.Time) error {
	tx.depth++
	return tx.Bucket(bOutboxDelayed).Put(append(encodeUint(uint64(due.UnixNano())), idKey(m.ID)...),
		outboxRef(idKey(m.NumberID), priorityByte(m.Priority), readyValue(m)))
}

// broadcastCache holds the broadcasts a transaction's messages move, so that each is decoded and
// written once however many of its copies change; the counters change in the same transaction
// as the messages that moved them. A broadcast only read (the claim's cancelled check) is not
// written back.
type broadcastCache map[string]*cachedBroadcast

type cachedBroadcast struct {
	Broadcast
	changed bool
}

// get decodes m's broadcast once per transaction; nil for a message of no (or a gone) broadcast.
func (bc broadcastCache) get(tx *kv.Tx, m *Message) (*cachedBroadcast, error) {
	if m.BroadcastID == "" {
		return nil, nil
	}
	if cb := bc[m.BroadcastID]; cb != nil {
		return cb, nil
	}
	cb := &cachedBroadcast{}
	ok, err := getJSON(tx.Bucket(bBroadcasts), wsKey(m.WorkspaceID, m.BroadcastID), &cb.Broadcast)
	if err != nil || !ok {
		return nil, err
	}
	bc[m.BroadcastID] = cb
	return cb, nil
}

func (bc broadcastCache) update(tx *kv.Tx, m *Message, fn func(b *Broadcast)) error {
	cb, err := bc.get(tx, m)
	if cb != nil {
		fn(&cb.Broadcast)
		cb.changed = true
		// The pause rule is judged at every verdict, so a broadcast pauses at the first one
		// that crosses it, however the verdicts were batched.
		cb.maybePause(m.UpdatedAt)
	}
	return err
}

// status is the status of m's broadcast ("" for none).
func (bc broadcastCache) status(tx *kv.Tx, m *Message) (string, error) {
	cb, err := bc.get(tx, m)
	if cb == nil {
		return "", err
	}
	return cb.Status, err
}

// flush writes the changed broadcasts, finishing those with no copy queued or sending any more:
// sent, or failed when every copy failed.
func (bc broadcastCache) flush(tx *kv.Tx, now time.Time) error {
	for _, cb := range bc {
		if !cb.changed {
			continue
		}
		b := &cb.Broadcast
		b.UpdatedAt = now
		if b.Outstanding <= 0 && !b.Fanout && (b.Status == BroadcastSending || b.Status == BroadcastSent) {
			b.Outstanding = 0
			if b.Status == BroadcastSending {
				b.DeliveredAt = &now
			}
			b.Status = BroadcastSent
			if b.TotalQueued > 0 && b.TotalFailed >= b.TotalQueued {
				b.Status = BroadcastFailed
			}
		}
		if err := putJSON(tx.Bucket(bBroadcasts), wsKey(b.WorkspaceID, b.ID), b); err != nil {
			return err
		}
	}
	return nil
}

// OutboxDepth is the number of messages queued or sending (the /metrics gauge): kept as a
// counter, so a scrape costs nothing.
func (s *Store) OutboxDepth() int64 { return s.depth.Load() }

// countOutbox counts the queue once, at open.
func (s *Store) countOutbox() error {
	return s.view(func(tx *kv.Tx) error {
		var n int64
		for _, name := range [][]byte{bOutbox, bOutboxSending, bOutboxDelayed, bBroadcastHeld} {
			n += int64(tx.Bucket(name).Stats().KeyN)
		}
		s.depth.Store(n)
		return nil
	})
}

// OutboxEntry is a message in the ready queue.
type OutboxEntry struct {
	WorkspaceID string
	MessageID   string
	NumberID    string
	Priority    string
}

// Outbox lists up to limit messages of the ready queue: number by number, each in dispatch order
// (priority, then age). Retries waiting for their time and messages at the carrier are not in it.
func (s *Store) Outbox(limit int) ([]OutboxEntry, error) {
	var out []OutboxEntry
	err := s.view(func(tx *kv.Tx) error {
		c := tx.Bucket(bOutbox).Cursor()
		for k, v := c.First(); k != nil && len(out) < limit; k, v = c.Next() {
			if len(k) != 33 || len(v) < 16 {
				continue
			}
			out = append(out, OutboxEntry{WorkspaceID: idFromKey(v[:16]), MessageID: idFromKey(k), NumberID: idFromKey(k[:16]),
				Priority: priorityName(k[16])})
		}
		return nil
	})
	return out, err
}
