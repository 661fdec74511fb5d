package store

import (
	"bytes"
	"time"

	"switchboard/store/kv"
)

// WebhookRetention is how long events, deliveries and attempts are kept (the delivery log).
const WebhookRetention = 30 * 24 * time.Hour

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
	err = s.updateNow(func(tx *wtx) error {
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
		err := s.updateNow(func(tx *wtx) error {
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

func deletePrefix(b *kv.Bucket, prefix []byte) error {
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
