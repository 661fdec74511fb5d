package store

import "switchboard/store/kv"

// indexConversationActivity is the migration that builds bConvActivity for files written before
// it existed.
func indexConversationActivity(_ *Store, tx *kv.Tx) error {
	b, err := tx.CreateBucketIfNotExists(bConvActivity)
	if err != nil {
		return err
	}
	return tx.Bucket(bConversations).ForEach(func(_, v []byte) error {
		var c Conversation
		if err := jsonUnmarshal(v, &c); err != nil {
			return err
		}
		return b.Put(activityKey(&c), nil)
	})
}
