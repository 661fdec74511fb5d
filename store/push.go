package store

import (
	"bytes"
	"crypto/sha256"
	"time"

	"switchboard/store/kv"
)

// PushSubscription is one device's Web Push subscription (RFC 8030): where its browser's push
// service takes messages for it and the keys that encrypt them (RFC 8291). It belongs to the
// session that made it and is deleted in the transaction that ends that session (sign-out,
// sign-out everywhere, expiry, a disabled user, a password change or reset, removal from a
// workspace), so a signed-out phone never shows a customer's text again.
type PushSubscription struct {
	ID        string `json:"id"`
	UserID    string `json:"userId"`
	SessionID string `json:"sessionId"`
	Endpoint  string `json:"endpoint"`
	// P256dh and Auth are the browser's keys as it gives them (base64url): its P-256 public
	// key, uncompressed, and its 16-byte authentication secret.
	P256dh    string    `json:"p256dh"`
	Auth      string    `json:"auth"`
	UserAgent string    `json:"userAgent,omitempty"`
	CreatedAt time.Time `json:"createdAt"`
	// ExpiresAt is when the push service ends the subscription, when the browser said so.
	ExpiresAt  time.Time `json:"expiresAt,omitzero"`
	LastPushAt time.Time `json:"lastPushAt,omitzero"`
}

// MaxPushDevices is how many devices one user may have notifications on.
const MaxPushDevices = 10

// NewPushSubscription is the input of AddPushSubscription: a decoded, checked
// PushSubscription.toJSON() and the session that posted it.
type NewPushSubscription struct {
	UserID, SessionID string
	Endpoint          string
	P256dh, Auth      string
	UserAgent         string
	ExpiresAt         time.Time
}

func pushEndpointKey(endpoint string) []byte {
	h := sha256.Sum256([]byte(endpoint))
	return h[:]
}

// AddPushSubscription records a device's subscription for the session that made it. The same
// endpoint posted again (the browser renews its keys, or the user turns notifications on again)
// replaces the earlier record instead of adding a device. A user's eleventh device is refused
// with a ValidationError on endpoint, and a session that is gone with ErrNotFound; nothing is
// written then.
func (s *Store) AddPushSubscription(in NewPushSubscription) (PushSubscription, error) {
	var out PushSubscription
	err := s.update(func(tx *wtx) error {
		if tx.Bucket(bSessionUser).Get(sessionUserKey(in.UserID, in.SessionID)) == nil {
			return tx.refuse(errorf(ErrNotFound, "session not found"))
		}
		ek := pushEndpointKey(in.Endpoint)
		var old PushSubscription
		if id := tx.Bucket(bPushSubEndpoint).Get(ek); id != nil {
			if _, err := getJSON(tx.Bucket(bPushSubs), bytes.Clone(id), &old); err != nil {
				return err
			}
		}
		if old.UserID != in.UserID || old.ID == "" {
			if n := len(userPushSubIDs(tx.Tx, in.UserID)); n >= MaxPushDevices {
				return tx.refuse(ValidationError{{Field: "endpoint", Message: "notifications are on for 10 devices already: " +
					"remove one under \"Notifications on this device\" on your profile first"}})
			}
		}
		now := s.Now()
		out = PushSubscription{ID: s.NewID(), CreatedAt: now}
		if old.ID != "" {
			if old.UserID == in.UserID {
				out.ID, out.CreatedAt, out.LastPushAt = old.ID, old.CreatedAt, old.LastPushAt
			}
			if err := deletePushSub(tx.Tx, old.ID); err != nil {
				return err
			}
		}
		out.UserID, out.SessionID, out.Endpoint, out.P256dh, out.Auth = in.UserID, in.SessionID, in.Endpoint, in.P256dh, in.Auth
		out.UserAgent, out.ExpiresAt = clip(in.UserAgent, 255), in.ExpiresAt
		return putPushSub(tx.Tx, out)
	})
	return out, err
}

func putPushSub(tx *kv.Tx, sub PushSubscription) error {
	if err := putJSON(tx.Bucket(bPushSubs), idKey(sub.ID), sub); err != nil {
		return err
	}
	if err := tx.Bucket(bPushSubUser).Put(append(idKey(sub.UserID), idKey(sub.ID)...), nil); err != nil {
		return err
	}
	if err := tx.Bucket(bPushSubSession).Put(append(idKey(sub.SessionID), idKey(sub.ID)...), nil); err != nil {
		return err
	}
	return tx.Bucket(bPushSubEndpoint).Put(pushEndpointKey(sub.Endpoint), idKey(sub.ID))
}

