package store

import (
	"bytes"
	"encoding/json"
	"time"

	"switchboard/store/kv"
)

// The push outbox: one job per device and notification, written in the transaction of the
// change that causes it (an inbound text, a mention, an assignment), so a crash between the
// commit and the send loses no push. The push worker (push/) sends due jobs and records each
// outcome here; a job goes when it is sent, refused for good, past its 24 hours, or when its
// subscription is deleted.

// PushJob is one Web Push waiting in the outbox.
type PushJob struct {
	ID             string `json:"id"`
	SubscriptionID string `json:"subscriptionId"`
	UserID         string `json:"userId"`
	// ConversationID is the push's Topic: a newer push about the conversation replaces one the
	// push service still holds.
	ConversationID string `json:"conversationId"`
	// Urgency is the RFC 8030 Urgency header: "high" for a customer's text, "normal" otherwise.
	Urgency   string          `json:"urgency"`
	Payload   json.RawMessage `json:"payload"` // the JSON the service worker reads, before encryption
	CreatedAt time.Time       `json:"createdAt"`
	DueAt     time.Time       `json:"dueAt"`
	Attempts  int             `json:"attempts,omitempty"`
	LastError string          `json:"lastError,omitempty"`
}

// DuePush is a due job with the subscription it goes to and the session that made it.
type DuePush struct {
	Job     PushJob
	Sub     PushSubscription
	Session Session
}

func pushQueueKey(due time.Time, id string) []byte {
	return append(encodeUint(uint64(due.UnixNano())), idKey(id)...)
}

func addPushDepth(tx *kv.Tx, d int64) error {
	meta := tx.Bucket(bMeta)
	n := int64(decodeUint(meta.Get(metaPushDepth))) + d
	return meta.Put(metaPushDepth, encodeUint(uint64(max(n, 0))))
}

// queuePushJob writes a new job, due now, into the outbox inside tx.
func (s *Store) queuePushJob(tx *wtx, j PushJob) error {
	j.ID = s.NewID()
	j.CreatedAt = s.Now()
	j.DueAt = j.CreatedAt
	if err := putPushJob(tx.Tx, j); err != nil {
		return err
	}
	tx.push = true
	return addPushDepth(tx.Tx, 1)
}

func putPushJob(tx *kv.Tx, j PushJob) error {
	if err := putJSON(tx.Bucket(bPushJobs), idKey(j.ID), j); err != nil {
		return err
	}
	due := encodeUint(uint64(j.DueAt.UnixNano()))
	if err := tx.Bucket(bPushSubJobs).Put(append(idKey(j.SubscriptionID), idKey(j.ID)...), due); err != nil {
		return err
	}
	return tx.Bucket(bPushQueue).Put(pushQueueKey(j.DueAt, j.ID), nil)
}

// takePushJob deletes the job from the outbox and returns it as stored; ok is false when it is
// gone already (its subscription was deleted meanwhile), and then nothing is written.
func takePushJob(tx *kv.Tx, id string) (PushJob, bool, error) {
	var j PushJob
	ok, err := getJSON(tx.Bucket(bPushJobs), idKey(id), &j)
	if err != nil || !ok {
		return j, false, err
	}
	if err := tx.Bucket(bPushJobs).Delete(idKey(id)); err != nil {
		return j, false, err
	}
	if err := tx.Bucket(bPushSubJobs).Delete(append(idKey(j.SubscriptionID), idKey(id)...)); err != nil {
		return j, false, err
	}
	return j, true, tx.Bucket(bPushQueue).Delete(pushQueueKey(j.DueAt, id))
}

// deleteSubPushJobs deletes every job queued for a subscription.
func deleteSubPushJobs(tx *kv.Tx, subID string) error {
	p := idKey(subID)
	var ids []string
	c := tx.Bucket(bPushSubJobs).Cursor()
	for k, _ := c.Seek(p); k != nil && bytes.HasPrefix(k, p); k, _ = c.Next() {
		ids = append(ids, idFromKey(k))
	}
	for _, id := range ids {
		if _, ok, err := takePushJob(tx, id); err != nil {
			return err
		} else if ok {
			if err := addPushDepth(tx, -1); err != nil {
				return err
			}
		}
	}
	return nil
}

