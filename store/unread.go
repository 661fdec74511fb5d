package store

import (
	"bytes"
	"encoding/binary"
	"encoding/hex"
	"errors"
	"slices"
	"strings"
	"time"

	"switchboard/store/kv"
)

// Unread is kept per user and conversation: a conversation is unread for a member when an
// inbound message, or a comment that mentions them, arrived after they last read it. The set of
// unread conversations (bUnread: ws|user|conversation) changes in the transaction of the message
// or comment, and when the user reads the thread or marks it unread; bUnreadCount keeps its size
// so the header's count is one read. A member gets unread marks from the moment they are a
// member; a superuser who is not a member has none.

func unreadKey(ws, user, conv string) []byte {
	k := make([]byte, 0, 48)
	k = append(k, idKey(ws)...)
	k = append(k, idKey(user)...)
	return append(k, idKey(conv)...)
}

// setUnread adds or removes c from user's unread set; changed is false when it already was so.
func setUnread(tx *kv.Tx, ws, user, conv string, unread bool) (bool, error) {
	b, k := tx.Bucket(bUnread), unreadKey(ws, user, conv)
	if hasKey(b, k) == unread {
		return false, nil
	}
	var err error
	delta := int64(1)
	if unread {
		err = b.Put(k, nil)
	} else {
		err = b.Delete(k)
		delta = -1
	}
	if err != nil {
		return false, err
	}
	counts := tx.Bucket(bUnreadCount)
	ck := k[:32]
	n := int64(decodeUint(counts.Get(ck))) + delta
	if n <= 0 {
		return true, counts.Delete(ck)
	}
	return true, counts.Put(ck, encodeUint(uint64(n)))
}

func mentionPrefix(ws, user string) []byte {
	k := make([]byte, 0, 56)
	k = append(k, idKey(ws)...)
	return append(k, idKey(user)...)
}

// putMention moves conv to the top of user's mentions (bMentions, newest first).
func putMention(tx *kv.Tx, ws, user, conv string, at time.Time) error {
	last, idx := tx.Bucket(bMentionLast), tx.Bucket(bMentions)
	lk := unreadKey(ws, user, conv)
	p := mentionPrefix(ws, user)
	if old := last.Get(lk); len(old) == 8 {
		if err := idx.Delete(append(append(slices.Clone(p), old...), idKey(conv)...)); err != nil {
			return err
		}
	}
	t := binary.BigEndian.AppendUint64(nil, uint64(at.UnixNano()))
	if err := last.Put(lk, t); err != nil {
		return err
	}
	return idx.Put(append(append(p, t...), idKey(conv)...), nil)
}

// MarkRead records that userID read the conversation: it is no longer unread for them. It writes
// only when the conversation was unread, so opening a read thread costs no write.
func (s *Store) MarkRead(workspaceID, userID, conversationID string) error {
	var unread bool
	if err := s.view(func(tx *kv.Tx) error {
		unread = hasKey(tx.Bucket(bUnread), unreadKey(workspaceID, userID, conversationID))
		return nil
	}); err != nil || !unread {
		return err
	}
	return s.setRead(workspaceID, userID, conversationID, false)
}

// MarkUnread makes the conversation unread for userID again ("Mark as unread").
func (s *Store) MarkUnread(workspaceID, userID, conversationID string) error {
	return s.setRead(workspaceID, userID, conversationID, true)
}

func (s *Store) setRead(ws, user, conv string, unread bool) error {
	return s.update(func(tx *wtx) error {
		var c Conversation
		ok, err := getJSON(tx.Bucket(bConversations), wsKeyChecked(ws, conv), &c)
		if err != nil {
			return err
		}
		if !ok {
			return tx.refuse(errorf(ErrNotFound, "conversation not found"))
		}
		changed, err := setUnread(tx.Tx, ws, user, conv, unread)
		if err != nil || !changed {
			return err
		}
		// The user's other tabs update their counts.
		return s.live(tx, ws, LiveConversation, conv, user, map[string]any{"change": "unread", "unread": unread, "status": c.Status})
	})
}

// UnreadCount is how many of the workspace's conversations are unread for userID.
func (s *Store) UnreadCount(workspaceID, userID string) (int, error) {
	var n uint64
	err := s.view(func(tx *kv.Tx) error {
		n = decodeUint(tx.Bucket(bUnreadCount).Get(unreadKey(workspaceID, userID, "")[:32]))
		return nil
	})
	return int(n), err
}

// UnreadOf reports which of conversationIDs are unread for userID.
func (s *Store) UnreadOf(workspaceID, userID string, conversationIDs []string) (map[string]bool, error) {
	out := map[string]bool{}
	err := s.view(func(tx *kv.Tx) error {
		b := tx.Bucket(bUnread)
		for _, id := range conversationIDs {
			if hasKey(b, unreadKey(workspaceID, userID, id)) {
				out[id] = true
			}
		}
		return nil
	})
	return out, err
}

// maxUnreadList bounds how many unread conversations the unread filter sorts.
const maxUnreadList = 10_000

