package store

import (
	"bytes"
	"strings"
	"time"

	"switchboard/store/internal/index"
	"switchboard/store/kv"
)

// Message is one SMS/MMS, inbound or outbound. Stored as JSON without its empty fields (results
// and payloads are built from it with every field present).
type Message struct {
	ID                string     `json:"id"`
	WorkspaceID       string     `json:"workspaceId"`
	ConversationID    string     `json:"conversationId"`
	BroadcastID       string     `json:"broadcastId,omitempty"`
	CommunicationType string     `json:"communicationType,omitempty"`
	From              string     `json:"from"`
	To                string     `json:"to,omitempty"`
	Group             []string   `json:"group,omitempty"`
	Text              string     `json:"text,omitempty"`
	Media             []string   `json:"media,omitempty"`
	MediaError        string     `json:"mediaError,omitempty"` // inbound media that could not be kept, and why
	MultipartID       string     `json:"multipartId,omitempty"`
	MultipartNum      int        `json:"multipartNum,omitempty"`
	Segments          int        `json:"segments,omitempty"`
	Outbound          bool       `json:"outbound,omitempty"`
	Billable          bool       `json:"billable,omitempty"`
	Priority          string     `json:"priority,omitempty"`
	Provider          string     `json:"provider,omitempty"`
	ProviderErr       string     `json:"providerErr,omitempty"`
	ProviderID        string     `json:"providerId,omitempty"`
	ProviderRef       string     `json:"providerRef,omitempty"`
	Status            string     `json:"status"`
	Attempts          int        `json:"attempts,omitempty"`
	AuthorID          string     `json:"authorId,omitempty"`
	NumberID          string     `json:"numberId,omitempty"` // the outbound channel that sends it
	SentAt            *time.Time `json:"sentAt,omitempty"`
	DeliveredAt       *time.Time `json:"deliveredAt,omitempty"`
	ReadAt            *time.Time `json:"readAt,omitempty"`
	CreatedAt         time.Time  `json:"createdAt"`
	UpdatedAt         time.Time  `json:"updatedAt,omitzero"`
	// WordNum is the message's num in the message-word index (0: not indexed).
	WordNum uint32 `json:"wordNum,omitempty"`
	// SendAt is when a message sent later goes out (status scheduled until then).
	SendAt *time.Time `json:"sendAt,omitempty"`
	// Held says why a scheduled broadcast copy waits and until when ("held until 12:00 CST:
	// Texas, Sunday").
	Held string `json:"held,omitempty"`
	// Blocked: an inbound text from a number the workspace blocked (stored, acted on nowhere).
	Blocked bool `json:"blocked,omitempty"`
	// Auto says what sent an automatic message (AutoAfterHours, AutoGreeting, AutoKeyword,
	// "rule:" + a rule's id); "" for a person's, the API's or a broadcast's.
	Auto string `json:"auto,omitempty"`
}

// Recipients are the addresses an outbound message goes to: its To, or its group.
func (m *Message) Recipients() []string {
	if len(m.Group) > 0 {
		return m.Group
	}
	return []string{m.To}
}

// Direction is "outbound" or "inbound".
func (m *Message) Direction() string {
	if m.Outbound {
		return "outbound"
	}
	return "inbound"
}

// Outbound message priorities: the outbox sends high before normal before low.
const (
	PriorityHigh   = "high"
	PriorityNormal = "normal"
	PriorityLow    = "low"
)

// Message statuses.
const (
	MessageQueued    = "queued"
	MessageSending   = "sending"
	MessageSent      = "sent"
	MessageDelivered = "delivered"
	MessageFailed    = "failed"
	MessageReceived  = "received"
	MessageCancelled = "cancelled"
	MessageScheduled = "scheduled"
)

// SendInput is an outbound text: To holds one address (1:1) or several (a group).
type SendInput struct {
	From  string
	To    []string
	Text  string
	Media []string
	// Files are attachments to keep with the message; their URLs join Media.
	Files    []Upload
	AuthorID string
	// SendAt, when set, holds a single send until then (status scheduled; sendOrHold).
	SendAt time.Time
	// CheckMember, when set, makes the send check the workspace (ErrNotFound) and AuthorID's
	// membership (ErrForbidden) in its own write transaction, instead of the caller spending a
	// read transaction on them first.
	CheckMember bool
	// Held says why a broadcast copy waits ("held until 12:00 CST: Texas, Sunday").
	Held string
	// Auto marks an automatic message with what sent it (Message.Auto).
	Auto string
}

// SendMessage stores an outbound message, queued for the carrier, in the conversation of
// From and To (created if needed). An opted-out recipient is ErrOptedOut and nothing is stored.
func (s *Store) SendMessage(workspaceID string, in SendInput) (Message, error) {
	var m Message
	err := s.update(func(tx *wtx) error {
		return s.sendTx(tx, workspaceID, in, &m)
	})
	return m, err
}

