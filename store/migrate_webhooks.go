package store

import "switchboard/store/kv"

// indexPendingDeliveries is a migration step: it builds the pending indexes and count of
// PutDelivery from the queue, for files written before they existed.
func indexPendingDeliveries(_ *Store, tx *kv.Tx) error {
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

// indexSubscriptionOwners is a migration step: subscriptions made before the owner index get
// their membership entry (they carry no credential), so removing the member ends them too. Those
// whose user had already left the workspace (RemoveMember used to leave them) are deleted, and
// their pending deliveries cancelled; it runs after indexPendingDeliveries for that.
func indexSubscriptionOwners(s *Store, tx *kv.Tx) error {
	var subs []Subscription
	if err := tx.Bucket(bSubs).ForEach(func(_, v []byte) error {
		var sub Subscription
		if err := jsonUnmarshal(v, &sub); err != nil {
			return err
		}
		subs = append(subs, sub)
		return nil
	}); err != nil {
		return err
	}
	for _, sub := range subs {
		if sub.UserID != "" && !isMember(tx, sub.WorkspaceID, sub.UserID) {
			if err := DeleteSubscription(tx, sub.WorkspaceID, sub.ID); err != nil {
				return err
			}
			if err := s.cancelPending(tx, sub.ID, "", "the user who made the subscription is no longer a member of the workspace"); err != nil {
				return err
			}
			continue
		}
		for _, k := range ownerKeys(sub) {
			if err := tx.Bucket(bSubOwner).Put(k, nil); err != nil {
				return err
			}
		}
	}
	return nil
}
