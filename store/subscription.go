package store

import (
	"bytes"
	"crypto/rand"
	"encoding/base64"
	"slices"
	"time"

	"switchboard/store/kv"
)

// Subscription is a webhook subscription of a workspace to one event name. TokenID, or GrantID
// and ClientID, name the credential it was made through; it dies with that credential and with
// its user's membership. They are empty for one made by an admin tool.
type Subscription struct {
	ID           string     `json:"id"`
	WorkspaceID  string     `json:"workspaceId"`
	EventName    string     `json:"eventName"`
	HookURL      string     `json:"hookUrl"`
	Secret       string     `json:"secret"`
	UserID       string     `json:"userId"`
	TokenID      string     `json:"tokenId,omitempty"`
	GrantID      string     `json:"grantId,omitempty"`
	ClientID     string     `json:"clientId,omitempty"`
	Active       bool       `json:"active"`
	FailingSince *time.Time `json:"failingSince,omitempty"`
	DisabledAt   *time.Time `json:"disabledAt,omitempty"`
	CreatedAt    time.Time  `json:"createdAt"`
}

// MaxActiveSubscriptions bounds the active subscriptions of one workspace to one event name
// so that one event cannot fan out without limit.
const MaxActiveSubscriptions = 25

// NewWebhookSecret returns a Standard Webhooks secret: whsec_ + base64 of 32 random bytes.
func NewWebhookSecret() string {
	b := make([]byte, 32)
	if _, err := rand.Read(b); err != nil {
		panic("crypto/rand failed: " + err.Error())
	}
	return "whsec_" + base64.StdEncoding.EncodeToString(b)
}

// Subscribe adds an active webhook subscription with a fresh secret, made by userID directly
// (an admin tool): it lives while userID is a member of the workspace. userID "" makes one owned
// by the installation, which lives until it is deleted.
func (s *Store) Subscribe(workspaceID, userID, eventName, hookURL string) (Subscription, error) {
	return s.SubscribeAs(Token{UserID: userID}, workspaceID, eventName, hookURL)
}

// SubscribeAs adds an active webhook subscription made through the API with token tok. It
// belongs to the token's user and dies with the credential: a personal token when it is revoked,
// an OAuth token's grant when that is revoked or its client deleted. The workspace
// must exist (ErrNotFound), the user be a member (ErrForbidden) and the token still be live
// (ErrNotFound), all checked in the transaction that writes, so a subscription never outlives an
// access that ended while it was being made. More than MaxActiveSubscriptions active ones for
// the workspace and event is ErrConflict.
func (s *Store) SubscribeAs(tok Token, workspaceID, eventName, hookURL string) (Subscription, error) {
	sub := Subscription{ID: s.NewID(), WorkspaceID: workspaceID, EventName: eventName, HookURL: hookURL,
		Secret: NewWebhookSecret(), UserID: tok.UserID, Active: true, CreatedAt: s.Now()}
	switch {
	case tok.Kind == TokenOAuth:
		sub.GrantID, sub.ClientID = tok.GrantID, tok.ClientID
	case tok.ID != "":
		sub.TokenID = tok.ID
	}
	err := s.update(func(tx *wtx) error {
		if _, err := getWorkspace(tx.Tx, workspaceID); err != nil {
			return tx.refuse(err)
		}
		if tok.UserID != "" && !isMember(tx.Tx, workspaceID, tok.UserID) {
			return tx.refuse(errorf(ErrForbidden, "you are not a member of this workspace"))
		}
		if tok.ID != "" && tx.Bucket(bTokenIDs).Get(idKey(tok.ID)) == nil {
			return tx.refuse(errorf(ErrNotFound, "invalid, expired or revoked token"))
		}
		n, err := activeSubscriptions(tx.Tx, workspaceID, eventName)
		if err != nil {
			return err
		}
		if n >= MaxActiveSubscriptions {
			return tx.refuse(errorf(ErrConflict, "this workspace already has %d active subscriptions to %s", n, eventName))
		}
		return putNewSubscription(tx.Tx, sub)
	})
	if err != nil {
		return Subscription{}, err
	}
	return sub, nil
}

// activeSubscriptions counts the active subscriptions of a workspace to one event.
func activeSubscriptions(tx *kv.Tx, workspaceID, eventName string) (int, error) {
	n := 0
	for _, id := range idxIDs(tx.Bucket(bSubEvent), workspaceID, eventName) {
		sub, ok, err := getSubscription(tx, workspaceID, id)
		if err != nil {
			return 0, err
		}
		if ok && sub.Active {
			n++
		}
	}
	return n, nil
}