// sendTx is SendMessage's write function: everything one send stores, in tx.
func (s *Store) sendTx(tx *wtx, workspaceID string, in SendInput, m *Message) error {
	if in.CheckMember {
		if err := authorize(tx.Tx, workspaceID, in.AuthorID); err != nil {
			return err
		}
	}
	n, ok, err := activeNumber(tx.Tx, workspaceID, in.From)
	if err != nil {
		return err
	}
	// Refusals go back through tx.refuse, so they do not make the other sends of the
	// batch run again (update); nothing is written before them.
	if !ok {
		return tx.refuse(fromNumberError(in.From))
	}
	// A member outside the teams the number is limited to may not send from it.
	if err := s.checkNumberUse(tx.Tx, workspaceID, n.ID, in.AuthorID); err != nil {
		return tx.refuse(err)
	}
	to := NormalizeGroup(in.To)
	if len(to) == 0 {
		return tx.refuse(ValidationError{{"to", "is required"}})
	}
	// A group send names every opted-out member.
	var optedOut []string
	for _, a := range to {
		out, err := s.isOptedOut(tx.Tx, workspaceID, a)
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
		return tx.refuse(errorf(ErrOptedOut, "recipient %s has opted out", optedOut[0]))
	default:
		return tx.refuse(errorf(ErrOptedOut, "recipients %s have opted out", strings.Join(optedOut, ", ")))
	}
	msg, err := checkText(tx.Tx, workspaceID, in.Text)
	if err != nil {
		return err
	}
	if msg != "" {
		return tx.refuse(ValidationError{{"text", msg}})
	}
	// The text is filled in before anything is written, so that one too long once filled
	// in is refused with nothing changed.
	if in.Text, err = renderFor(tx.Tx, workspaceID, in.Text, to); err != nil {
		return err
	}
	if tooLongFilled(in.Text) {
		return tx.refuse(ValidationError{{"text", filledTooLong}})
	}
	now := s.Now()
	if !in.SendAt.IsZero() {
		if msg := CheckSendAt(in.SendAt, now); msg != "" {
			return tx.refuse(ValidationError{{"sendAt", msg}})
		}
	}
	conv, created, err := s.conversationFor(tx, workspaceID, n, to, &now)
	if err != nil {
		return err
	}
	*m, err = s.sendOrHold(tx, &conv, created, now, in)
	if err != nil {
		return err
	}
	if created {
		if err := s.automateCreated(tx, &conv, now); err != nil {
			return err
		}
	}
	if len(in.Files) == 0 {
		return nil
	}
	// Attachments are kept in the same transaction as their message, owned by it.
	urls, err := s.putUploads(tx.Tx, workspaceID, m.ID, in.Files)
	if err != nil {
		return err
	}
	m.Media = append(m.Media, urls...)
	return putJSON(tx.Bucket(bMessages), wsKey(m.WorkspaceID, m.ID), m)
}

// renderFor fills a text's merge tags from the contact of a 1:1 recipient; a group message has
// no one contact, so its tags take their fallbacks.
func renderFor(tx *kv.Tx, workspaceID, text string, to []string) (string, error) {
	if !strings.Contains(text, "{{") {
		return text, nil
	}
	tmpl, err := ParseTemplate(text)
	if err != nil || !tmpl.HasTags() {
		return text, nil
	}
	var c Contact
	if len(to) == 1 {
		if id := contactIDByPhone(tx, workspaceID, to[0]); id != "" {
			if c, err = getContact(tx, workspaceID, id); err != nil {
				return "", err
			}
		}
	}
	return tmpl.Render(func(name string) string { return ContactTagValue(&c, name) }), nil
}

// queueMessage writes an outbound queued message in conv and its outbox entry, and records the
// activity on conv (a conversation just created for it already carries it). message.sent fires
// later, when the carrier accepts it.
func (s *Store) queueMessage(tx *wtx, conv *Conversation, convCreated bool, now time.Time, in SendInput, priority, broadcastID string) (Message, error) {
	return s.storeMessage(tx, conv, convCreated, now, in, priority, broadcastID, time.Time{})
}

