package store

import (
	"bytes"
	"slices"
	"strings"

	"switchboard/store/kv"
)

// The live events each kind of change records, in the change's transaction, and what an open
// thread reads when one arrives.

// members lists the user ids of a workspace's members.
func members(tx *kv.Tx, ws string) []string {
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
// message event, the conversation unread for every member who may see it, and the
// notifications (tell).
func (s *Store) liveInbound(tx *wtx, c *Conversation, m *Message, contact Contact) error {
	if err := s.liveNewMessage(tx, m); err != nil {
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
	// Only members who may see the conversation's number hear of it (hearers); tell asks the
	// same of everyone it notifies.
	may, err := s.hearers(tx.Tx, c)
	if err != nil {
		return err
	}
	for _, u := range members(tx.Tx, c.WorkspaceID) {
		if may != nil && !may(u) {
			continue
		}
		if _, err := setUnread(tx.Tx, c.WorkspaceID, u, c.ID, true); err != nil {
			return err
		}
	}
	return s.tell(tx, &notice{reason: reasonInbound, conv: c, title: title, body: body,
		text: m.Text, media: len(m.Media) > 0})
}

// notification records a notification event for one user.
func (s *Store) notification(tx *wtx, c *Conversation, user, reason, title, body string, sound bool) error {
	if r := []rune(body); len(r) > 140 {
		body = string(r[:139]) + "…"
	}
	return s.live(tx, c.WorkspaceID, LiveNotification, c.ID, user, map[string]any{
		"reason": reason, "title": title, "body": body, "sound": sound})
}

// userName is a user's name, else their e-mail, else "Someone".
func userName(tx *kv.Tx, id string) string {
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
// than its author who may see the conversation, the conversation unread, in their mentions,
// and a notification.
func (s *Store) liveComment(tx *wtx, c *Conversation, cm *Comment) error {
	if err := s.live(tx, c.WorkspaceID, LiveComment, c.ID, "", map[string]any{
		"commentId": cm.ID, "mentions": cm.Mentions}); err != nil {
		return err
	}
	may, err := s.hearers(tx.Tx, c)
	if err != nil {
		return err
	}
	for _, u := range cm.Mentions {
		if u == cm.UserID || (may != nil && !may(u)) {
			continue
		}
		if _, err := setUnread(tx.Tx, c.WorkspaceID, u, c.ID, true); err != nil {
			return err
		}
		if err := putMention(tx.Tx, c.WorkspaceID, u, c.ID, cm.CreatedAt); err != nil {
			return err
		}
	}
	author := userName(tx.Tx, cm.UserID)
	if cm.Rule != "" {
		author = "Rule '" + cm.Rule + "'"
	}
	return s.tell(tx, &notice{reason: reasonMention, conv: c, actor: cm.UserID, users: cm.Mentions,
		title: author + " mentioned you", body: cm.Text, text: cm.Text,
		mailTitle: author + " mentioned you", mailLead: author + " mentioned you in the conversation with "})
}

// liveAssigned notifies each user newly assigned by someone else. The conversation events of
// a triage change are those of its activity entries (putEntry).
func (s *Store) liveAssigned(tx *wtx, c *Conversation, before []string, actor string) error {
	return s.liveAssignedBy(tx, c, before, actor, userName(tx.Tx, actor))
}

// liveAssignedBy is liveAssigned with the words naming who assigned ("Ana Lima", "Rule
// 'New patients'", "Auto-assignment").
func (s *Store) liveAssignedBy(tx *wtx, c *Conversation, before []string, actor, who string) error {
	var added []string
	for _, u := range c.AssignedUserIDs {
		if !slices.Contains(before, u) {
			added = append(added, u)
		}
	}
	return s.tell(tx, &notice{reason: reasonAssignment, conv: c, actor: actor, users: added,
		title: who + " assigned you a conversation", body: strings.Join(c.Addresses, ", "),
		mailTitle: who + " assigned you a conversation", mailLead: who + " assigned you the conversation with "})
}

// ThreadAfter returns the thread's items (messages, comments and activity entries) made after
// the item afterID, oldest first, at most ThreadMax: what an open thread has not shown yet. Ids
// are ULIDs, so newer items sort after it; an empty or unknown afterID starts at the beginning.
// It walks forward from afterID, so it reads only the items it returns.
func (s *Store) ThreadAfter(workspaceID, conversationID, afterID string) ([]ThreadItem, error) {
	var out []ThreadItem
	err := s.view(func(tx *kv.Tx) error {
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
