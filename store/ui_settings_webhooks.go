package store

import bolt "go.etcd.io/bbolt"

// DisableSubscription stops a workspace's subscription without deleting it: its pending
// deliveries are cancelled and no new ones are queued until EnableSubscription. A subscription of
// another workspace is ErrNotFound; disabling a disabled one changes nothing.
func (s *Store) DisableSubscription(workspaceID, id string) (Subscription, error) {
	var sub Subscription
	err := s.update(func(tx *bolt.Tx, fx *effects) error {
		var ok bool
		var err error
		sub, ok, err = getSubscription(tx, workspaceID, id)
		if err != nil {
			return err
		}
		if !ok {
			return fx.refuse(errorf(ErrNotFound, "subscription not found"))
		}
		if !sub.Active {
			return nil
		}
		now := s.Now()
		sub.Active, sub.DisabledAt = false, &now
		if err := s.cancelPending(tx, sub.ID, "", "subscription disabled by an admin"); err != nil {
			return err
		}
		return PutSubscription(tx, sub)
	})
	return sub, err
}