func putNewSubscription(tx *kv.Tx, sub Subscription) error {
	if err := tx.Bucket(bSubEvent).Put(idxKey(sub.WorkspaceID, sub.EventName, sub.ID), nil); err != nil {
		return err
	}
	for _, k := range ownerKeys(sub) {
		if err := tx.Bucket(bSubOwner).Put(k, nil); err != nil {
			return err
		}
	}
	return putJSON(tx.Bucket(bSubs), wsKey(sub.WorkspaceID, sub.ID), sub)
}

// Owner index (bucket idx_webhook_subscription_owner), one entry per way a subscription can
// lose its access, each ending in workspace(16) | subscription(16):
//
//	'u' | workspace | user       the membership
//	't' | token                  the personal token it was made with
//	'g' | grant                  the OAuth grant it was made through
//	'c' | client                 that grant's client
const (
	ownerMember = 'u'
	ownerToken  = 't'
	ownerGrant  = 'g'
	ownerClient = 'c'
)

// ownerPrefix is kind | the ids that name one credential.
func ownerPrefix(kind byte, ids ...string) []byte {
	k := []byte{kind}
	for _, id := range ids {
		k = append(k, idKey(id)...)
	}
	return k
}

func ownerKeys(sub Subscription) [][]byte {
	tail := wsKey(sub.WorkspaceID, sub.ID)
	var keys [][]byte
	add := func(kind byte, ids ...string) {
		keys = append(keys, append(ownerPrefix(kind, ids...), tail...))
	}
	if sub.UserID != "" {
		add(ownerMember, sub.WorkspaceID, sub.UserID)
	}
	if sub.TokenID != "" {
		add(ownerToken, sub.TokenID)
	}
	if sub.GrantID != "" {
		add(ownerGrant, sub.GrantID)
	}
	if sub.ClientID != "" {
		add(ownerClient, sub.ClientID)
	}
	return keys
}

// endSubscriptions deletes every subscription indexed under an owner prefix and cancels their
// pending deliveries, inside tx. It returns how many it deleted.
func (s *Store) endSubscriptions(tx *kv.Tx, prefix []byte, reason string) (int, error) {
	var subs [][2]string // workspace, subscription
	c := tx.Bucket(bSubOwner).Cursor()
	for k, _ := c.Seek(prefix); k != nil && bytes.HasPrefix(k, prefix); k, _ = c.Next() {
		if len(k) != len(prefix)+32 {
			continue
		}
		subs = append(subs, [2]string{idFromKey(k[:len(k)-16]), idFromKey(k)})
	}
	n := 0
	for _, p := range subs { // deleted after the scan: deleting under a cursor skips keys
		err := DeleteSubscription(tx, p[0], p[1])
		if err != nil && !isNotFound(err) {
			return n, err
		}
		if err == nil {
			n++
		}
		// A dangling index entry (its subscription already gone) is dropped all the same.
		if err := tx.Bucket(bSubOwner).Delete(append(slices.Clone(prefix), wsKey(p[0], p[1])...)); err != nil {
			return n, err
		}
		if err := s.cancelPending(tx, p[1], "", reason); err != nil {
			return n, err
		}
	}
	return n, nil
}

// EndGrantSubscriptions deletes, inside the caller's transaction, the subscriptions made through
// an OAuth grant and cancels their pending deliveries (the grant is being revoked).
func (s *Store) EndGrantSubscriptions(tx *kv.Tx, grantID string) (int, error) {
	if _, ok := ParseID(grantID); !ok {
		return 0, nil
	}
	return s.endSubscriptions(tx, ownerPrefix(ownerGrant, grantID), "the OAuth grant that made the subscription was revoked")
}

// EndClientSubscriptions deletes, inside the caller's transaction, the subscriptions made
// through any grant of an OAuth client and cancels their pending deliveries (the client is
// being deleted).
func (s *Store) EndClientSubscriptions(tx *kv.Tx, clientID string) (int, error) {
	if _, ok := ParseID(clientID); !ok {
		return 0, nil
	}
	return s.endSubscriptions(tx, ownerPrefix(ownerClient, clientID), "the OAuth client that made the subscription was deleted")
}

// Unsubscribe deletes a subscription; an unknown id is ErrNotFound ("subscription not found").
// Its pending deliveries are cancelled.
func (s *Store) Unsubscribe(workspaceID, id string) error {
	return s.update(func(tx *wtx) error {
		if err := DeleteSubscription(tx.Tx, workspaceID, id); err != nil {
			if isNotFound(err) {
				return tx.refuse(err)
			}
			return err
		}
		return s.cancelPending(tx.Tx, id, "", "unsubscribed")
	})
}

