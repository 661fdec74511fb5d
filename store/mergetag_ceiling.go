package store

import (
	"time"
	"unicode/utf8"
)

// MaxFilledText is the most code points a text may come to once its merge tags are filled in:
// a text of at most 1,200 characters could otherwise grow, through long property values, into
// hundreds of segments that one member could broadcast.
const MaxFilledText = 1600

// filledTooLong is the message of a text over MaxFilledText once filled in.
const filledTooLong = "is longer than 1600 characters once merge tags are filled in"

func tooLongFilled(text string) bool { return utf8.RuneCountInString(text) > MaxFilledText }

// failCopy records a broadcast copy that cannot go (its text too long once filled in) as a
// failed message with its reason, and counts it in the broadcast's totalFailed, in the caller's
// transaction.
func (s *Store) failCopy(tx *wtx, conv *Conversation, convCreated bool, now time.Time, in SendInput, b *Broadcast, reason string) error {
	m := Message{ID: s.NewID(), WorkspaceID: conv.WorkspaceID, ConversationID: conv.ID, BroadcastID: b.ID,
		CommunicationType: CommSMS, From: conv.From, Text: in.Text, Media: in.Media, Segments: Segments(in.Text),
		Outbound: true, Priority: PriorityLow, Status: MessageFailed, ProviderErr: reason, AuthorID: in.AuthorID,
		NumberID: conv.OutboundChannelID, CreatedAt: now, UpdatedAt: now}
	if !conv.IsGroup() {
		m.To = conv.Addresses[0]
	}
	if err := putMessage(tx, &m); err != nil {
		return err
	}
	if err := s.emit(tx, m.WorkspaceID, EventMessageFailed, messagePayload(&m)); err != nil {
		return err
	}
	b.TotalFailed++
	if !convCreated {
		return touchConversation(tx.Tx, conv, now, false)
	}
	return nil
}
