package store

import "switchboard/store/kv"

// indexGroupMembers is the migration that indexes every group conversation under each of its
// addresses, for files written before a contact's history included its group conversations.
// Conversations are few next to messages: one transaction holds them all. Writing an entry that
// is there already changes nothing, so the step can run again safely.
func indexGroupMembers(_ *Store, tx *kv.Tx) error {
	idx := tx.Bucket(bConvKey)
	return tx.Bucket(bConversations).ForEach(func(_, v []byte) error {
		var c Conversation
		if err := jsonUnmarshal(v, &c); err != nil {
			return err
		}
		return putMemberTerms(idx, &c)
	})
}
