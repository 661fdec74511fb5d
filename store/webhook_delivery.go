package store

import (
	"bytes"
	"slices"
	"time"

	"switchboard/store/kv"
)

// Delivery is one event on its way to one subscription. Its id is the webhook-id header,
// stable across retries.
type Delivery struct {
	ID             string     `json:"id"`
	EventID        string     `json:"eventId"`
	SubscriptionID string     `json:"subscriptionId"`
	WorkspaceID    string     `json:"workspaceId"`
	EventName      string     `json:"eventName"`
	Status         string     `json:"status"`
	Attempts       int        `json:"attempts"`
	NextAt         time.Time  `json:"nextAt"`
	LastStatus     int        `json:"lastStatus"`
	LastError      string     `json:"lastError"`
	CreatedAt      time.Time  `json:"createdAt"`
	UpdatedAt      time.Time  `json:"updatedAt"`
	DoneAt         *time.Time `json:"doneAt,omitempty"`
}

// Attempt is one POST of a delivery, kept for the delivery log.
type Attempt struct {
	ID         string    `json:"id"`
	DeliveryID string    `json:"deliveryId"`
	At         time.Time `json:"at"`
	StatusCode int       `json:"statusCode"`
	LatencyMS  int64     `json:"latencyMs"`
	Error      string    `json:"error"`
	Response   string    `json:"response"`
}

// Delivery returns a delivery by id.
func (s *Store) Delivery(id string) (Delivery, error) {
	var d Delivery
	err := s.view(func(tx *kv.Tx) error {
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

// SubscriptionDeliveries lists a subscription's deliveries, newest first, at most limit of them
// (limit ≤ 0: all that are kept).
func (s *Store) SubscriptionDeliveries(subID string, limit int) ([]Delivery, error) {
	out := []Delivery{}
	err := s.view(func(tx *kv.Tx) error {
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
	err := s.view(func(tx *kv.Tx) error {
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

// attemptKey is delivery id | attempt id: a delivery's attempts sit together, oldest first.
func attemptKey(deliveryID, attemptID string) []byte {
	return append(slices.Clone(idKey(deliveryID)), idKey(attemptID)...)
}

// PutDelivery writes d and, while it is pending, its queue entry at d.NextAt. The caller removes
// any older queue entry first. It also keeps the pending indexes (by subscription and by event)
// and the pending count, so that cancelling a subscription's deliveries, purging events and the
// queue-depth gauge never walk the delivery history.
func PutDelivery(tx *kv.Tx, d Delivery) error {
	if err := putJSON(tx.Bucket(bDeliveries), idKey(d.ID), d); err != nil {
		return err
	}
	pending := d.Status == DeliveryPending
	if pending {
		if err := tx.Bucket(bDeliveryQueue).Put(queueKey(d.NextAt, d.ID), nil); err != nil {
			return err
		}
	}
	return setPending(tx, d, pending)
}
