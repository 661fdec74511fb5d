package store

import (
	"encoding/json"
	"slices"
	"time"

	"switchboard/store/kv"
)

// Webhook event names: what a subscription subscribes to.
const (
	EventMessageReceived  = "message.received"
	EventMessageSent      = "message.sent"
	EventMessageDelivered = "message.delivered"
	EventMessageFailed    = "message.failed"
	EventCommentCreated   = "comment.created"
	EventContactCreated   = "contact.created"
	EventContactUpdated   = "contact.updated"
	EventContactDeleted   = "contact.deleted" // deleted or erased; the Contact payload as it was
	EventOptOutCreated    = "opt_out.created"
	EventCallReceived     = "call.received"
)

// EventNames lists every event a webhook can subscribe to.
var EventNames = []string{EventMessageReceived, EventMessageSent, EventMessageDelivered, EventMessageFailed, EventCommentCreated,
	EventContactCreated, EventContactUpdated, EventOptOutCreated, EventCallReceived, EventContactDeleted,
	EventConversationAssigned, EventConversationClosed}

// ValidEventName reports whether name is a known event.
func ValidEventName(name string) bool { return slices.Contains(EventNames, name) }

// TimeFormat is how timestamps appear in JSON: RFC 3339, UTC, milliseconds.
const TimeFormat = "2006-01-02T15:04:05.000Z"

// FormatTime formats t in TimeFormat; the zero time is "".
func FormatTime(t time.Time) string {
	if t.IsZero() {
		return ""
	}
	return t.UTC().Format(TimeFormat)
}

// Delivery states.
const (
	DeliveryPending   = "pending"
	DeliveryDelivered = "delivered"
	DeliveryFailed    = "failed"
	DeliveryCancelled = "cancelled"
)

// Event is something that happened in a workspace, with its flat webhook payload.
type Event struct {
	ID          string          `json:"id"`
	WorkspaceID string          `json:"workspaceId"`
	Name        string          `json:"name"`
	Payload     json.RawMessage `json:"payload"`
	CreatedAt   time.Time       `json:"createdAt"`
}

// emit records an event and queues one delivery per active subscription of the workspace to
// that event name whose user is still an enabled member, inside the caller's transaction.
func (s *Store) emit(tx *wtx, workspaceID, name string, payload any) error {
	subs := idxIDs(tx.Bucket(bSubEvent), workspaceID, name)
	if len(subs) == 0 {
		return nil
	}
	data, err := json.Marshal(payload)
	if err != nil {
		return err
	}
	now := s.Now()
	ev := Event{ID: s.NewID(), WorkspaceID: workspaceID, Name: name, Payload: data, CreatedAt: now}
	queued := false
	for _, subID := range subs {
		sub, ok, err := getSubscription(tx.Tx, workspaceID, subID)
		if err != nil {
			return err
		}
		// A subscription delivers only while its user may act on the workspace: a member, not
		// disabled. Ending the membership deletes it in the same transaction; the check here
		// keeps that true for any path that ends a membership without going through
		// RemoveMember, and holds a disabled user's subscriptions until they are enabled.
		if subscriptionStale(tx.Tx, sub, ok) != "" {
			continue
		}
		d := Delivery{ID: s.NewID(), EventID: ev.ID, SubscriptionID: sub.ID, WorkspaceID: workspaceID,
			EventName: name, Status: DeliveryPending, NextAt: now, CreatedAt: now, UpdatedAt: now}
		if err := PutDelivery(tx.Tx, d); err != nil {
			return err
		}
		if err := tx.Bucket(bSubDeliveries).Put(wsKey(sub.ID, d.ID), nil); err != nil {
			return err
		}
		queued = true
	}
	if !queued {
		return nil
	}
	tx.events = true
	return putJSON(tx.Bucket(bEvents), idKey(ev.ID), ev)
}

// ---- payloads (the seed's tables, flat, every field present) ----

// ContactPayload is the contact.* webhook payload.
type ContactPayload struct {
	CreatedAt   string         `json:"createdAt"`
	Email       string         `json:"email"`
	FirstName   string         `json:"firstName"`
	ID          string         `json:"id"`
	LastName    string         `json:"lastName"`
	Phone       string         `json:"phone"`
	Properties  map[string]any `json:"properties"`
	WorkspaceID string         `json:"workspaceId"`
}

func contactPayload(c *Contact) ContactPayload {
	props := c.Properties
	if props == nil {
		props = map[string]any{}
	}
	return ContactPayload{CreatedAt: FormatTime(c.CreatedAt), Email: c.Email, FirstName: c.FirstName, ID: c.ID,
		LastName: c.LastName, Phone: c.Phone(), Properties: props, WorkspaceID: c.WorkspaceID}
}

// MessagePayload is the message.* webhook payload: the seed's Message fields plus the message's
// id and status, so that a receiver can match receipts to sends.
type MessagePayload struct {
	ConversationID string   `json:"conversationId"`
	CreatedAt      string   `json:"createdAt"`
	From           string   `json:"from"`
	ID             string   `json:"id"`
	Media          []string `json:"media"` // URLs; [] when none
	Status         string   `json:"status"`
	Text           string   `json:"text"`
	To             string   `json:"to"`
	WorkspaceID    string   `json:"workspaceId"`
}

func messagePayload(m *Message) MessagePayload {
	to := m.To
	if to == "" && len(m.Group) > 0 {
		to = joinAddresses(m.Group)
	}
	return MessagePayload{ConversationID: m.ConversationID, CreatedAt: FormatTime(m.CreatedAt), From: m.From,
		ID: m.ID, Media: orEmpty(m.Media), Status: m.Status, Text: m.Text, To: to, WorkspaceID: m.WorkspaceID}
}

// CommentPayload is the comment.created webhook payload.
type CommentPayload struct {
	ConversationID string `json:"conversationId"`
	CreatedAt      string `json:"createdAt"`
	Text           string `json:"text"`
	WorkspaceID    string `json:"workspaceId"`
}

// OptOutPayload is the opt_out.created webhook payload.
type OptOutPayload struct {
	ConversationID string `json:"conversationId"`
	CreatedAt      string `json:"createdAt"`
	InboundAddress string `json:"inboundAddress"`
	OptOutReason   string `json:"optOutReason"`
	WorkspaceID    string `json:"workspaceId"`
}

// CallPayload is the call.received webhook payload.
type CallPayload struct {
	CreatedAt   string `json:"createdAt"`
	From        string `json:"from"`
	To          string `json:"to"`
	WorkspaceID string `json:"workspaceId"`
}

// Event returns a recorded event (with its payload) by id.
func (s *Store) Event(id string) (Event, error) {
	var ev Event
	err := s.view(func(tx *kv.Tx) error {
		if _, ok := ParseID(id); !ok {
			return errorf(ErrNotFound, "event not found")
		}
		ok, err := getJSON(tx.Bucket(bEvents), idKey(id), &ev)
		if err == nil && !ok {
			err = errorf(ErrNotFound, "event not found")
		}
		return err
	})
	return ev, err
}
