package store

import (
	"bytes"
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

// GroupMemberIDsFirst lists at most limit contact ids of a group, in id order: a page of a
// group that may hold 100,000 members without reading them all.
func (s *Store) GroupMemberIDsFirst(workspaceID, groupID string, limit int) ([]string, error) {
	ids := []string{}
	err := s.db.View(func(tx *bolt.Tx) error {
		if _, err := getGroup(tx, workspaceID, groupID); err != nil {
			return err
		}
		p := append(idKey(workspaceID), idKey(groupID)...)
		c := tx.Bucket(bGroupMembers).Cursor()
		for k, _ := c.Seek(p); k != nil && bytes.HasPrefix(k, p) && len(ids) < limit; k, _ = c.Next() {
			ids = append(ids, idFromKey(k))
		}
		return nil
	})
	return ids, err
}
