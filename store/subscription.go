package store

import (
	"crypto/rand"
	"encoding/base64"

	bolt "go.etcd.io/bbolt"
)

// NewWebhookSecret returns a Standard Webhooks secret: whsec_ + base64 of 32 random bytes.
func NewWebhookSecret() string {
	b := make([]byte, 32)
	if _, err := rand.Read(b); err != nil {
		panic("crypto/rand failed: " + err.Error())
	}
	return "whsec_" + base64.StdEncoding.EncodeToString(b)
}

// Subscribe adds an active webhook subscription with a fresh secret.
func (s *Store) Subscribe(workspaceID, userID, eventName, hookURL string) (Subscription, error) {
	sub := Subscription{ID: s.NewID(), WorkspaceID: workspaceID, EventName: eventName, HookURL: hookURL,
		Secret: NewWebhookSecret(), UserID: userID, Active: true, CreatedAt: s.Now()}
	err := s.update(func(tx *bolt.Tx, _ *effects) error {
		if _, err := getWorkspace(tx, workspaceID); err != nil {
			return err
		}
		if err := tx.Bucket(bSubEvent).Put(idxKey(workspaceID, eventName, sub.ID), nil); err != nil {
			return err
		}
		return putJSON(tx.Bucket(bSubs), wsKey(workspaceID, sub.ID), sub)
	})
	return sub, err
}

// Unsubscribe deletes a subscription; an unknown id is ErrNotFound ("subscription not found").
// Its pending deliveries are cancelled.
func (s *Store) Unsubscribe(workspaceID, id string) error {
	return s.update(func(tx *bolt.Tx, _ *effects) error {
		if err := DeleteSubscription(tx, workspaceID, id); err != nil {
			return err
		}
		return s.cancelPending(tx, id, "", "unsubscribed")
	})
}

// DeleteSubscription removes a subscription and its index entry inside tx.
func DeleteSubscription(tx *bolt.Tx, workspaceID, id string) error {
	sub, ok, err := getSubscription(tx, workspaceID, id)
	if err != nil {
		return err
	}
	if !ok {
		return errorf(ErrNotFound, "subscription not found")
	}
	if err := tx.Bucket(bSubEvent).Delete(idxKey(workspaceID, sub.EventName, sub.ID)); err != nil {
		return err
	}
	return tx.Bucket(bSubs).Delete(wsKey(workspaceID, id))
}

func getSubscription(tx *bolt.Tx, workspaceID, id string) (Subscription, bool, error) {
	var sub Subscription
	if _, ok := ParseID(id); !ok {
		return sub, false, nil
	}
	if _, ok := ParseID(workspaceID); !ok {
		return sub, false, nil
	}
	ok, err := getJSON(tx.Bucket(bSubs), wsKey(workspaceID, id), &sub)
	return sub, ok, err
}

// GetSubscription returns a subscription inside tx.
func GetSubscription(tx *bolt.Tx, workspaceID, id string) (Subscription, bool, error) {
	return getSubscription(tx, workspaceID, id)
}

// PutSubscription writes a subscription inside tx (the webhooks package records failures).
func PutSubscription(tx *bolt.Tx, sub Subscription) error {
	return putJSON(tx.Bucket(bSubs), wsKey(sub.WorkspaceID, sub.ID), sub)
}

// Subscriptions lists subscriptions of one workspace, or of all when workspaceID is "".
func (s *Store) Subscriptions(workspaceID string) ([]Subscription, error) {
	out := []Subscription{}
	err := s.db.View(func(tx *bolt.Tx) error {
		var prefix []byte
		if workspaceID != "" {
			if _, ok := ParseID(workspaceID); !ok {
				return nil
			}
			prefix = idKey(workspaceID)
		}
		return forEachPrefix(tx.Bucket(bSubs), prefix, func(_, v []byte) error {
			var sub Subscription
			if err := jsonUnmarshal(v, &sub); err != nil {
				return err
			}
			out = append(out, sub)
			return nil
		})
	})
	return out, err
}
