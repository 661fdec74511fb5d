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
	// Only members who may see the conversation's number hear of it.
	all, notify, err := s.inboundRecipients(tx, c)
	if err != nil {
		return err
	}
	for _, r := range all {
		if _, err := setUnread(tx, c.WorkspaceID, r.user, c.ID, true); err != nil {
			return err
		}
	}
	for _, r := range notify {
		if err := s.notification(tx, fx, c, r.user, "inbound", title, body, r.prefs.Sound); err != nil {
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
	if cm.Rule != "" {
		author = "Rule '" + cm.Rule + "'"
	}
	may, err := s.hearers(tx, c)
	if err != nil {
		return err
	}
	for _, u := range cm.Mentions {
		if u == cm.UserID || (may != nil && !may(u)) {
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
		if err := s.mailNotification(tx, fx, c, u, author+" mentioned you",
			author+" mentioned you in the conversation with ", cm.Text); err != nil {
			return err
		}
	}
	return nil
}

// liveAssigned notifies each user newly assigned by someone else. The conversation events of
// a triage change are those of its activity entries (putEntry).
func (s *Store) liveAssigned(tx *bolt.Tx, fx *effects, c *Conversation, before []string, actor string) error {
	return s.liveAssignedBy(tx, fx, c, before, actor, userName(tx, actor))
}

// liveAssignedBy is liveAssigned with the words naming who assigned ("Ana Lima", "Rule
// 'New patients'", "Auto-assignment").
func (s *Store) liveAssignedBy(tx *bolt.Tx, fx *effects, c *Conversation, before []string, actor, who string) error {
	may, err := s.hearers(tx, c)
	if err != nil {
		return err
	}
	for _, u := range c.AssignedUserIDs {
		if u == actor || slices.Contains(before, u) || (may != nil && !may(u)) {
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
		if err := s.mailNotification(tx, fx, c, u, who+" assigned you a conversation",
			who+" assigned you the conversation with ", ""); err != nil {
			return err
		}
	}
	return nil
}

// ThreadAfter returns the thread's items (messages, comments and activity entries) made after
// the item afterID, oldest first, at most ThreadMax: what an open thread has not shown yet. Ids
// are ULIDs, so newer items sort after it; an empty or unknown afterID starts at the beginning.
// It walks forward from afterID, so it reads only the items it returns.
func (s *Store) ThreadAfter(workspaceID, conversationID, afterID string) ([]ThreadItem, error) {
	var out []ThreadItem
	err := s.db.View(func(tx *bolt.Tx) error {
		if _, ok := ParseID(workspaceID); !ok {
			return nil
		}
		var after []byte
		if id, ok := ParseID(afterID); ok {
			after = id[:]
		}
		walk := newThreadWalk(tx.Bucket(bConvMessages), workspaceID, conversationID, true, after)
		for len(out) < ThreadMax {
			kind, id := walk.peek()
			if id == nil {
				break
			}
			it, ok, err := loadThreadItem(tx, workspaceID, kind, id)
			if err != nil {
				return err
			}
			if ok {
				out = append(out, it)
			}
			walk.advance()
		}
		return nil
	})
	return out, err
}
