package store

// UnsubscribeAs deletes a subscription of the workspace on userID's behalf: a member may delete
// only the subscriptions they made, an admin of the workspace any of them (ErrForbidden
// otherwise). The subscription is looked up first, so an unknown id is ErrNotFound whoever asks.
func (s *Store) UnsubscribeAs(workspaceID, id, userID string) error {
	return s.update(func(tx *wtx) error {
		sub, ok, err := getSubscription(tx.Tx, workspaceID, id)
		if err != nil {
			return err
		}
		if !ok {
			return tx.refuse(errorf(ErrNotFound, "subscription not found"))
		}
		if sub.UserID != userID {
			var m Membership
			found, err := getJSON(tx.Bucket(bMemberships), wsKeyChecked(workspaceID, userID), &m)
			if err != nil {
				return err
			}
			if !found || m.Role != "admin" {
				return tx.refuse(errorf(ErrForbidden, "only a workspace admin may unsubscribe a webhook another user made"))
			}
		}
		if err := DeleteSubscription(tx.Tx, workspaceID, id); err != nil {
			return err
		}
		return s.cancelPending(tx.Tx, id, "", "unsubscribed")
	})
}
