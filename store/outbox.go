package store

import (
	"bytes"
	"slices"
	"strings"
	"time"

	bolt "go.etcd.io/bbolt"
)

// The outbox is the durable send queue (DESIGN §7). A queued message has one entry in exactly
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
func enqueue(tx *bolt.Tx, fx *effects, m *Message) error {
	fx.outbox = true
	fx.depth++
	return tx.Bucket(bOutbox).Put(readyKey(idKey(m.NumberID), priorityByte(m.Priority), idKey(m.ID)), readyValue(m))
}

// delay puts a message into the delayed queue, due at due (a retry, a copy held for quiet hours).
func delay(tx *bolt.Tx, fx *effects, m *Message, due time.Time) error {
	fx.depth++
	return tx.Bucket(bOutboxDelayed).Put(append(encodeUint(uint64(due.UnixNano())), idKey(m.ID)...),
		outboxRef(idKey(m.NumberID), priorityByte(m.Priority), readyValue(m)))
}

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
	err := s.updateNow(func(tx *bolt.Tx, fx *effects) error {
		claims = nil
		bc := broadcastCache{}
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
					fx.depth--
					continue // cancelled or deleted meanwhile: nothing to send
				}
				if cancelled, err := bc.cancelled(tx, &m); err != nil {
					return err
				} else if cancelled {
					fx.depth--
					m.Status, m.UpdatedAt = MessageCancelled, now
					if err := putJSON(tx.Bucket(bMessages), wsKey(m.WorkspaceID, m.ID), m); err != nil {
						return err
					}
					if err := s.liveMessage(tx, fx, &m); err != nil {
						return err
					}
					continue
				}
				// A recipient who opted out after this was queued (texted STOP while a broadcast
				// drained) gets nothing more; only keyword replies (high) still go to them.
				if skipped, err := s.skipOptedOut(tx, fx, bc, &m, now); err != nil {
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
		return bc.flush(tx, now)
	})
	return claims, err
}

// skipOptedOut fails a queued message whose recipient has opted out since it was queued,
// instead of claiming it: message.failed with the same reason a send to them gets, and for a
// broadcast copy the recipient counts as opted out. Keyword replies (high) are never skipped.
func (s *Store) skipOptedOut(tx *bolt.Tx, fx *effects, bc broadcastCache, m *Message, now time.Time) (bool, error) {
	if m.Priority == PriorityHigh || m.To == "" {
		return false, nil
	}
	out, err := s.isOptedOut(tx, m.WorkspaceID, m.To)
	if err != nil || !out {
		return false, err
	}
	m.Status, m.ProviderErr, m.UpdatedAt = MessageFailed, "recipient "+m.To+" has opted out", now
	fx.depth--
	if err := putJSON(tx.Bucket(bMessages), wsKey(m.WorkspaceID, m.ID), *m); err != nil {
		return false, err
	}
	if err := s.liveMessage(tx, fx, m); err != nil {
		return false, err
	}
	if err := s.emit(tx, fx, m.WorkspaceID, EventMessageFailed, messagePayload(m)); err != nil {
		return false, err
	}
	return true, bc.update(tx, m, func(b *Broadcast) { b.TotalOptedOut++; b.Outstanding-- })
}

