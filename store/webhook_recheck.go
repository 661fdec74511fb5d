package store

import "switchboard/store/kv"

// RecheckDelivery is the check made right before each attempt of a claimed delivery: a claim
// can be seconds old when its turn comes, and meanwhile a 410, an unsubscribe, a revoked grant
// or a removed member may have deleted the subscription (which cancels its pending deliveries),
// or it may have been disabled. It returns the subscription as it is now (its URL and secret are
// the current ones) and "" when the delivery may be sent; otherwise the reason it may not, and
// pending reports whether the delivery is still pending (the caller then cancels it). One short
// read transaction.
func (s *Store) RecheckDelivery(deliveryID string) (sub Subscription, stale string, pending bool, err error) {
	err = s.view(func(tx *kv.Tx) error {
		var d Delivery
		ok, err := getJSON(tx.Bucket(bDeliveries), idKey(deliveryID), &d)
		if err != nil {
			return err
		}
		if !ok {
			stale = "delivery record missing"
			return nil
		}
		if d.Status != DeliveryPending {
			stale = "delivery " + d.Status
			return nil
		}
		pending = true
		var subOK bool
		if sub, subOK, err = getSubscription(tx, d.WorkspaceID, d.SubscriptionID); err != nil {
			return err
		}
		switch {
		case !subOK:
			stale = "subscription deleted"
		case !sub.Active:
			stale = "subscription disabled"
		}
		return nil
	})
	return sub, stale, pending, err
}
