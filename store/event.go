package store

import (
	"bytes"
	"encoding/json"
	"errors"
	"slices"
	"time"

	bolt "go.etcd.io/bbolt"
)

// Webhook event names (DESIGN §6).
const (
	EventMessageReceived  = "message.received"
	EventMessageSent      = "message.sent"
	EventMessageDelivered = "message.delivered"
	EventMessageFailed    = "message.failed"
	EventCommentCreated   = "comment.created"
	EventContactCreated   = "contact.created"
	EventContactUpdated   = "contact.updated"
	EventOptOutCreated    = "opt_out.created"
	EventCallReceived     = "call.received"
)

// EventNames lists every event a webhook can subscribe to.
var EventNames = []string{EventMessageReceived, EventMessageSent, EventMessageDelivered, EventMessageFailed, EventCommentCreated,
	EventContactCreated, EventContactUpdated, EventOptOutCreated, EventCallReceived}

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

// Delivery is one event on its way to one subscription. Its id is the webhook-id header,
// stable across retries.
type Delivery struct {
	ID             string     `json:"id"`
	EventID        string     `json:"eventId"`
	SubscriptionID string     `json:"subscriptionId"`
	WorkspaceID    string     `json:"workspaceId"`
	EventName      string     `json:"eventName"`
	Status         string     `json:"status"`
	Attempts       int        `json:"attempts"`
	NextAt         time.Time  `json:"nextAt"`
	LastStatus     int        `json:"lastStatus"`
	LastError      string     `json:"lastError"`
	CreatedAt      time.Time  `json:"createdAt"`
	UpdatedAt      time.Time  `json:"updatedAt"`
	DoneAt         *time.Time `json:"doneAt,omitempty"`
}

// Attempt is one POST of a delivery, kept for the delivery log.
type Attempt struct {
	ID         string    `json:"id"`
	DeliveryID string    `json:"deliveryId"`
	At         time.Time `json:"at"`
	StatusCode int       `json:"statusCode"`
	LatencyMS  int64     `json:"latencyMs"`
	Error      string    `json:"error"`
	Response   string    `json:"response"`
}

// effects collects what a write transaction did that others must hear of after it commits.
type effects struct {
	events    bool
	outbox    bool
	depth     int64 // change in the number of messages queued or sending
	scheduled bool  // a broadcast was scheduled
	optOuts   []optOutRef
	live      []string // workspaces whose live streams must be woken (live_event.go)
	refused   error
	// postings, when set (imports), collects new contacts' search postings to be written term
	// by term before the transaction commits (contact.go).
	postings *postingBuf
}

// refuse records a refusal (bad input, or a state that forbids the change) for update to return
// to its caller, and returns nil so that DB.Batch commits the other functions of the batch: a
// function's error makes bbolt roll the whole batch back and run every function in it again
// (DESIGN §8). Call it only before the function has written anything. (update also treats a
// returned ValidationError or *Error as a refusal; refuse says so explicitly.)
func (fx *effects) refuse(err error) error {
	fx.refused = err
	return nil
}

type optOutRef struct{ ws, phone string }

// update runs fn in a batched write transaction (DB.Batch coalesces concurrent writers into
// one fsync). fn may run twice, so it starts from fresh effects each time.
//
// A refusal (a ValidationError or an *Error: not found, forbidden, conflict, opted out) is
// returned through this call's own variable and the batch function returns nil: returned to
// bbolt, it would roll back the whole batch and run every other caller's function again. So fn
// must refuse before it writes anything, as every store function does (checks, then writes); any
// other error still rolls the batch back.
func (s *Store) update(fn func(tx *bolt.Tx, fx *effects) error) error {
	var fx effects
	var refused error
	runs := 0
	err := s.db.Batch(func(tx *bolt.Tx) error {
		runs++
		fx, refused = effects{}, nil
		err := fn(tx, &fx)
		if isRefusal(err) {
			refused, fx = err, effects{}
			return nil
		}
		return err
	})
	if runs > 1 {
		s.batchReruns.Add(int64(runs - 1))
	}
	if err != nil {
		return err
	}
	if refused != nil {
		return refused
	}
	if fx.refused != nil {
		return fx.refused
	}
	s.applyEffects(&fx)
	return nil
}

// BatchReruns counts how often DB.Batch ran a write function again because another function of
// its batch failed. Refusals do not make it rerun, so it stays 0 unless real errors occur.
func (s *Store) BatchReruns() int64 { return s.batchReruns.Load() }

// isRefusal reports whether err is a request's refusal rather than a failure of the write.
// Store functions refuse before they write, so a refused function has written nothing.
func isRefusal(err error) bool {
	var verr ValidationError
	var serr *Error
	return errors.As(err, &verr) || errors.As(err, &serr)
}

// updateNow is update without batching, for callers that write big transactions (imports).
func (s *Store) updateNow(fn func(tx *bolt.Tx, fx *effects) error) error {
	var fx effects
	if err := s.db.Update(func(tx *bolt.Tx) error { return fn(tx, &fx) }); err != nil {
		return err
	}
	if fx.refused != nil {
		return fx.refused
	}
	s.applyEffects(&fx)
	return nil
}

