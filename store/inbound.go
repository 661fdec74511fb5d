package store

import (
	"strings"

	bolt "go.etcd.io/bbolt"
)

// InboundMessage is a text a contact sent to one of the workspace's numbers, as the carrier
// parsed it. To is the workspace's number; From the contact's address.
type InboundMessage struct {
	From         string
	To           string
	Text         string
	Media        []string
	Provider     string // sandbox, twilio
	ProviderID   string // the carrier's id of the message
	MultipartID  string // shared by the parts of one long message
	MultipartNum int
	Segments     int
}

// RecordInboundMessage stores an inbound message (status received) in the 1:1 conversation of
// To and From, creating the contact (source inbound) and the conversation when needed and
// reopening the conversation, and emits message.received — all in one transaction. To must be an
// active number of the workspace (the carrier routes with NumberByPhone); From must be E.164.
// Keywords (STOP, START, HELP) are the carrier's to act on; this only records the message.
func (s *Store) RecordInboundMessage(workspaceID string, in InboundMessage) (Message, error) {
	in.From, in.To = strings.TrimSpace(in.From), strings.TrimSpace(in.To)
	if !ValidE164(in.From) {
		return Message{}, ValidationError{{"from", E164Message}}
	}
	var m Message
	err := s.update(func(tx *bolt.Tx, fx *effects) error {
		if _, err := getWorkspace(tx, workspaceID); err != nil {
			return err
		}
		n, ok, err := activeNumber(tx, workspaceID, in.To)
		if err != nil {
			return err
		}
		if !ok {
			return errorf(ErrNotFound, "number %s is not an active number of this workspace", in.To)
		}
		// The contact first, so that a new one is recorded as inbound (conversationFor would
		// make it an API contact).
		c, err := s.ensureContact(tx, fx, workspaceID, in.From, SourceInbound)
		if err != nil {
			return err
		}
		conv, _, err := s.conversationFor(tx, fx, workspaceID, n, []string{in.From}, nil)
		if err != nil {
			return err
		}
		now := s.Now()
		m = Message{ID: s.NewID(), WorkspaceID: workspaceID, ConversationID: conv.ID, CommunicationType: CommSMS,
			From: in.From, To: n.Phone, Group: []string{}, Text: in.Text, Media: orEmpty(in.Media),
			MultipartID: in.MultipartID, MultipartNum: in.MultipartNum, Segments: in.Segments,
			Provider: in.Provider, ProviderID: in.ProviderID, Status: MessageReceived, CreatedAt: now, UpdatedAt: now}
		if err := putMessage(tx, &m); err != nil {
			return err
		}
		if err := touchConversation(tx, &conv, now, true); err != nil {
			return err
		}
		// The contact's last inbound time is not part of its search document or its webhook
		// payload, so this is a plain rewrite with no contact.updated event.
		old := c
		c.LastInboundMessageTime = &now
		if err := s.putContact(tx, &c, &old); err != nil {
			return err
		}
		return s.emit(tx, fx, workspaceID, EventMessageReceived, messagePayload(&m))
	})
	return m, err
}

// RecordInboundCall emits call.received for a call from From to the workspace's number To.
// Calls are not stored beyond their event (Switchboard does not handle voice); the caller is not
// made a contact.
func (s *Store) RecordInboundCall(workspaceID, from, to string) (CallPayload, error) {
	from, to = strings.TrimSpace(from), strings.TrimSpace(to)
	var p CallPayload
	err := s.update(func(tx *bolt.Tx, fx *effects) error {
		if _, err := getWorkspace(tx, workspaceID); err != nil {
			return err
		}
		n, ok, err := activeNumber(tx, workspaceID, to)
		if err != nil {
			return err
		}
		if !ok {
			return errorf(ErrNotFound, "number %s is not an active number of this workspace", to)
		}
		p = CallPayload{CreatedAt: FormatTime(s.Now()), From: from, To: n.Phone, WorkspaceID: workspaceID}
		return s.emit(tx, fx, workspaceID, EventCallReceived, p)
	})
	return p, err
}
