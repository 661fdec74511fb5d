package store

import (
	"bytes"
	"encoding/json"
	"slices"
	"time"

	bolt "go.etcd.io/bbolt"
)

// The delivery queue (bucket webhook_queue) holds one key per pending delivery:
// due time (8 bytes, big-endian UnixNano) | delivery id (16 bytes), so a cursor walks it in due
// order. Invariant kept by every function here: a delivery is pending if and only if it has
// exactly one queue entry, at its NextAt.

// SubscriptionDisableAfter is how long a subscription's deliveries may keep failing before it is
// disabled (DESIGN §6).
const SubscriptionDisableAfter = 5 * 24 * time.Hour

// WebhookRetention is how long events, deliveries and attempts are kept (the delivery log).
const WebhookRetention = 30 * 24 * time.Hour

// Attempt outcomes, decided by the webhooks worker and applied by RecordAttempt.
const (
	OutcomeDelivered = "delivered" // 2xx
	OutcomeRetry     = "retry"     // failed, retried at NextAt
	OutcomeFailed    = "failed"    // failed, no retries left
	OutcomeGone      = "gone"      // 410: the subscription is removed
)

// DueDelivery is a pending delivery whose time has come, with what its POST needs. When Stale is
// not "" the delivery cannot be sent (its subscription or event is gone or disabled) and the
// caller cancels it with CancelDelivery.
type DueDelivery struct {
	Delivery     Delivery
	Subscription Subscription
	Payload      json.RawMessage
	Stale        string
}

// DueDeliveries returns up to limit pending deliveries due at or before now, oldest due first,
// leaving out those skip reports (the caller's in-flight set: the queue entry stays until the
// attempt is recorded, so a crash mid-attempt leaves the delivery due). next is the due time of
// the first entry it did not return, zero when there is none. One short read transaction.
func (s *Store) DueDeliveries(now time.Time, limit int, skip func(id string) bool) (due []DueDelivery, next time.Time, err error) {
	err = s.db.View(func(tx *bolt.Tx) error {
		due, next = due[:0], time.Time{}
		c := tx.Bucket(bDeliveryQueue).Cursor()
		deliveries, events := tx.Bucket(bDeliveries), tx.Bucket(bEvents)
		type cachedSub struct {
			sub Subscription
			ok  bool
		}
		subs := map[string]cachedSub{}
		for k, _ := c.First(); k != nil; k, _ = c.Next() {
			if len(k) != 24 {
				continue
			}
			at := time.Unix(0, int64(decodeUint(k[:8]))).UTC()
			id := idFromKey(k)
			if skip != nil && skip(id) {
				continue
			}
			if at.After(now) || len(due) >= limit {
				next = at
				return nil
			}
			var dd DueDelivery
			ok, err := getJSON(deliveries, k[8:], &dd.Delivery)
			if err != nil {
				return err
			}
			if !ok {
				dd.Delivery = Delivery{ID: id}
				dd.Stale = "delivery record missing"
				due = append(due, dd)
				continue
			}
			// A fan-out puts many deliveries of few subscriptions in the queue: decode each once.
			sc, cached := subs[dd.Delivery.SubscriptionID]
			if !cached {
				sc.sub, sc.ok, err = getSubscription(tx, dd.Delivery.WorkspaceID, dd.Delivery.SubscriptionID)
				if err != nil {
					return err
				}
				subs[dd.Delivery.SubscriptionID] = sc
			}
			sub, ok := sc.sub, sc.ok
			switch {
			case !ok:
				dd.Stale = "subscription deleted"
			case !sub.Active:
				dd.Stale = "subscription disabled"
			}
			dd.Subscription = sub
			if dd.Stale == "" {
				var ev Event
				if ok, err := getJSON(events, idKey(dd.Delivery.EventID), &ev); err != nil {
					return err
				} else if !ok {
					dd.Stale = "event deleted"
				}
				dd.Payload = ev.Payload
			}
			due = append(due, dd)
		}
		return nil
	})
	return due, next, err
}

// AttemptResult is what one POST of a delivery came to. Attempt holds the log entry (its ID and
// DeliveryID are filled in when empty); Outcome is one of the Outcome constants; NextAt is when a
// retry is due (OutcomeRetry only).
type AttemptResult struct {
	Attempt Attempt
	Outcome string
	NextAt  time.Time
}

