package store

import (
	"slices"
	"strings"
	"time"

	bolt "go.etcd.io/bbolt"
)

// joinAddresses is a conversation's inboundChannelAddresses: sorted, de-duplicated, joined with -.
func joinAddresses(addrs []string) string {
	return strings.Join(NormalizeGroup(addrs), "-")
}

// NormalizeGroup sorts and de-duplicates addresses.
func NormalizeGroup(addrs []string) []string {
	out := slices.Clone(addrs)
	slices.Sort(out)
	return slices.Compact(out)
}

// Conversation index terms: "k" from " " addresses finds the conversation of a number and an
// address set; "a" addresses finds every conversation with that address set.
func convKeyTerm(from, addrs string) string { return "k" + from + " " + addrs }
func convAddrTerm(addrs string) string      { return "a" + addrs }

// CreateConversation returns the SMS conversation between from and to, creating it (and an
// unnamed contact for an unknown to) when there is none. Concurrent identical calls yield one.
func (s *Store) CreateConversation(workspaceID, from, to string) (Conversation, bool, error) {
	// The common case, an existing pair, is a read-only transaction.
	var conv Conversation
	var found bool
	err := s.db.View(func(tx *bolt.Tx) error {
		if _, ok, err := activeNumber(tx, workspaceID, from); err != nil || !ok {
			if err == nil {
				err = fromNumberError(from)
			}
			return err
		}
		var err error
		conv, found, err = findConversation(tx, workspaceID, from, to)
		return err
	})
	if err != nil || found {
		return conv, false, err
	}
	var created bool
	err = s.update(func(tx *bolt.Tx, fx *effects) error {
		n, ok, err := activeNumber(tx, workspaceID, from)
		if err != nil {
			return err
		}
		if !ok {
			return fromNumberError(from)
		}
		conv, created, err = s.conversationFor(tx, fx, workspaceID, n, []string{to}, nil)
		return err
	})
	return conv, created, err
}

// LookupConversation is create-conversation's read path: in one read transaction it checks the
// workspace (ErrNotFound), userID's membership (ErrForbidden) and that from is an active number
// of the workspace (a validation error on from), then returns the id of the conversation of
// from and to, or "" when there is none yet (CreateConversation makes it). It decodes no
// conversation record: an existing pair is answered from the index alone.
func (s *Store) LookupConversation(userID, workspaceID, from, to string) (string, error) {
	var id string
	err := s.db.View(func(tx *bolt.Tx) error {
		if err := authorize(tx, workspaceID, userID); err != nil {
			return err
		}
		if ok, err := isActiveNumber(tx, workspaceID, from); err != nil || !ok {
			if err == nil {
				err = fromNumberError(from)
			}
			return err
		}
		id = idxFirst(tx.Bucket(bConvKey), workspaceID, convKeyTerm(from, to))
		return nil
	})
	return id, err
}

func findConversation(tx *bolt.Tx, workspaceID, from, addrs string) (Conversation, bool, error) {
	var c Conversation
	id := idxFirst(tx.Bucket(bConvKey), workspaceID, convKeyTerm(from, addrs))
	if id == "" {
		return c, false, nil
	}
	ok, err := getJSON(tx.Bucket(bConversations), wsKey(workspaceID, id), &c)
	return c, ok, err
}

// conversationFor finds or creates the conversation of number n with the (normalized) address
// set. A conversation created for a message gets that message's time as its last activity, so
// that it is written once.
func (s *Store) conversationFor(tx *bolt.Tx, fx *effects, workspaceID string, n PhoneNumber, addrs []string, activity *time.Time) (Conversation, bool, error) {
	addrs = NormalizeGroup(addrs)
	key := strings.Join(addrs, "-")
	if c, ok, err := findConversation(tx, workspaceID, n.Phone, key); ok || err != nil {
		return c, false, err
	}
	for _, a := range addrs {
		// Only existence matters here: no need to decode the contact record.
		if contactIDByPhone(tx, workspaceID, a) != "" {
			continue
		}
		if _, err := s.insertContact(tx, fx, workspaceID, ContactInput{Phone: a, Source: SourceAPI}); err != nil {
			return Conversation{}, false, err
		}
	}
	now := s.Now()
	c := Conversation{ID: s.NewID(), WorkspaceID: workspaceID, TenantID: s.tenantID, CommunicationType: CommSMS,
		Status: ConversationOpen, AssignedUserIDs: []string{}, Labels: []string{}, From: n.Phone,
		InboundChannelAddresses: key, Addresses: addrs, OutboundChannelID: n.ID, LastMessageTime: activity,
		CreatedAt: now, UpdatedAt: now}
	idx := tx.Bucket(bConvKey)
	if err := idx.Put(idxKey(workspaceID, convKeyTerm(n.Phone, key), c.ID), nil); err != nil {
		return c, false, err
	}
	if err := idx.Put(idxKey(workspaceID, convAddrTerm(key), c.ID), nil); err != nil {
		return c, false, err
	}
	if err := putActivity(tx, &c); err != nil {
		return c, false, err
	}
	return c, true, putJSON(tx.Bucket(bConversations), wsKey(workspaceID, c.ID), c)
}

// touchConversation records activity (moving the conversation in the inbox's activity index);
// an inbound message reopens the conversation.
func touchConversation(tx *bolt.Tx, c *Conversation, at time.Time, inbound bool) error {
	if err := deleteActivity(tx, c); err != nil {
		return err
	}
	c.LastMessageTime = &at
	if err := putActivity(tx, c); err != nil {
		return err
	}
	c.UpdatedAt = at
	if inbound {
		// The contact's text reopens a closed or snoozed conversation (its snooze time goes).
		if err := setStatus(tx, c, ConversationOpen, nil); err != nil {
			return err
		}
	}
	return putJSON(tx.Bucket(bConversations), wsKey(c.WorkspaceID, c.ID), c)
}

// latestConversationWith returns the id of the workspace's 1:1 conversation with phone that
// had the latest activity, or "".
func latestConversationWith(tx *bolt.Tx, workspaceID, phone string) (string, error) {
	best, bestAt := "", time.Time{}
	for _, id := range idxIDs(tx.Bucket(bConvKey), workspaceID, convAddrTerm(phone)) {
		var c Conversation
		ok, err := getJSON(tx.Bucket(bConversations), wsKey(workspaceID, id), &c)
		if err != nil {
			return "", err
		}
		if !ok {
			continue
		}
		at := c.CreatedAt
		if c.LastMessageTime != nil {
			at = *c.LastMessageTime
		}
		if best == "" || !at.Before(bestAt) {
			best, bestAt = c.ID, at
		}
	}
	return best, nil
}

// Conversation returns a conversation by id.
func (s *Store) Conversation(workspaceID, id string) (Conversation, error) {
	var c Conversation
	err := s.db.View(func(tx *bolt.Tx) error {
		ok, err := getJSON(tx.Bucket(bConversations), wsKey(workspaceID, id), &c)
		if err == nil && !ok {
			err = errorf(ErrNotFound, "conversation not found")
		}
		return err
	})
	return c, err
}

// CountConversations counts a workspace's conversations.
func (s *Store) CountConversations(workspaceID string) (int, error) {
	n := 0
	err := s.db.View(func(tx *bolt.Tx) error {
		if _, ok := ParseID(workspaceID); !ok {
			return nil
		}
		return forEachPrefix(tx.Bucket(bConversations), idKey(workspaceID), func(_, _ []byte) error { n++; return nil })
	})
	return n, err
}
