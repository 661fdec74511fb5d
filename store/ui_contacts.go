package store

import (
	"sort"
	"time"

	bolt "go.etcd.io/bbolt"
)

// ContactConversations lists the workspace's 1:1 conversations with phone (one per number of
// the workspace that texted it), newest activity first. The admin UI's contact page links them.
func (s *Store) ContactConversations(workspaceID, phone string) ([]Conversation, error) {
	out := []Conversation{}
	err := s.db.View(func(tx *bolt.Tx) error {
		if _, ok := ParseID(workspaceID); !ok {
			return nil
		}
		for _, id := range idxIDs(tx.Bucket(bConvKey), workspaceID, convAddrTerm(phone)) {
			var c Conversation
			ok, err := getJSON(tx.Bucket(bConversations), wsKey(workspaceID, id), &c)
			if err != nil {
				return err
			}
			if ok {
				out = append(out, c)
			}
		}
		return nil
	})
	sort.SliceStable(out, func(i, j int) bool { return activityOf(out[i]).After(activityOf(out[j])) })
	return out, err
}

func activityOf(c Conversation) time.Time {
	if c.LastMessageTime != nil {
		return *c.LastMessageTime
	}
	return c.CreatedAt
}