// bucketEmpty reports whether a bucket has no keys, in a read transaction.
func (s *Store) bucketEmpty(name []byte) bool {
	empty := true
	_ = s.db.View(func(tx *bolt.Tx) error {
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
	err = s.db.View(func(tx *bolt.Tx) error {
		k, _ := tx.Bucket(bOutboxDelayed).Cursor().First()
		if k != nil && len(k) == 24 {
			next = time.Unix(0, int64(decodeUint(k[:8])))
		}
		return nil
	})
	if err != nil || next.IsZero() || next.After(now) {
		return 0, next, err
	}
	var fx effects
	err = s.db.Update(func(tx *bolt.Tx) error {
		moved, next, fx = 0, time.Time{}, effects{}
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
		fx.outbox = moved > 0
		return nil
	})
	if err == nil {
		s.applyEffects(&fx)
	}
	return moved, next, err
}

// RequeueSending puts back into the ready queue every message found `sending` — cut off by a
// crash or a kill between the claim and the recorded outcome. Such a message may reach the
// carrier twice (at least once): the window is one carrier call. It runs at dispatcher start.
func (s *Store) RequeueSending() (int, error) {
	n := 0
	var fx effects
	err := s.db.Update(func(tx *bolt.Tx) error {
		n, fx = 0, effects{}
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
		fx.outbox = n > 0
		return nil
	})
	if err == nil {
		s.applyEffects(&fx)
	}
	return n, err
}

// Outcome is what became of one claimed message at the carrier.
type Outcome struct {
	WorkspaceID string
	MessageID   string
	Provider    string   // the carrier's name
	ProviderIDs []string // the carrier's ids, one per recipient, when it accepted the message
	Delivered   bool     // accepted and known delivered at once (sandbox)
	Err         string   // the carrier's reason: the message failed, or (with RetryAt) will be retried
	// Unsubscribed: the recipient unsubscribed at the carrier; an opt-out (reason carrier) is
	// recorded with the failure.
	Unsubscribed bool
	RetryAt      time.Time // non-zero: a transient failure, queued again at this time
}

// RecordOutcomes records what the carrier did with claimed messages, in one transaction: the
// message's status, provider id and error, its events (message.sent on acceptance,
// message.delivered or message.failed on an outcome), its broadcast's counters and status, an
// opt-out for an unsubscribed recipient, and for a transient failure its retry entry.
func (s *Store) RecordOutcomes(outs []Outcome) error {
	return s.updateNow(func(tx *bolt.Tx, fx *effects) error {
		now := s.Now()
		bc := broadcastCache{}
		for _, o := range outs {
			key := wsKeyChecked(o.WorkspaceID, o.MessageID)
			if tx.Bucket(bOutboxSending).Get(idKey(o.MessageID)) == nil {
				continue // not claimed (anymore): nothing to record
			}
			if err := tx.Bucket(bOutboxSending).Delete(idKey(o.MessageID)); err != nil {
				return err
			}
			fx.depth--
			var m Message
			ok, err := getJSON(tx.Bucket(bMessages), key, &m)
			if err != nil {
				return err
			}
			if !ok || m.Status != MessageSending {
				continue
			}
			m.UpdatedAt = now
			m.Provider = o.Provider
			switch {
			case len(o.ProviderIDs) > 0:
				m.ProviderID = o.ProviderIDs[0]
				m.ProviderRef = ""
				if len(o.ProviderIDs) > 1 {
					m.ProviderRef = strings.Join(o.ProviderIDs[1:], ",") // a group message's other sends
				}
				m.ProviderErr, m.Status, m.SentAt = "", MessageSent, &now
				for _, id := range o.ProviderIDs {
					if err := tx.Bucket(bMsgProvider).Put(providerKey(o.Provider, id), wsKey(m.WorkspaceID, m.ID)); err != nil {
						return err
					}
				}
				if err := s.emit(tx, fx, m.WorkspaceID, EventMessageSent, messagePayload(&m)); err != nil {
					return err
				}
				if err := bc.update(tx, &m, func(b *Broadcast) { b.TotalSent++; b.Outstanding-- }); err != nil {
					return err
				}
				if o.Delivered {
					m.Status, m.DeliveredAt = MessageDelivered, &now
					if err := s.emit(tx, fx, m.WorkspaceID, EventMessageDelivered, messagePayload(&m)); err != nil {
						return err
					}
					if err := bc.update(tx, &m, func(b *Broadcast) { b.TotalDelivered++ }); err != nil {
						return err
					}
				}
			case !o.RetryAt.IsZero():
				m.Status, m.ProviderErr = MessageQueued, o.Err
				if err := delay(tx, fx, &m, o.RetryAt); err != nil {
					return err
				}
			default:
				m.Status, m.ProviderErr = MessageFailed, o.Err
				if err := s.emit(tx, fx, m.WorkspaceID, EventMessageFailed, messagePayload(&m)); err != nil {
					return err
				}
				if err := bc.update(tx, &m, func(b *Broadcast) { b.TotalFailed++; b.Outstanding-- }); err != nil {
					return err
				}
				if o.Unsubscribed && m.To != "" {
					if _, _, err := s.createOptOut(tx, fx, m.WorkspaceID, "", m.To, OptOutCarrier); err != nil {
						return err
					}
				}
			}
			if err := putJSON(tx.Bucket(bMessages), wsKey(m.WorkspaceID, m.ID), m); err != nil {
				return err
			}
			if err := s.liveMessage(tx, fx, &m); err != nil {
				return err
			}
		}
		return bc.flush(tx, now)
	})
}

func providerKey(provider, id string) []byte {
	k := make([]byte, 0, len(provider)+1+len(id))
	k = append(k, provider...)
	k = append(k, 0)
	return append(k, id...)
}

// StatusUpdate applies a carrier's delivery receipt to the message it sent under providerID:
// "sent", "delivered" or "failed" (with the carrier's reason). A status never moves backwards
// and a repeated receipt changes nothing; changed reports whether the message moved (false for
// an unknown id too).
func (s *Store) StatusUpdate(provider, providerID, status, reason string) (m Message, changed bool, err error) {
	err = s.update(func(tx *bolt.Tx, fx *effects) error {
		changed = false
		v := tx.Bucket(bMsgProvider).Get(providerKey(provider, providerID))
		if len(v) != 32 {
			return nil
		}
		m = Message{}
		ok, err := getJSON(tx.Bucket(bMessages), v, &m)
		if err != nil || !ok || !m.Outbound {
			return err
		}
		if statusRank(status) <= statusRank(m.Status) {
			return nil
		}
		now := s.Now()
		m.UpdatedAt = now
		bc := broadcastCache{}
		switch status {
		case MessageSent:
			m.Status = MessageSent
		case MessageDelivered:
			m.Status, m.DeliveredAt = MessageDelivered, &now
			if err := s.emit(tx, fx, m.WorkspaceID, EventMessageDelivered, messagePayload(&m)); err != nil {
				return err
			}
			if err := bc.update(tx, &m, func(b *Broadcast) { b.TotalDelivered++ }); err != nil {
				return err
			}
		case MessageFailed:
			m.Status, m.ProviderErr = MessageFailed, reason
			if err := s.emit(tx, fx, m.WorkspaceID, EventMessageFailed, messagePayload(&m)); err != nil {
				return err
			}
			if err := bc.update(tx, &m, func(b *Broadcast) { b.TotalFailed++ }); err != nil {
				return err
			}
		default:
			return nil
		}
		if err := putJSON(tx.Bucket(bMessages), wsKey(m.WorkspaceID, m.ID), m); err != nil {
			return err
		}
		if err := s.liveMessage(tx, fx, &m); err != nil {
			return err
		}
		changed = true
		return bc.flush(tx, now)
	})
	return m, changed, err
}

// statusRank orders an outbound message's statuses; delivered and failed are both final.
func statusRank(status string) int {
	switch status {
	case MessageScheduled, MessageQueued:
		return 1
	case MessageSending:
		return 2
	case MessageSent:
		return 3
	case MessageDelivered, MessageFailed, MessageCancelled:
		return 4
	}
	return 0
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
func (bc broadcastCache) get(tx *bolt.Tx, m *Message) (*cachedBroadcast, error) {
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

func (bc broadcastCache) update(tx *bolt.Tx, m *Message, fn func(b *Broadcast)) error {
	cb, err := bc.get(tx, m)
	if cb != nil {
		fn(&cb.Broadcast)
		cb.changed = true
	}
	return err
}

// cancelled reports whether m is a copy of a cancelled broadcast.
func (bc broadcastCache) cancelled(tx *bolt.Tx, m *Message) (bool, error) {
	cb, err := bc.get(tx, m)
	return cb != nil && cb.Status == BroadcastCancelled, err
}

// flush writes the changed broadcasts, finishing those with no copy queued or sending any more:
// sent, or failed when every copy failed.
func (bc broadcastCache) flush(tx *bolt.Tx, now time.Time) error {
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
	return s.db.View(func(tx *bolt.Tx) error {
		var n int64
		for _, name := range [][]byte{bOutbox, bOutboxSending, bOutboxDelayed} {
			n += int64(tx.Bucket(name).Stats().KeyN)
		}
		s.depth.Store(n)
		return nil
	})
}

// migrateCarrier builds the installation-wide number index and moves queued messages of the
// old outbox (priority|message id → ws|message id) into the per-number queue.
func migrateCarrier(s *Store, tx *bolt.Tx) error {
	if err := migrateGlobalNumberIndex(s, tx); err != nil {
		return err
	}
	// Broadcasts were left `sending` with every copy queued: all of them are outstanding.
	var sending []Broadcast
	if err := tx.Bucket(bBroadcasts).ForEach(func(_, v []byte) error {
		var b Broadcast
		if err := jsonUnmarshal(v, &b); err != nil {
			return err
		}
		if b.Status == BroadcastSending {
			sending = append(sending, b)
		}
		return nil
	}); err != nil {
		return err
	}
	for _, b := range sending {
		b.Outstanding = b.TotalQueued
		if err := putJSON(tx.Bucket(bBroadcasts), wsKey(b.WorkspaceID, b.ID), b); err != nil {
			return err
		}
	}
	ready := tx.Bucket(bOutbox)
	type old struct{ k, v []byte }
	var olds []old
	if err := ready.ForEach(func(k, v []byte) error {
		if len(k) == 17 && len(v) == 32 {
			olds = append(olds, old{bytes.Clone(k), bytes.Clone(v)})
		}
		return nil
	}); err != nil {
		return err
	}
	for _, o := range olds {
		if err := ready.Delete(o.k); err != nil {
			return err
		}
		var m Message
		ok, err := getJSON(tx.Bucket(bMessages), o.v, &m)
		if err != nil {
			return err
		}
		if !ok {
			continue
		}
		if m.NumberID == "" {
			n, found, err := activeNumber(tx, m.WorkspaceID, m.From)
			if err != nil {
				return err
			}
			if !found {
				m.Status, m.ProviderErr = MessageFailed, "the number is no longer active"
				if err := putJSON(tx.Bucket(bMessages), o.v, m); err != nil {
					return err
				}
				continue
			}
			m.NumberID = n.ID
			if err := putJSON(tx.Bucket(bMessages), o.v, m); err != nil {
				return err
			}
		}
		if err := ready.Put(readyKey(idKey(m.NumberID), o.k[0], o.k[1:]), readyValue(&m)); err != nil {
			return err
		}
	}
	return nil
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
	err := s.db.View(func(tx *bolt.Tx) error {
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