// storeMessage is queueMessage for a message that may wait: with holdUntil set it is stored
// `scheduled` and joins the queue at that time (a broadcast copy due inside quiet hours).
func (s *Store) storeMessage(tx *wtx, conv *Conversation, convCreated bool, now time.Time, in SendInput, priority, broadcastID string, holdUntil time.Time) (Message, error) {
	m := Message{ID: s.NewID(), WorkspaceID: conv.WorkspaceID, ConversationID: conv.ID, BroadcastID: broadcastID,
		CommunicationType: CommSMS, From: conv.From, Text: in.Text, Media: in.Media, Segments: Segments(in.Text),
		Outbound: true, Billable: true, Priority: priority, Status: MessageQueued, AuthorID: in.AuthorID,
		NumberID: conv.OutboundChannelID, CreatedAt: now, UpdatedAt: now, Auto: in.Auto}
	if !holdUntil.IsZero() {
		m.Status, m.Held = MessageScheduled, in.Held
	}
	if !in.SendAt.IsZero() {
		at := in.SendAt.UTC()
		m.SendAt = &at
	}
	if conv.IsGroup() {
		m.Group = conv.Addresses
	} else {
		m.To = conv.Addresses[0]
	}
	if err := putMessageWith(tx, &m, tx.msgIndex); err != nil {
		return m, err
	}
	if err := s.liveNewMessage(tx, &m); err != nil {
		return m, err
	}
	var queued error
	if holdUntil.IsZero() {
		queued = enqueue(tx, &m)
	} else {
		tx.outbox = true // the dispatcher learns the new due time
		queued = delay(tx, &m, holdUntil)
	}
	if queued != nil {
		return m, queued
	}
	if broadcastID == "" { // a broadcast's copies are counted when its fan-out places them
		due := now
		if holdUntil.After(due) {
			due = holdUntil
		}
		if err := countSend(tx.Tx, &m, due); err != nil {
			return m, err
		}
	}
	// A person's or the API's message answers the contact; automatic ones and broadcast copies
	// do not.
	if conv.AwaitingSince != nil && in.Auto == "" && broadcastID == "" {
		if err := answered(tx.Tx, conv); err != nil {
			return m, err
		}
	}
	if !convCreated {
		if err := touchConversation(tx.Tx, conv, now, false); err != nil {
			return m, err
		}
	}
	return m, nil
}

func putMessage(tx *wtx, m *Message) error { return putMessageWith(tx, m, nil) }

// putMessageWith is putMessage collecting a new message's word postings and slot in buf, when
// not nil, to be written when buf is flushed. Every new message is stored here, and counted in
// the report rollups here.
func putMessageWith(tx *wtx, m *Message, buf *index.MsgBlocks) error {
	if err := indexMessageWith(tx, m, buf); err != nil {
		return err
	}
	if err := putJSON(tx.Bucket(bMessages), wsKey(m.WorkspaceID, m.ID), m); err != nil {
		return err
	}
	if err := tx.Bucket(bConvMessages).Put(idxKey(m.WorkspaceID, m.ConversationID, m.ID), nil); err != nil {
		return err
	}
	return tx.reportMessage(m)
}

// Message returns a message by id.
func (s *Store) Message(workspaceID, id string) (Message, error) {
	var m Message
	err := s.view(func(tx *kv.Tx) error {
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
	err := s.view(func(tx *kv.Tx) error {
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

// MessageFilter narrows ListMessages.
type MessageFilter struct {
	ConversationID string // "" for the whole workspace
	Direction      string // "inbound", "outbound" or "" for both
	Limit          int
	// Viewer, when set, leaves out the messages of numbers the user may not use; a
	// ConversationID of such a number is ErrForbidden.
	Viewer string
}

// ListMessages lists a workspace's messages, newest first (list-messages-action). An unknown
// conversation is ErrNotFound.
func (s *Store) ListMessages(workspaceID string, f MessageFilter) ([]Message, error) {
	out := []Message{}
	err := s.view(func(tx *kv.Tx) error {
		if _, ok := ParseID(workspaceID); !ok {
			return errorf(ErrNotFound, "workspace not found")
		}
		msgs := tx.Bucket(bMessages)
		hidden, err := s.hiddenFrom(tx, workspaceID, f.Viewer)
		if err != nil {
			return err
		}
		keep := func(key []byte) (bool, error) {
			var m Message
			ok, err := getJSON(msgs, key, &m)
			if err != nil || !ok {
				return false, err
			}
			if f.Direction != "" && m.Direction() != f.Direction || hidden[m.NumberID] {
				return false, nil
			}
			out = append(out, m)
			return len(out) >= f.Limit, nil
		}
		if f.ConversationID != "" {
			var c Conversation
			if ok, err := getJSON(tx.Bucket(bConversations), wsKeyChecked(workspaceID, f.ConversationID), &c); err != nil || !ok {
				if err == nil {
					err = errorf(ErrNotFound, "conversation not found")
				}
				return err
			}
			if hidden[c.OutboundChannelID] {
				return errorf(ErrForbidden, numberNotAllowed)
			}
			p := idxPrefix(workspaceID, f.ConversationID)
			return reverseScan(tx.Bucket(bConvMessages), p, func(k []byte) (bool, error) {
				if len(k) != len(p)+16 {
					return false, nil
				}
				return keep(wsKey(workspaceID, idFromKey(k)))
			})
		}
		return reverseScan(msgs, idKey(workspaceID), func(k []byte) (bool, error) { return keep(k) })
	})
	return out, err
}

// reverseScan calls fn for every key with prefix p, last first, until fn says stop.
func reverseScan(b *kv.Bucket, p []byte, fn func(k []byte) (stop bool, err error)) error {
	c := b.Cursor()
	k, _ := c.Seek(nextPrefix(p))
	if k == nil {
		k, _ = c.Last()
	} else {
		k, _ = c.Prev()
	}
	for ; k != nil && bytes.HasPrefix(k, p); k, _ = c.Prev() {
		if stop, err := fn(k); stop || err != nil {
			return err
		}
	}
	return nil
}
