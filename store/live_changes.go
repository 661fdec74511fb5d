package store

import (
	"bytes"
	"slices"
	"strings"

	bolt "go.etcd.io/bbolt"
)

// The live events each kind of change records, in the change's transaction, and what an open
// thread reads when one arrives.

// members lists the user ids of a workspace's members.
func members(tx *bolt.Tx, ws string) []string {
	var ids []string
	p := idKey(ws)
	c := tx.Bucket(bMemberships).Cursor()
	for k, _ := c.Seek(p); k != nil && bytes.HasPrefix(k, p); k, _ = c.Next() {
		if len(k) == 32 {
			ids = append(ids, idFromKey(k))
		}
	}
	return ids
}

// liveInbound records what an inbound message means to the live inbox, in its transaction: the
// message event, the conversation unread for every member, and a notification for each member
// whose preferences ask for it.
func (s *Store) liveInbound(tx *bolt.Tx, fx *effects, c *Conversation, m *Message, contact Contact) error {
	if err := s.liveNewMessage(tx, fx, m); err != nil {
		return err
	}
	title := strings.TrimSpace(contact.FirstName + " " + contact.LastName)
	if title == "" {
		title = m.From
	}
	body := m.Text
	if body == "" && len(m.Media) > 0 {
		body = "[media]"
	}
	for _, u := range members(tx, c.WorkspaceID) {
		if _, err := setUnread(tx, c.WorkspaceID, u, c.ID, true); err != nil {
			return err
		}
		p, err := notificationPrefs(tx, u)
		if err != nil {
			return err
		}
		if !p.wantsInbound(c, u) {
			continue
		}
		if err := s.notification(tx, fx, c, u, "inbound", title, body, p.Sound); err != nil {
			return err
		}
	}
	return nil
}

// notification records a notification event for one user.
func (s *Store) notification(tx *bolt.Tx, fx *effects, c *Conversation, user, reason, title, body string, sound bool) error {
	if r := []rune(body); len(r) > 140 {
		body = string(r[:139]) + "…"
	}
	return s.live(tx, fx, c.WorkspaceID, LiveNotification, c.ID, user, map[string]any{
		"reason": reason, "title": title, "body": body, "sound": sound})
}

// userName is a user's name, else their e-mail, else "Someone".
func userName(tx *bolt.Tx, id string) string {
	if u, err := getUser(tx, id); err == nil {
		if u.Name != "" {
			return u.Name
		}
		if u.Email != "" {
			return u.Email
		}
	}
	return "Someone"
}

// liveComment records a new comment: the comment event, and for each mentioned member other
// than its author the conversation unread, in their mentions, and a notification.
func (s *Store) liveComment(tx *bolt.Tx, fx *effects, c *Conversation, cm *Comment) error {
	if err := s.live(tx, fx, c.WorkspaceID, LiveComment, c.ID, "", map[string]any{
		"commentId": cm.ID, "mentions": cm.Mentions}); err != nil {
		return err
	}
	author := userName(tx, cm.UserID)
	for _, u := range cm.Mentions {
		if u == cm.UserID {
			continue
		}
		if _, err := setUnread(tx, c.WorkspaceID, u, c.ID, true); err != nil {
			return err
		}
		if err := putMention(tx, c.WorkspaceID, u, c.ID, cm.CreatedAt); err != nil {
			return err
		}
		p, err := notificationPrefs(tx, u)
		if err != nil {
			return err
		}
		if err := s.notification(tx, fx, c, u, "mention", author+" mentioned you", cm.Text, p.Sound); err != nil {
			return err
		}
	}
	return nil
}

// liveAssigned records a change of assignees: the conversation event and a notification to
// each user newly assigned by someone else.
func (s *Store) liveAssigned(tx *bolt.Tx, fx *effects, c *Conversation, before []string, actor string) error {
	if err := s.liveConversation(tx, fx, c, "assignment", ""); err != nil {
		return err
	}
	who := userName(tx, actor)
	for _, u := range c.AssignedUserIDs {
		if u == actor || slices.Contains(before, u) {
			continue
		}
		p, err := notificationPrefs(tx, u)
		if err != nil {
			return err
		}
		title := who + " assigned you a conversation"
		if err := s.notification(tx, fx, c, u, "assignment", title, strings.Join(c.Addresses, ", "), p.Sound); err != nil {
			return err
		}
	}
	return nil
}

// liveUpdated records the events of a conversation update: one conversation event per kind of
// change, and notifications for new assignees.
func (s *Store) liveUpdated(tx *bolt.Tx, fx *effects, c *Conversation, before Conversation, u ConversationUpdate) error {
	if u.Status != nil && before.Status != c.Status {
		if err := s.liveConversation(tx, fx, c, "status", ""); err != nil {
			return err
		}
	}
	if u.Labels != nil && !slices.Equal(before.Labels, c.Labels) {
		if err := s.liveConversation(tx, fx, c, "labels", ""); err != nil {
			return err
		}
	}
	if u.AssignedUserIDs != nil && !slices.Equal(before.AssignedUserIDs, c.AssignedUserIDs) {
		return s.liveAssigned(tx, fx, c, before.AssignedUserIDs, u.ActorID)
	}
	return nil
}

// ConversationItemsAfter returns the conversation's messages and comments made after the item
// afterID (ids are ULIDs, so newer items sort after it), oldest first, at most max of each: what
// an open thread has not shown yet. An empty or unknown afterID starts at the beginning.
func (s *Store) ConversationItemsAfter(workspaceID, conversationID, afterID string, max int) ([]Message, []Comment, error) {
	var msgs []Message
	var comments []Comment
	err := s.db.View(func(tx *bolt.Tx) error {
		idx := tx.Bucket(bConvMessages)
		scan := func(term string, fn func(id string) error) error {
			p := idxPrefix(workspaceID, term)
			c := idx.Cursor()
			k, _ := c.Seek(idxKey(workspaceID, term, afterID))
			n := 0
			for ; k != nil && bytes.HasPrefix(k, p) && n < max; k, _ = c.Next() {
				if len(k) != len(p)+16 || bytes.Equal(k[len(p):], idKey(afterID)) {
					continue
				}
				n++
				if err := fn(idFromKey(k)); err != nil {
					return err
				}
			}
			return nil
		}
		if err := scan(conversationID, func(id string) error {
			var m Message
			ok, err := getJSON(tx.Bucket(bMessages), wsKey(workspaceID, id), &m)
			if ok {
				msgs = append(msgs, m)
			}
			return err
		}); err != nil {
			return err
		}
		return scan("c"+conversationID, func(id string) error {
			var cm Comment
			ok, err := getJSON(tx.Bucket(bComments), wsKey(workspaceID, id), &cm)
			if ok {
				comments = append(comments, cm)
			}
			return err
		})
	})
	return msgs, comments, err
}