// idsUnder lists the ids that follow prefix (16 bytes) in the keys of an index bucket.
func idsUnder(b *kv.Bucket, prefix []byte) []string {
	var ids []string
	c := b.Cursor()
	for k, _ := c.Seek(prefix); k != nil && bytes.HasPrefix(k, prefix); k, _ = c.Next() {
		if len(k) == len(prefix)+16 {
			ids = append(ids, idFromKey(k[len(prefix):]))
		}
	}
	return ids
}

func userPushSubIDs(tx *kv.Tx, userID string) []string {
	return idsUnder(tx.Bucket(bPushSubUser), idKey(userID))
}

// deletePushSub deletes a subscription, its index entries and the pushes still queued for it.
// An unknown id is no error.
func deletePushSub(tx *kv.Tx, id string) error {
	var sub PushSubscription
	ok, err := getJSON(tx.Bucket(bPushSubs), idKey(id), &sub)
	if err != nil || !ok {
		return err
	}
	if err := deleteSubPushJobs(tx, id); err != nil {
		return err
	}
	if err := tx.Bucket(bPushSubs).Delete(idKey(id)); err != nil {
		return err
	}
	if err := tx.Bucket(bPushSubUser).Delete(append(idKey(sub.UserID), idKey(id)...)); err != nil {
		return err
	}
	if err := tx.Bucket(bPushSubSession).Delete(append(idKey(sub.SessionID), idKey(id)...)); err != nil {
		return err
	}
	eb := tx.Bucket(bPushSubEndpoint)
	if ek := pushEndpointKey(sub.Endpoint); bytes.Equal(eb.Get(ek), idKey(id)) {
		return eb.Delete(ek)
	}
	return nil
}

// deleteSessionPushSubs deletes the subscriptions a session made: the session is ending in tx.
func deleteSessionPushSubs(tx *kv.Tx, sessionID string) error {
	for _, id := range idsUnder(tx.Bucket(bPushSubSession), idKey(sessionID)) {
		if err := deletePushSub(tx, id); err != nil {
			return err
		}
	}
	return nil
}

// deleteUserPushSubs deletes every subscription of a user, in the transaction of a change that
// ends what they may be told (their removal from a workspace).
func deleteUserPushSubs(tx *kv.Tx, userID string) error {
	for _, id := range userPushSubIDs(tx, userID) {
		if err := deletePushSub(tx, id); err != nil {
			return err
		}
	}
	return nil
}

// UserPushSubscriptions lists the user's devices with notifications on, oldest first.
func (s *Store) UserPushSubscriptions(userID string) ([]PushSubscription, error) {
	var out []PushSubscription
	err := s.view(func(tx *kv.Tx) error {
		for _, id := range userPushSubIDs(tx, userID) {
			var sub PushSubscription
			if ok, err := getJSON(tx.Bucket(bPushSubs), idKey(id), &sub); err != nil {
				return err
			} else if ok {
				out = append(out, sub)
			}
		}
		return nil
	})
	return out, err
}

// RemovePushSubscription deletes one of the user's devices ("Remove" on the profile) with its
// queued pushes; another user's, or an unknown one, is ErrNotFound.
func (s *Store) RemovePushSubscription(userID, id string) error {
	return s.update(func(tx *wtx) error {
		if _, ok := ParseID(id); !ok || !hasKey(tx.Bucket(bPushSubUser), append(idKey(userID), idKey(id)...)) {
			return tx.refuse(errorf(ErrNotFound, "device not found"))
		}
		return deletePushSub(tx.Tx, id)
	})
}

// RemovePushEndpoint deletes the user's subscription with that endpoint (the device turning its
// notifications off); none is no error.
func (s *Store) RemovePushEndpoint(userID, endpoint string) error {
	return s.update(func(tx *wtx) error {
		id := tx.Bucket(bPushSubEndpoint).Get(pushEndpointKey(endpoint))
		if id == nil || !hasKey(tx.Bucket(bPushSubUser), append(idKey(userID), id...)) {
			return nil
		}
		return deletePushSub(tx.Tx, idFromKey(id))
	})
}