// RecordAttempt logs an attempt and applies its outcome in one transaction: delivered; retry
// (the queue entry moves to NextAt); failed; gone (410: the subscription is deleted and its
// other pending deliveries cancelled). A failure also marks the subscription failing, and one
// failing for SubscriptionDisableAfter is disabled, its pending deliveries cancelled and this
// delivery failed. A delivery that stopped being pending meanwhile (cancelled) only gets the log
// entry. It returns the delivery as stored and whether the subscription was disabled.
func (s *Store) RecordAttempt(deliveryID string, r AttemptResult) (Delivery, bool, error) {
	if r.Attempt.ID == "" {
		r.Attempt.ID = s.NewID()
	}
	r.Attempt.DeliveryID = deliveryID
	var d Delivery
	var disabled bool
	err := s.update(func(tx *bolt.Tx, _ *effects) error {
		d, disabled = Delivery{}, false
		ok, err := getJSON(tx.Bucket(bDeliveries), idKey(deliveryID), &d)
		if err != nil {
			return err
		}
		if !ok {
			return errorf(ErrNotFound, "delivery not found")
		}
		if err := putJSON(tx.Bucket(bAttempts), attemptKey(deliveryID, r.Attempt.ID), r.Attempt); err != nil {
			return err
		}
		if d.Status != DeliveryPending {
			return nil
		}
		if err := tx.Bucket(bDeliveryQueue).Delete(queueKey(d.NextAt, d.ID)); err != nil {
			return err
		}
		now := s.Now()
		d.Attempts++
		d.LastStatus = r.Attempt.StatusCode
		d.LastError = r.Attempt.Error
		d.UpdatedAt = now
		sub, subOK, err := getSubscription(tx, d.WorkspaceID, d.SubscriptionID)
		if err != nil {
			return err
		}
		switch r.Outcome {
		case OutcomeDelivered:
			d.Status, d.DoneAt, d.LastError = DeliveryDelivered, &now, ""
			if subOK && sub.FailingSince != nil {
				sub.FailingSince = nil
				if err := PutSubscription(tx, sub); err != nil {
					return err
				}
			}
		case OutcomeGone:
			d.Status, d.DoneAt = DeliveryFailed, &now
			if d.LastError == "" {
				d.LastError = "410 Gone: the subscription was removed"
			}
			if subOK {
				if err := DeleteSubscription(tx, sub.WorkspaceID, sub.ID); err != nil {
					return err
				}
				if err := s.cancelPending(tx, sub.ID, d.ID, "subscription removed after 410 Gone"); err != nil {
					return err
				}
			}
		default: // retry or failed
			if subOK {
				if sub.FailingSince == nil {
					sub.FailingSince = &now
				}
				if sub.Active && now.Sub(*sub.FailingSince) >= SubscriptionDisableAfter {
					sub.Active, sub.DisabledAt, disabled = false, &now, true
					if err := s.cancelPending(tx, sub.ID, d.ID, "subscription disabled after failing for 5 days"); err != nil {
						return err
					}
				}
				if err := PutSubscription(tx, sub); err != nil {
					return err
				}
			}
			if r.Outcome == OutcomeRetry && !disabled && subOK {
				d.NextAt = r.NextAt
			} else {
				d.Status, d.DoneAt = DeliveryFailed, &now
			}
		}
		return PutDelivery(tx, d)
	})
	return d, disabled, err
}

// cancelPending cancels every pending delivery of a subscription except one (the delivery whose
// attempt is being recorded, which its caller settles itself). It reads the pending index, so it
// touches only pending deliveries, never the subscription's delivery history.
func (s *Store) cancelPending(tx *bolt.Tx, subID, exceptID, reason string) error {
	prefix := idKey(subID)
	var ids []string
	if err := forEachPrefix(tx.Bucket(bSubPending), prefix, func(k, _ []byte) error {
		ids = append(ids, idFromKey(k))
		return nil
	}); err != nil {
		return err
	}
	for _, id := range ids { // changed after the scan: deleting under a cursor skips keys
		if id == exceptID {
			continue
		}
		changed, err := s.cancelDelivery(tx, id, reason)
		if err != nil {
			return err
		}
		if !changed {
			// An index entry without a pending delivery (record gone): drop it.
			if err := tx.Bucket(bSubPending).Delete(wsKey(subID, id)); err != nil {
				return err
			}
		}
	}
	return nil
}

