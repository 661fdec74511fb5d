package store

import (
	"time"
)

// Send later: a single send with a SendAt is stored `scheduled` and waits in the outbox's
// delayed queue (the one retries and quiet hours use) until its time. The thread index holds
// it under "s" + conversation id while it may still be cancelled: the contact's next text
// cancels every such message of the conversation ("the contact replied first"), as does the
// Cancel button. Entries of messages that went out meanwhile are dropped when next read.

// ReplyFirstError is the error of a message sent later that the contact's text cancelled.
const ReplyFirstError = "the contact replied first"

func sendLaterTerm(conversationID string) string { return "s" + conversationID }

// CheckSendAt validates a send-later time: in the future and at most one calendar year ahead;
// "" when it is good.
func CheckSendAt(at, now time.Time) string {
	switch {
	case !at.After(now):
		return "must be in the future"
	case at.After(LatestSendAt(now)):
		return "must be at most one year ahead"
	}
	return ""
}

// sendOrHold queues a single send, or with in.SendAt holds it scheduled until then.
func (s *Store) sendOrHold(tx *wtx, conv *Conversation, created bool, now time.Time, in SendInput) (Message, error) {
	if in.SendAt.IsZero() {
		return s.queueMessage(tx, conv, created, now, in, PriorityNormal, "")
	}
	m, err := s.storeMessage(tx, conv, created, now, in, PriorityNormal, "", in.SendAt)
	if err != nil {
		return m, err
	}
	return m, tx.Bucket(bConvMessages).Put(idxKey(conv.WorkspaceID, sendLaterTerm(conv.ID), m.ID), nil)
}

// cancelHeld cancels m, a message waiting for its SendAt: status cancelled with reason, its
// delayed queue entry removed.
func (s *Store) cancelHeld(tx *wtx, m *Message, reason string) error {
	if m.SendAt != nil {
		k := append(encodeUint(uint64(m.SendAt.UnixNano())), idKey(m.ID)...)
		if tx.Bucket(bOutboxDelayed).Get(k) != nil {
			if err := tx.Bucket(bOutboxDelayed).Delete(k); err != nil {
				return err
			}
			tx.depth--
		}
	}
	m.Status, m.ProviderErr, m.UpdatedAt = MessageCancelled, reason, s.Now()
	// A cancelled message counts nowhere in the reports: its conversation is counted again.
	if err := tx.reportRecount(m.WorkspaceID, m.ConversationID, func() error {
		return putJSON(tx.Bucket(bMessages), wsKey(m.WorkspaceID, m.ID), m)
	}); err != nil {
		return err
	}
	// An open thread shows the message cancelled in place.
	if err := s.liveMessage(tx, m); err != nil {
		return err
	}
	return tx.Bucket(bConvMessages).Delete(idxKey(m.WorkspaceID, sendLaterTerm(m.ConversationID), m.ID))
}

// cancelSendLater cancels every message of the conversation still waiting to be sent later.
func (s *Store) cancelSendLater(tx *wtx, workspaceID, conversationID, reason string) error {
	for _, id := range idxIDs(tx.Bucket(bConvMessages), workspaceID, sendLaterTerm(conversationID)) {
		var m Message
		ok, err := getJSON(tx.Bucket(bMessages), wsKey(workspaceID, id), &m)
		if err != nil {
			return err
		}
		if ok && m.Status == MessageScheduled {
			if err := s.cancelHeld(tx, &m, reason); err != nil {
				return err
			}
			continue
		}
		// Gone out (or deleted) meanwhile: only the entry is left to drop.
		if err := tx.Bucket(bConvMessages).Delete(idxKey(workspaceID, sendLaterTerm(conversationID), id)); err != nil {
			return err
		}
	}
	return nil
}

// CancelScheduledMessage cancels a message sent later that has not gone yet (the thread's
// Cancel); one that went or is not such a message is ErrConflict, an unknown one ErrNotFound.
func (s *Store) CancelScheduledMessage(workspaceID, conversationID, messageID string) (Message, error) {
	var m Message
	err := s.update(func(tx *wtx) error {
		m = Message{}
		ok, err := getJSON(tx.Bucket(bMessages), wsKeyChecked(workspaceID, messageID), &m)
		if err != nil {
			return err
		}
		if !ok || m.ConversationID != conversationID {
			return tx.refuse(errorf(ErrNotFound, "message not found"))
		}
		if m.Status != MessageScheduled || m.SendAt == nil {
			return tx.refuse(errorf(ErrConflict, "the message is %s: only a message waiting to be sent later can be cancelled", m.Status))
		}
		return s.cancelHeld(tx, &m, "")
	})
	return m, err
}