// DeleteSubscription removes a subscription and its index entries inside tx. Its pending
// deliveries are the caller's to cancel (cancelPending).
func DeleteSubscription(tx *kv.Tx, workspaceID, id string) error {
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
	for _, k := range ownerKeys(sub) {
		if err := tx.Bucket(bSubOwner).Delete(k); err != nil {
			return err
		}
	}
	return tx.Bucket(bSubs).Delete(wsKey(workspaceID, id))
}

func getSubscription(tx *kv.Tx, workspaceID, id string) (Subscription, bool, error) {
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
func GetSubscription(tx *kv.Tx, workspaceID, id string) (Subscription, bool, error) {
	return getSubscription(tx, workspaceID, id)
}

// PutSubscription rewrites an existing subscription's state inside tx (the webhooks package
// records failures); its event, owner and credential never change, so its index entries stand.
func PutSubscription(tx *kv.Tx, sub Subscription) error {
	return putJSON(tx.Bucket(bSubs), wsKey(sub.WorkspaceID, sub.ID), sub)
}

// Subscriptions lists subscriptions of one workspace, or of all when workspaceID is "".
func (s *Store) Subscriptions(workspaceID string) ([]Subscription, error) {
	out := []Subscription{}
	err := s.view(func(tx *kv.Tx) error {
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

// DisableSubscription stops a workspace's subscription without deleting it: its pending
// deliveries are cancelled and no new ones are queued until EnableSubscription. A subscription of
// another workspace is ErrNotFound; disabling a disabled one changes nothing.
func (s *Store) DisableSubscription(workspaceID, id string) (Subscription, error) {
	var sub Subscription
	err := s.update(func(tx *wtx) error {
		var ok bool
		var err error
		sub, ok, err = getSubscription(tx.Tx, workspaceID, id)
		if err != nil {
			return err
		}
		if !ok {
			return tx.refuse(errorf(ErrNotFound, "subscription not found"))
		}
		if !sub.Active {
			return nil
		}
		now := s.Now()
		sub.Active, sub.DisabledAt = false, &now
		if err := s.cancelPending(tx.Tx, sub.ID, "", "subscription disabled by an admin"); err != nil {
			return err
		}
		return PutSubscription(tx.Tx, sub)
	})
	return sub, err
}

// EnableSubscription re-activates a disabled subscription and clears its failure record;
// changed is false when it was already active. Deliveries cancelled while it was disabled stay
// cancelled (Redeliver brings one back). Enabling one beyond MaxActiveSubscriptions for its
// workspace and event is ErrConflict.
func (s *Store) EnableSubscription(id string) (sub Subscription, changed bool, err error) {
	err = s.update(func(tx *wtx) error {
		var ok bool
		sub, ok, err = findSubscription(tx.Tx, id)
		if err != nil {
			return err
		}
		if !ok {
			return errorf(ErrNotFound, "subscription not found")
		}
		changed = !sub.Active || sub.FailingSince != nil
		if !changed {
			return nil
		}
		if !sub.Active {
			n, err := activeSubscriptions(tx.Tx, sub.WorkspaceID, sub.EventName)
			if err != nil {
				return err
			}
			if n >= MaxActiveSubscriptions {
				return errorf(ErrConflict, "workspace %s already has %d active subscriptions to %s", sub.WorkspaceID, n, sub.EventName)
			}
		}
		sub.Active, sub.DisabledAt, sub.FailingSince = true, nil, nil
		return PutSubscription(tx.Tx, sub)
	})
	return sub, changed, err
}

// findSubscription finds a subscription by id alone (its key starts with the workspace id).
func findSubscription(tx *kv.Tx, id string) (Subscription, bool, error) {
	var sub Subscription
	if _, ok := ParseID(id); !ok {
		return sub, false, nil
	}
	want := idKey(id)
	c := tx.Bucket(bSubs).Cursor()
	for k, v := c.First(); k != nil; k, v = c.Next() {
		if len(k) == 32 && bytes.Equal(k[16:], want) {
			return sub, true, jsonUnmarshal(v, &sub)
		}
	}
	return sub, false, nil
}

// FindSubscription returns a subscription by id, whatever its workspace.
func (s *Store) FindSubscription(id string) (Subscription, error) {
	var sub Subscription
	err := s.view(func(tx *kv.Tx) error {
		var ok bool
		var err error
		sub, ok, err = findSubscription(tx, id)
		if err == nil && !ok {
			err = errorf(ErrNotFound, "subscription not found")
		}
		return err
	})
	return sub, err
}

// SubscriptionDisableAfter is how long a subscription's deliveries may keep failing before it is
// disabled: an endpoint that is down for days stops receiving, and its admin re-enables it.
const SubscriptionDisableAfter = 5 * 24 * time.Hour