// cancelDelivery moves a pending delivery to cancelled and drops its queue entry; other states
// are left alone. It reports whether it changed anything.
func (s *Store) cancelDelivery(tx *bolt.Tx, id, reason string) (bool, error) {
	var d Delivery
	ok, err := getJSON(tx.Bucket(bDeliveries), idKey(id), &d)
	if err != nil || !ok || d.Status != DeliveryPending {
		return false, err
	}
	if err := tx.Bucket(bDeliveryQueue).Delete(queueKey(d.NextAt, d.ID)); err != nil {
		return false, err
	}
	now := s.Now()
	d.Status, d.LastError, d.UpdatedAt, d.DoneAt = DeliveryCancelled, reason, now, &now
	return true, PutDelivery(tx, d)
}

// CancelDelivery cancels a pending delivery that can no longer be sent (see DueDelivery.Stale).
// A queue entry whose delivery record is missing is dropped.
func (s *Store) CancelDelivery(id, reason string) error {
	return s.update(func(tx *bolt.Tx, _ *effects) error {
		changed, err := s.cancelDelivery(tx, id, reason)
		if err != nil || changed {
			return err
		}
		// No pending record: drop any entries left for that id (a torn invariant must not
		// make the worker spin on it).
		q := tx.Bucket(bDeliveryQueue)
		var stale [][]byte
		key := idKey(id)
		c := q.Cursor()
		for k, _ := c.First(); k != nil; k, _ = c.Next() {
			if len(k) == 24 && bytes.Equal(k[8:], key) {
				stale = append(stale, bytes.Clone(k))
			}
		}
		for _, k := range stale {
			if err := q.Delete(k); err != nil {
				return err
			}
		}
		return nil
	})
}

// Redeliver starts a new attempt cycle for a delivery, due now: a pending one is moved to the
// front, a finished one (delivered, failed, cancelled) becomes pending again with its attempt
// count reset (the log keeps every earlier attempt). The subscription must still exist and be
// active (ErrNotFound, ErrConflict).
func (s *Store) Redeliver(id string) (Delivery, error) {
	var d Delivery
	err := s.update(func(tx *bolt.Tx, fx *effects) error {
		d = Delivery{}
		if _, ok := ParseID(id); !ok {
			return errorf(ErrNotFound, "delivery not found")
		}
		ok, err := getJSON(tx.Bucket(bDeliveries), idKey(id), &d)
		if err != nil {
			return err
		}
		if !ok {
			return errorf(ErrNotFound, "delivery not found")
		}
		sub, ok, err := getSubscription(tx, d.WorkspaceID, d.SubscriptionID)
		if err != nil {
			return err
		}
		if !ok {
			return errorf(ErrNotFound, "subscription %s no longer exists", d.SubscriptionID)
		}
		if !sub.Active {
			return errorf(ErrConflict, "subscription %s is disabled; enable it first", sub.ID)
		}
		if tx.Bucket(bEvents).Get(idKey(d.EventID)) == nil {
			return errorf(ErrNotFound, "event %s is no longer kept", d.EventID)
		}
		now := s.Now()
		if d.Status == DeliveryPending {
			if err := tx.Bucket(bDeliveryQueue).Delete(queueKey(d.NextAt, d.ID)); err != nil {
				return err
			}
		} else {
			d.Status, d.Attempts, d.DoneAt = DeliveryPending, 0, nil
		}
		d.NextAt, d.UpdatedAt = now, now
		fx.events = true
		return PutDelivery(tx, d)
	})
	return d, err
}

// Delivery returns a delivery by id.
func (s *Store) Delivery(id string) (Delivery, error) {
	var d Delivery
	err := s.db.View(func(tx *bolt.Tx) error {
		if _, ok := ParseID(id); !ok {
			return errorf(ErrNotFound, "delivery not found")
		}
		ok, err := getJSON(tx.Bucket(bDeliveries), idKey(id), &d)
		if err == nil && !ok {
			err = errorf(ErrNotFound, "delivery not found")
		}
		return err
	})
	return d, err
}