// UnreadInbox is the inbox filtered to the conversations unread for userID (and f's other
// filters), newest activity first, with the cursor of the next page ("" at the end).
func (s *Store) UnreadInbox(workspaceID, userID string, f InboxFilter) ([]InboxItem, string, error) {
	return s.setInbox(workspaceID, f, func(tx *kv.Tx) []inboxRef {
		var refs []inboxRef
		p := mentionPrefix(workspaceID, userID)
		c := tx.Bucket(bUnread).Cursor()
		convs := tx.Bucket(bConversations)
		for k, _ := c.Seek(p); k != nil && bytes.HasPrefix(k, p) && len(refs) < maxUnreadList; k, _ = c.Next() {
			var cv Conversation
			if ok, err := getJSON(convs, wsKey(workspaceID, idFromKey(k)), &cv); err != nil || !ok {
				continue
			}
			refs = append(refs, inboxRef{c: cv, order: activityKey(&cv)[16:]})
		}
		return refs
	})
}

// MentionInbox is the inbox filtered to the conversations whose comments mention userID,
// newest mention first.
func (s *Store) MentionInbox(workspaceID, userID string, f InboxFilter) ([]InboxItem, string, error) {
	return s.setInbox(workspaceID, f, func(tx *kv.Tx) []inboxRef {
		var refs []inboxRef
		p := mentionPrefix(workspaceID, userID)
		c := tx.Bucket(bMentions).Cursor()
		convs := tx.Bucket(bConversations)
		for k, _ := c.Seek(p); k != nil && bytes.HasPrefix(k, p) && len(refs) < maxUnreadList; k, _ = c.Next() {
			if len(k) != len(p)+24 {
				continue
			}
			var cv Conversation
			if ok, err := getJSON(convs, wsKey(workspaceID, idFromKey(k)), &cv); err != nil || !ok {
				continue
			}
			refs = append(refs, inboxRef{c: cv, order: bytes.Clone(k[len(p):])})
		}
		return refs
	})
}

type inboxRef struct {
	c     Conversation
	order []byte // time(8) | id(16): the list is in descending order of it
}

// setInbox pages a set of conversations listed by collect, in descending order, applying f.
func (s *Store) setInbox(workspaceID string, f InboxFilter, collect func(tx *kv.Tx) []inboxRef) ([]InboxItem, string, error) {
	if f.Limit <= 0 {
		f.Limit = 50
	}
	f.Limit = min(f.Limit, 200)
	before, hasBefore := decodeCursor(f.Before)
	out := []InboxItem{}
	next := ""
	err := s.view(func(tx *kv.Tx) error {
		if _, ok := ParseID(workspaceID); !ok {
			return nil
		}
		if err := s.see(tx, workspaceID, &f); err != nil {
			return err
		}
		refs := collect(tx)
		slices.SortFunc(refs, func(a, b inboxRef) int { return bytes.Compare(b.order, a.order) })
		for _, r := range refs {
			if hasBefore && bytes.Compare(r.order, before) >= 0 {
				continue
			}
			if !f.keeps(&r.c) {
				continue
			}
			if len(out) == f.Limit {
				next = out[len(out)-1].Cursor
				return nil
			}
			item, err := inboxItem(tx, workspaceID, r.c)
			if err != nil {
				return err
			}
			item.Cursor = hex.EncodeToString(r.order)
			out = append(out, item)
		}
		return nil
	})
	return out, next, err
}

// inboxItem builds an inbox row of c: its contact's name and newest message.
func inboxItem(tx *kv.Tx, workspaceID string, c Conversation) (InboxItem, error) {
	item := InboxItem{Conversation: c}
	if !c.IsGroup() && len(c.Addresses) == 1 {
		if id := contactIDByPhone(tx, workspaceID, c.Addresses[0]); id != "" {
			if ct, err := getContact(tx, workspaceID, id); err == nil {
				item.ContactName = strings.TrimSpace(ct.FirstName + " " + ct.LastName)
			} else if !errors.Is(err, ErrNotFound) {
				return item, err
			}
		}
	}
	item.Last = lastMessageText(tx, workspaceID, c.ID)
	return item, nil
}

// forgetConversation removes conv from every user's unread set and mentions, as erasing it
// must: an unread mark of a conversation that no longer exists would be counted for ever. It
// walks the workspace's unread and mention marks (a few per user), not its conversations.
func forgetConversation(tx *kv.Tx, ws, conv string) error {
	suffix := idKey(conv)
	var users [][]byte
	c := tx.Bucket(bUnread).Cursor()
	p := idKey(ws)
	for k, _ := c.Seek(p); k != nil && bytes.HasPrefix(k, p); k, _ = c.Next() {
		if len(k) == 48 && bytes.Equal(k[32:], suffix) {
			users = append(users, slices.Clone(k[16:32]))
		}
	}
	for _, u := range users {
		if _, err := setUnread(tx, ws, idFromKey(u), conv, false); err != nil {
			return err
		}
	}
	last, idx := tx.Bucket(bMentionLast), tx.Bucket(bMentions)
	var doomed [][]byte
	lc := last.Cursor()
	for k, v := lc.Seek(p); k != nil && bytes.HasPrefix(k, p); k, v = lc.Next() {
		if len(k) == 48 && bytes.Equal(k[32:], suffix) && len(v) == 8 {
			doomed = append(doomed, slices.Clone(k))
			if err := idx.Delete(append(append(slices.Clone(k[:32]), v...), suffix...)); err != nil {
				return err
			}
		}
	}
	for _, k := range doomed {
		if err := last.Delete(k); err != nil {
			return err
		}
	}
	return nil
}
