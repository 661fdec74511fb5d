package store

import (
	"strings"
	"time"

	bolt "go.etcd.io/bbolt"
)

// SendInput is an outbound text: To holds one address (1:1) or several (a group).
type SendInput struct {
	From     string
	To       []string
	Text     string
	Media    []string
	AuthorID string
	// CheckMember, when set, makes the send check the workspace (ErrNotFound) and AuthorID's
	// membership (ErrForbidden) in its own write transaction, instead of the caller spending a
	// read transaction on them first.
	CheckMember bool
}

// SendMessage stores an outbound message, queued for the carrier, in the conversation of
// From and To (created if needed). An opted-out recipient is ErrOptedOut and nothing is stored.
func (s *Store) SendMessage(workspaceID string, in SendInput) (Message, error) {
	var m Message
	err := s.update(func(tx *bolt.Tx, fx *effects) error {
		if in.CheckMember {
			if err := authorize(tx, workspaceID, in.AuthorID); err != nil {
				return err
			}
		}
		n, ok, err := activeNumber(tx, workspaceID, in.From)
		if err != nil {
			return err
		}
		if !ok {
			return fromNumberError(in.From)
		}
		to := NormalizeGroup(in.To)
		if len(to) == 0 {
			return ValidationError{{"to", "is required"}}
		}
		// A group send names every opted-out member.
		var optedOut []string
		for _, a := range to {
			out, err := s.isOptedOut(tx, workspaceID, a)
			if err != nil {
				return err
			}
			if out {
				optedOut = append(optedOut, a)
			}
		}
		switch len(optedOut) {
		case 0:
		case 1:
			return errorf(ErrOptedOut, "recipient %s has opted out", optedOut[0])
		default:
			return errorf(ErrOptedOut, "recipients %s have opted out", strings.Join(optedOut, ", "))
		}
		now := s.Now()
		conv, created, err := s.conversationFor(tx, fx, workspaceID, n, to, &now)
		if err != nil {
			return err
		}
		m, err = s.queueMessage(tx, fx, &conv, created, now, in, PriorityNormal, "")
		return err
	})
	return m, err
}

// queueMessage writes an outbound queued message in conv, its outbox entry and its event, and
// records the activity on conv (a conversation just created for it already carries it).
func (s *Store) queueMessage(tx *bolt.Tx, fx *effects, conv *Conversation, convCreated bool, now time.Time, in SendInput, priority, broadcastID string) (Message, error) {
	m := Message{ID: s.NewID(), WorkspaceID: conv.WorkspaceID, ConversationID: conv.ID, BroadcastID: broadcastID,
		CommunicationType: CommSMS, From: conv.From, Group: []string{}, Text: in.Text, Media: in.Media,
		Outbound: true, Billable: true, Priority: priority, Status: MessageQueued, AuthorID: in.AuthorID,
		CreatedAt: now, UpdatedAt: now}
	if m.Media == nil {
		m.Media = []string{}
	}
	if conv.IsGroup() {
		m.Group = conv.Addresses
	} else {
		m.To = conv.Addresses[0]
	}
	if err := putMessage(tx, &m); err != nil {
		return m, err
	}
	if err := tx.Bucket(bOutbox).Put(outboxKey(priority, m.ID), wsKey(m.WorkspaceID, m.ID)); err != nil {
		return m, err
	}
	fx.outbox = true
	if !convCreated {
		if err := touchConversation(tx, conv, now, false); err != nil {
			return m, err
		}
	}
	// Until a carrier hands messages over, queueing is when a message counts as sent.
	return m, s.emit(tx, fx, m.WorkspaceID, EventMessageSent, messagePayload(&m))
}

func putMessage(tx *bolt.Tx, m *Message) error {
	if err := putJSON(tx.Bucket(bMessages), wsKey(m.WorkspaceID, m.ID), m); err != nil {
		return err
	}
	return tx.Bucket(bConvMessages).Put(idxKey(m.WorkspaceID, m.ConversationID, m.ID), nil)
}

// outboxKey orders queued messages by priority (high, normal, low) then age (the ULID).
func outboxKey(priority, id string) []byte {
	p := byte(1)
	switch priority {
	case PriorityHigh:
		p = 0
	case PriorityLow:
		p = 2
	}
	return append([]byte{p}, idKey(id)...)
}

// Message returns a message by id.
func (s *Store) Message(workspaceID, id string) (Message, error) {
	var m Message
	err := s.db.View(func(tx *bolt.Tx) error {
		ok, err := getJSON(tx.Bucket(bMessages), wsKey(workspaceID, id), &m)
		if err == nil && !ok {
			err = errorf(ErrNotFound, "message not found")
		}
		return err
	})
	return m, err
}

// ConversationMessages lists a conversation's messages, oldest first.
func (s *Store) ConversationMessages(workspaceID, conversationID string) ([]Message, error) {
	out := []Message{}
	err := s.db.View(func(tx *bolt.Tx) error {
		for _, id := range idxIDs(tx.Bucket(bConvMessages), workspaceID, conversationID) {
			var m Message
			if ok, err := getJSON(tx.Bucket(bMessages), wsKey(workspaceID, id), &m); err != nil {
				return err
			} else if ok {
				out = append(out, m)
			}
		}
		return nil
	})
	return out, err
}

// OutboxEntry is a queued outbound message reference, in dispatch order.
type OutboxEntry struct {
	WorkspaceID string
	MessageID   string
	Priority    string
}

// Outbox lists up to limit queued messages in dispatch order: priority, then age.
func (s *Store) Outbox(limit int) ([]OutboxEntry, error) {
	var out []OutboxEntry
	err := s.db.View(func(tx *bolt.Tx) error {
		c := tx.Bucket(bOutbox).Cursor()
		for k, v := c.First(); k != nil && len(out) < limit; k, v = c.Next() {
			p := PriorityNormal
			switch k[0] {
			case 0:
				p = PriorityHigh
			case 2:
				p = PriorityLow
			}
			out = append(out, OutboxEntry{WorkspaceID: idFromKey(v[:16]), MessageID: idFromKey(v), Priority: p})
		}
		return nil
	})
	return out, err
}