// Event returns a recorded event (with its payload) by id.
func (s *Store) Event(id string) (Event, error) {
	var ev Event
	err := s.db.View(func(tx *bolt.Tx) error {
		if _, ok := ParseID(id); !ok {
			return errorf(ErrNotFound, "event not found")
		}
		ok, err := getJSON(tx.Bucket(bEvents), idKey(id), &ev)
		if err == nil && !ok {
			err = errorf(ErrNotFound, "event not found")
		}
		return err
	})
	return ev, err
}

// SubscriptionDeliveries lists a subscription's deliveries, newest first, at most limit of them
// (limit ≤ 0: all that are kept).
func (s *Store) SubscriptionDeliveries(subID string, limit int) ([]Delivery, error) {
	out := []Delivery{}
	err := s.db.View(func(tx *bolt.Tx) error {
		if _, ok := ParseID(subID); !ok {
			return nil
		}
		prefix := idKey(subID)
		deliveries := tx.Bucket(bDeliveries)
		c := tx.Bucket(bSubDeliveries).Cursor()
		// Walk backwards from just past the prefix: ids are ULIDs, so newest first.
		k, _ := c.Seek(append(slices.Clone(prefix), bytes.Repeat([]byte{0xff}, 16)...))
		if k == nil {
			k, _ = c.Last()
		}
		for ; k != nil; k, _ = c.Prev() {
			if !bytes.HasPrefix(k, prefix) {
				if bytes.Compare(k, prefix) < 0 {
					break
				}
				continue
			}
			var d Delivery
			ok, err := getJSON(deliveries, k[16:], &d)
			if err != nil {
				return err
			}
			if ok {
				out = append(out, d)
				if limit > 0 && len(out) >= limit {
					break
				}
			}
		}
		return nil
	})
	return out, err
}

// DeliveryAttempts lists a delivery's attempts, oldest first.
func (s *Store) DeliveryAttempts(deliveryID string) ([]Attempt, error) {
	out := []Attempt{}
	err := s.db.View(func(tx *bolt.Tx) error {
		if _, ok := ParseID(deliveryID); !ok {
			return nil
		}
		return forEachPrefix(tx.Bucket(bAttempts), idKey(deliveryID), func(_, v []byte) error {
			var a Attempt
			if err := jsonUnmarshal(v, &a); err != nil {
				return err
			}
			out = append(out, a)
			return nil
		})
	})
	return out, err
}

// QueueDepth counts the pending deliveries. It reads the count PutDelivery keeps, so a
// metrics scrape costs one key, however long the queue.
func (s *Store) QueueDepth() (int, error) {
	n := 0
	err := s.db.View(func(tx *bolt.Tx) error {
		n = int(decodeUint(tx.Bucket(bMeta).Get(pendingCountKey)))
		return nil
	})
	return n, err
}

// purgeChunk bounds one retention transaction, so that the writer lock is never held long.
const purgeChunk = 1000

// PurgeWebhookHistory deletes deliveries (with their attempts and index entries) and events
// created before cutoff. Pending deliveries are kept, and so are the events they need. It works
// in transactions of at most purgeChunk deliveries and returns how many deliveries it removed.
func (s *Store) PurgeWebhookHistory(cutoff time.Time) (int, error) {
	total := 0
	// ULIDs begin with their millisecond timestamp, so every id below limit is older than cutoff.
	limit := idKeyAt(cutoff)
	var from []byte // where the previous chunk stopped; pending deliveries stay, so scans resume
	for {
		n, next, err := s.purgeDeliveries(limit, from)
		total += n
		if err != nil {
			return total, err
		}
		if next == nil {
			break
		}
		from = next
	}
	return total, s.purgeEvents(limit)
}