// DuePushes returns up to limit jobs due at now, oldest due first, each with its subscription
// and session, leaving out those skip names (the worker's jobs in flight); and when the next job
// not yet due is (zero when none).
func (s *Store) DuePushes(now time.Time, limit int, skip func(id string) bool) ([]DuePush, time.Time, error) {
	var out []DuePush
	var next time.Time
	err := s.view(func(tx *kv.Tx) error {
		c := tx.Bucket(bPushQueue).Cursor()
		for k, _ := c.First(); k != nil && len(out) < limit; k, _ = c.Next() {
			if len(k) != 24 {
				continue
			}
			if due := time.Unix(0, int64(decodeUint(k[:8]))); due.After(now) {
				next = due
				return nil
			}
			id := idFromKey(k)
			if skip != nil && skip(id) {
				continue
			}
			var d DuePush
			if ok, err := getJSON(tx.Bucket(bPushJobs), k[8:], &d.Job); err != nil {
				return err
			} else if !ok {
				continue
			}
			if ok, err := getJSON(tx.Bucket(bPushSubs), idKey(d.Job.SubscriptionID), &d.Sub); err != nil {
				return err
			} else if !ok {
				continue
			}
			if h := tx.Bucket(bSessionUser).Get(sessionUserKey(d.Sub.UserID, d.Sub.SessionID)); h != nil {
				if _, err := getJSON(tx.Bucket(bSessions), h, &d.Session); err != nil {
					return err
				}
			}
			out = append(out, d)
		}
		return nil
	})
	return out, next, err
}

// PushSent records a push the push service accepted: the job leaves the outbox and the device's
// last push is now.
func (s *Store) PushSent(jobID string, at time.Time) error {
	return s.update(func(tx *wtx) error {
		j, ok, err := takePushJob(tx.Tx, jobID)
		if err != nil || !ok {
			return err
		}
		if err := addPushDepth(tx.Tx, -1); err != nil {
			return err
		}
		var sub PushSubscription
		if ok, err := getJSON(tx.Bucket(bPushSubs), idKey(j.SubscriptionID), &sub); err != nil || !ok {
			return err
		}
		sub.LastPushAt = at
		return putJSON(tx.Bucket(bPushSubs), idKey(sub.ID), sub)
	})
}

// PushDropped takes a job out of the outbox for good (refused by the push service, or past its
// 24 hours).
func (s *Store) PushDropped(jobID string) error {
	return s.update(func(tx *wtx) error {
		if _, ok, err := takePushJob(tx.Tx, jobID); err != nil || !ok {
			return err
		}
		return addPushDepth(tx.Tx, -1)
	})
}

// PushRetry keeps a job for another try at due, with the reason this one failed. A job gone
// meanwhile stays gone.
func (s *Store) PushRetry(jobID string, due time.Time, reason string) error {
	return s.update(func(tx *wtx) error {
		j, ok, err := takePushJob(tx.Tx, jobID)
		if err != nil || !ok {
			return err
		}
		j.Attempts++
		j.DueAt, j.LastError = due, clip(reason, 500)
		return putPushJob(tx.Tx, j)
	})
}

// PushGone deletes a subscription the push service no longer knows (404, 410), with every
// push still queued for it.
func (s *Store) PushGone(subscriptionID string) error {
	return s.update(func(tx *wtx) error { return deletePushSub(tx.Tx, subscriptionID) })
}

// PushQueueDepth is how many pushes wait in the outbox, due now or later.
func (s *Store) PushQueueDepth() (int, error) {
	var n uint64
	err := s.view(func(tx *kv.Tx) error {
		n = decodeUint(tx.Bucket(bMeta).Get(metaPushDepth))
		return nil
	})
	return int(n), err
}