func (s *Store) applyEffects(fx *effects) {
	s.depth.Add(fx.depth)
	for _, o := range fx.optOuts {
		s.addOptOutFilter(o.ws, o.phone)
	}
	s.notify(fx.events, fx.outbox)
	s.notifyLive(fx.live)
	if fx.scheduled {
		s.hookMu.RLock()
		f := s.onSchedule
		s.hookMu.RUnlock()
		if f != nil {
			f()
		}
	}
}

// emit records an event and queues one delivery per active subscription of the workspace to
// that event name whose user is still a member, inside the caller's transaction.
func (s *Store) emit(tx *bolt.Tx, fx *effects, workspaceID, name string, payload any) error {
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
		sub, ok, err := getSubscription(tx, workspaceID, subID)
		if err != nil {
			return err
		}
		// A subscription lives only while its user may act on the workspace (DESIGN §6). Ending
		// the membership deletes it in the same transaction; the check here keeps that true for
		// any path that ends a membership without going through RemoveMember.
		if !ok || !sub.Active || (sub.UserID != "" && !isMember(tx, workspaceID, sub.UserID)) {
			continue
		}
		d := Delivery{ID: s.NewID(), EventID: ev.ID, SubscriptionID: sub.ID, WorkspaceID: workspaceID,
			EventName: name, Status: DeliveryPending, NextAt: now, CreatedAt: now, UpdatedAt: now}
		if err := PutDelivery(tx, d); err != nil {
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
	fx.events = true
	return putJSON(tx.Bucket(bEvents), idKey(ev.ID), ev)
}

// queueKey orders the delivery queue by due time, then id.
func queueKey(due time.Time, id string) []byte {
	k := encodeUint(uint64(due.UnixNano()))
	return append(k, idKey(id)...)
}

// PutDelivery writes d and, while it is pending, its queue entry at d.NextAt. The caller removes
// any older queue entry first. It also keeps the pending indexes (by subscription and by event)
// and the pending count, so that cancelling a subscription's deliveries, purging events and the
// queue-depth gauge never walk the delivery history.
func PutDelivery(tx *bolt.Tx, d Delivery) error {
	if err := putJSON(tx.Bucket(bDeliveries), idKey(d.ID), d); err != nil {
		return err
	}
	pending := d.Status == DeliveryPending
	if pending {
		if err := tx.Bucket(bDeliveryQueue).Put(queueKey(d.NextAt, d.ID), nil); err != nil {
			return err
		}
	}
	return setPending(tx, d, pending)
}

// setPending adds or removes d's entries in the pending indexes and counts the change.
func setPending(tx *bolt.Tx, d Delivery, pending bool) error {
	bySub, byEvent := tx.Bucket(bSubPending), tx.Bucket(bEventPending)
	subKey := wsKey(d.SubscriptionID, d.ID)
	was := hasKey(bySub, subKey)
	if pending == was {
		return nil
	}
	evKey := wsKey(d.EventID, d.ID)
	if pending {
		if err := bySub.Put(subKey, nil); err != nil {
			return err
		}
		if err := byEvent.Put(evKey, nil); err != nil {
			return err
		}
		return addPendingCount(tx, 1)
	}
	if err := bySub.Delete(subKey); err != nil {
		return err
	}
	if err := byEvent.Delete(evKey); err != nil {
		return err
	}
	return addPendingCount(tx, -1)
}

// hasKey reports whether key is in b. Get cannot tell: a key put with an empty value in the
// same transaction reads back as nil.
func hasKey(b *bolt.Bucket, key []byte) bool {
	k, _ := b.Cursor().Seek(key)
	return bytes.Equal(k, key)
}

// pendingCountKey (meta bucket) holds how many deliveries are pending: the queue depth.
var pendingCountKey = []byte("webhook_pending_count")

func addPendingCount(tx *bolt.Tx, delta int64) error {
	meta := tx.Bucket(bMeta)
	n := int64(decodeUint(meta.Get(pendingCountKey))) + delta
	if n < 0 {
		n = 0
	}
	return meta.Put(pendingCountKey, encodeUint(uint64(n)))
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
	ConversationID string `json:"conversationId"`
	CreatedAt      string `json:"createdAt"`
	From           string `json:"from"`
	ID             string `json:"id"`
	Status         string `json:"status"`
	Text           string `json:"text"`
	To             string `json:"to"`
	WorkspaceID    string `json:"workspaceId"`
}

func messagePayload(m *Message) MessagePayload {
	to := m.To
	if to == "" && len(m.Group) > 0 {
		to = joinAddresses(m.Group)
	}
	return MessagePayload{ConversationID: m.ConversationID, CreatedAt: FormatTime(m.CreatedAt), From: m.From,
		ID: m.ID, Status: m.Status, Text: m.Text, To: to, WorkspaceID: m.WorkspaceID}
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