// purgeDeliveries looks at up to purgeChunk deliveries from key from (nil: the first) below
// limit and deletes the finished ones; next is the first key it did not look at, nil when done.
func (s *Store) purgeDeliveries(limit, from []byte) (removed int, next []byte, err error) {
	err = s.updateNow(func(tx *bolt.Tx, _ *effects) error {
		removed, next = 0, nil
		deliveries := tx.Bucket(bDeliveries)
		var victims []Delivery
		seen := 0
		c := deliveries.Cursor()
		k, v := c.First()
		if from != nil {
			k, v = c.Seek(from)
		}
		for ; k != nil && bytes.Compare(k, limit) < 0; k, v = c.Next() {
			if seen >= purgeChunk {
				next = bytes.Clone(k)
				break
			}
			seen++
			var d Delivery
			if err := jsonUnmarshal(v, &d); err != nil {
				return err
			}
			if d.Status != DeliveryPending {
				victims = append(victims, d)
			}
		}
		for _, d := range victims {
			if err := deletePrefix(tx.Bucket(bAttempts), idKey(d.ID)); err != nil {
				return err
			}
			if err := tx.Bucket(bSubDeliveries).Delete(wsKey(d.SubscriptionID, d.ID)); err != nil {
				return err
			}
			if err := deliveries.Delete(idKey(d.ID)); err != nil {
				return err
			}
		}
		removed = len(victims)
		return nil
	})
	return removed, next, err
}

// purgeEvents deletes events older than limit that no pending delivery needs, purgeChunk per
// transaction. Whether an event is needed is one seek in the event-pending index, in the same
// transaction as the delete, so a delivery made pending again meanwhile (Redeliver) keeps its
// event.
func (s *Store) purgeEvents(limit []byte) error {
	var from []byte
	for {
		var next []byte
		err := s.updateNow(func(tx *bolt.Tx, _ *effects) error {
			next = nil
			events := tx.Bucket(bEvents)
			pending := tx.Bucket(bEventPending).Cursor()
			var victims [][]byte
			c := events.Cursor()
			k, _ := c.First()
			if from != nil {
				k, _ = c.Seek(from)
			}
			for ; k != nil && bytes.Compare(k, limit) < 0; k, _ = c.Next() {
				if len(victims) >= purgeChunk {
					next = bytes.Clone(k)
					break
				}
				if pk, _ := pending.Seek(k); pk != nil && bytes.HasPrefix(pk, k) {
					continue
				}
				victims = append(victims, bytes.Clone(k))
			}
			for _, k := range victims {
				if err := events.Delete(k); err != nil {
					return err
				}
			}
			return nil
		})
		if err != nil || next == nil {
			return err
		}
		from = next
	}
}

// indexPendingDeliveries is a migration step: it builds the pending indexes and count of
// PutDelivery from the queue, for files written before they existed.
func indexPendingDeliveries(_ *Store, tx *bolt.Tx) error {
	var pending []Delivery
	deliveries := tx.Bucket(bDeliveries)
	if err := tx.Bucket(bDeliveryQueue).ForEach(func(k, _ []byte) error {
		if len(k) != 24 {
			return nil
		}
		var d Delivery
		if ok, err := getJSON(deliveries, k[8:], &d); err != nil || !ok {
			return err
		}
		if d.Status == DeliveryPending {
			pending = append(pending, d)
		}
		return nil
	}); err != nil {
		return err
	}
	if err := tx.Bucket(bMeta).Put(pendingCountKey, encodeUint(0)); err != nil {
		return err
	}
	for _, d := range pending {
		if err := setPending(tx, d, true); err != nil {
			return err
		}
	}
	return nil
}

// idKeyAt is the smallest 16-byte ULID key of the millisecond t.
func idKeyAt(t time.Time) []byte {
	ms := uint64(t.UnixMilli())
	k := make([]byte, 16)
	for i := 5; i >= 0; i-- {
		k[i] = byte(ms)
		ms >>= 8
	}
	return k
}

func deletePrefix(b *bolt.Bucket, prefix []byte) error {
	var keys [][]byte
	c := b.Cursor()
	for k, _ := c.Seek(prefix); k != nil && bytes.HasPrefix(k, prefix); k, _ = c.Next() {
		keys = append(keys, bytes.Clone(k))
	}
	for _, k := range keys {
		if err := b.Delete(k); err != nil {
			return err
		}
	}
	return nil
}

// attemptKey is delivery id | attempt id: a delivery's attempts sit together, oldest first.
func attemptKey(deliveryID, attemptID string) []byte {
	return append(slices.Clone(idKey(deliveryID)), idKey(attemptID)...)
}
