package store

import (
	"bytes"
	"encoding/json"
	"time"

	"switchboard/store/kv"
)

// The delivery queue (bucket webhook_queue) holds one key per pending delivery:
// due time (8 bytes, big-endian UnixNano) | delivery id (16 bytes), so a cursor walks it in due
// order. Invariant kept by every function here: a delivery is pending if and only if it has
// exactly one queue entry, at its NextAt.

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
	err = s.view(func(tx *kv.Tx) error {
		due, next = due[:0], time.Time{}
		c := tx.Bucket(bDeliveryQueue).Cursor()
		deliveries, events := tx.Bucket(bDeliveries), tx.Bucket(bEvents)
		type cachedSub struct {
			sub   Subscription
			stale string
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
				var ok bool
				sc.sub, ok, err = getSubscription(tx, dd.Delivery.WorkspaceID, dd.Delivery.SubscriptionID)
				if err != nil {
					return err
				}
				sc.stale = subscriptionStale(tx, sc.sub, ok)
				subs[dd.Delivery.SubscriptionID] = sc
			}
			dd.Stale, dd.Subscription = sc.stale, sc.sub
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
	err := s.update(func(tx *wtx) error {
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
		sub, subOK, err := getSubscription(tx.Tx, d.WorkspaceID, d.SubscriptionID)
		if err != nil {
			return err
		}
		switch r.Outcome {
		case OutcomeDelivered:
			d.Status, d.DoneAt, d.LastError = DeliveryDelivered, &now, ""
			if subOK && sub.FailingSince != nil {
				sub.FailingSince = nil
				if err := PutSubscription(tx.Tx, sub); err != nil {
					return err
				}
			}
		case OutcomeGone:
			d.Status, d.DoneAt = DeliveryFailed, &now
			if d.LastError == "" {
				d.LastError = "410 Gone: the subscription was removed"
			}
			if subOK {
				if err := DeleteSubscription(tx.Tx, sub.WorkspaceID, sub.ID); err != nil {
					return err
				}
				if err := s.cancelPending(tx.Tx, sub.ID, d.ID, "subscription removed after 410 Gone"); err != nil {
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
					if err := s.cancelPending(tx.Tx, sub.ID, d.ID, "subscription disabled after failing for 5 days"); err != nil {
						return err
					}
				}
				if err := PutSubscription(tx.Tx, sub); err != nil {
					return err
				}
			}
			if r.Outcome == OutcomeRetry && !disabled && subOK {
				d.NextAt = r.NextAt
			} else {
				d.Status, d.DoneAt = DeliveryFailed, &now
			}
		}
		return PutDelivery(tx.Tx, d)
	})
	return d, disabled, err
}

// cancelPending cancels every pending delivery of a subscription except one (the delivery whose
// attempt is being recorded, which its caller settles itself). It reads the pending index, so it
// touches only pending deliveries, never the subscription's delivery history.
func (s *Store) cancelPending(tx *kv.Tx, subID, exceptID, reason string) error {
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
func (s *Store) cancelDelivery(tx *kv.Tx, id, reason string) (bool, error) {
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
	return s.update(func(tx *wtx) error {
		changed, err := s.cancelDelivery(tx.Tx, id, reason)
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
	err := s.update(func(tx *wtx) error {
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
		sub, ok, err := getSubscription(tx.Tx, d.WorkspaceID, d.SubscriptionID)
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
		tx.events = true
		return PutDelivery(tx.Tx, d)
	})
	return d, err
}

// QueueDepth counts the pending deliveries. It reads the count PutDelivery keeps, so a
// metrics scrape costs one key, however long the queue.
func (s *Store) QueueDepth() (int, error) {
	n := 0
	err := s.view(func(tx *kv.Tx) error {
		n = int(decodeUint(tx.Bucket(bMeta).Get(pendingCountKey)))
		return nil
	})
	return n, err
}

// queueKey orders the delivery queue by due time, then id.
func queueKey(due time.Time, id string) []byte {
	k := encodeUint(uint64(due.UnixNano()))
	return append(k, idKey(id)...)
}

// setPending adds or removes d's entries in the pending indexes and counts the change.
func setPending(tx *kv.Tx, d Delivery, pending bool) error {
	bySub, byEvent := tx.Bucket(bSubPending), tx.Bucket(bEventPending)
	subKey := wsKey(d.SubscriptionID, d.ID)
	was := hasKey(bySub, subKey)
	if pending == was {
		return nil
	}
	evKey := wsKey(d.EventID, d.ID)
	if pending {
		if err := bySub.Put(subKey, nil); err != nil {
			return err
		}
		if err := byEvent.Put(evKey, nil); err != nil {
			return err
		}
		return addPendingCount(tx, 1)
	}
	if err := bySub.Delete(subKey); err != nil {
		return err
	}
	if err := byEvent.Delete(evKey); err != nil {
		return err
	}
	return addPendingCount(tx, -1)
}

func addPendingCount(tx *kv.Tx, delta int64) error {
	meta := tx.Bucket(bMeta)
	n := int64(decodeUint(meta.Get(pendingCountKey))) + delta
	if n < 0 {
		n = 0
	}
	return meta.Put(pendingCountKey, encodeUint(uint64(n)))
}
