package store

import "switchboard/store/kv"

// SetConversationStatus rewrites a conversation's status, so that tests can check that an
// inbound message reopens a closed one (no store function closes conversations yet).
func SetConversationStatus(s *Store, workspaceID, id, status string) error {
	return rawUpdate(s.DB(), func(tx *kv.Tx) error {
		var c Conversation
		ok, err := getJSON(tx.Bucket(bConversations), wsKey(workspaceID, id), &c)
		if err != nil || !ok {
			return err
		}
		c.Status = status
		return putJSON(tx.Bucket(bConversations), wsKey(workspaceID, id), c)
	})
}

// QueueKeys counts the queue entries of one delivery, to check the one-entry-per-pending
// invariant.
func QueueKeys(s *Store, deliveryID string) int {
	n := 0
	_ = s.view(func(tx *kv.Tx) error {
		want := idKey(deliveryID)
		return tx.Bucket(bDeliveryQueue).ForEach(func(k, _ []byte) error {
			if len(k) == 24 && string(k[8:]) == string(want) {
				n++
			}
			return nil
		})
	})
	return n
}
