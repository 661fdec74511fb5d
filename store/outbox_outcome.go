package store

import (
	"strings"
	"time"
)

// Outcome is what became of one claimed message at the carrier.
type Outcome struct {
	WorkspaceID string
	MessageID   string
	Provider    string   // the carrier's name
	ProviderIDs []string // the carrier's ids, one per recipient, when it accepted the message
	Delivered   bool     // accepted and known delivered at once (sandbox)
	Err         string   // the carrier's reason: the message failed, or (with RetryAt) will be retried
	// Unsubscribed: the recipient unsubscribed at the carrier; an opt-out (reason carrier) is
	// recorded with the failure.
	Unsubscribed bool
	RetryAt      time.Time // non-zero: a transient failure, queued again at this time
}

// RecordOutcomes records what the carrier did with claimed messages, in one transaction: the
// message's status, provider id and error, its events (message.sent on acceptance,
// message.delivered or message.failed on an outcome), its broadcast's counters and status, an
// opt-out for an unsubscribed recipient, and for a transient failure its retry entry.
func (s *Store) RecordOutcomes(outs []Outcome) error {
	return s.update(func(tx *wtx) error {
		now := s.Now()
		bc := broadcastCache{}
		for _, o := range outs {
			key := wsKeyChecked(o.WorkspaceID, o.MessageID)
			if tx.Bucket(bOutboxSending).Get(idKey(o.MessageID)) == nil {
				continue // not claimed (anymore): nothing to record
			}
			if err := tx.Bucket(bOutboxSending).Delete(idKey(o.MessageID)); err != nil {
				return err
			}
			tx.depth--
			var m Message
			ok, err := getJSON(tx.Bucket(bMessages), key, &m)
			if err != nil {
				return err
			}
			if !ok || m.Status != MessageSending {
				continue
			}
			m.UpdatedAt = now
			m.Provider = o.Provider
			switch {
			case len(o.ProviderIDs) > 0:
				m.ProviderID = o.ProviderIDs[0]
				m.ProviderRef = ""
				if len(o.ProviderIDs) > 1 {
					m.ProviderRef = strings.Join(o.ProviderIDs[1:], ",") // a group message's other sends
				}
				m.ProviderErr, m.Status, m.SentAt = "", MessageSent, &now
				for _, id := range o.ProviderIDs {
					if err := tx.Bucket(bMsgProvider).Put(providerKey(o.Provider, id), wsKey(m.WorkspaceID, m.ID)); err != nil {
						return err
					}
				}
				if err := s.emit(tx, m.WorkspaceID, EventMessageSent, messagePayload(&m)); err != nil {
					return err
				}
				if err := bc.update(tx.Tx, &m, func(b *Broadcast) { b.TotalSent++; b.Outstanding--; b.judgeAccepted() }); err != nil {
					return err
				}
				if o.Delivered {
					m.Status, m.DeliveredAt = MessageDelivered, &now
					if err := s.emit(tx, m.WorkspaceID, EventMessageDelivered, messagePayload(&m)); err != nil {
						return err
					}
					if err := bc.update(tx.Tx, &m, func(b *Broadcast) { b.TotalDelivered++ }); err != nil {
						return err
					}
				}
				// Its receipt may come while the server is down: the inbound recovery asks.
				if err := markAwaiting(tx.Tx, &m); err != nil {
					return err
				}
			case !o.RetryAt.IsZero():
				m.Status, m.ProviderErr = MessageQueued, o.Err
				if err := delay(tx, &m, o.RetryAt); err != nil {
					return err
				}
			default:
				m.Status, m.ProviderErr = MessageFailed, o.Err
				if err := s.emit(tx, m.WorkspaceID, EventMessageFailed, messagePayload(&m)); err != nil {
					return err
				}
				if err := bc.update(tx.Tx, &m, func(b *Broadcast) {
					b.TotalFailed++
					b.Outstanding--
					b.countFailure(m.ProviderErr)
					b.judgeFailed(false)
				}); err != nil {
					return err
				}
				if err := flagLandline(tx.Tx, &m, now); err != nil {
					return err
				}
				if o.Unsubscribed && m.To != "" {
					if _, _, err := s.createOptOut(tx, m.WorkspaceID, "", m.To, OptOutCarrier, optOutSource{numberID: m.NumberID, broadcastID: m.BroadcastID}); err != nil {
						return err
					}
				}
			}
			if err := tx.reportStatus(&m, MessageSending); err != nil {
				return err
			}
			if err := putJSON(tx.Bucket(bMessages), wsKey(m.WorkspaceID, m.ID), m); err != nil {
				return err
			}
			if err := s.liveMessage(tx, &m); err != nil {
				return err
			}
		}
		return bc.flush(tx.Tx, now)
	})
}

func providerKey(provider, id string) []byte {
	k := make([]byte, 0, len(provider)+1+len(id))
	k = append(k, provider...)
	k = append(k, 0)
	return append(k, id...)
}

// StatusUpdate applies a carrier's delivery receipt to the message it sent under providerID:
// "sent", "delivered" or "failed" (with the carrier's reason). A status never moves backwards
// and a repeated receipt changes nothing; changed reports whether the message moved (false for
// an unknown id too).
func (s *Store) StatusUpdate(provider, providerID, status, reason string) (m Message, changed bool, err error) {
	err = s.update(func(tx *wtx) error {
		changed = false
		v := tx.Bucket(bMsgProvider).Get(providerKey(provider, providerID))
		if len(v) != 32 {
			return nil
		}
		m = Message{}
		ok, err := getJSON(tx.Bucket(bMessages), v, &m)
		if err != nil || !ok || !m.Outbound {
			return err
		}
		if statusRank(status) <= statusRank(m.Status) {
			return nil
		}
		now := s.Now()
		m.UpdatedAt = now
		bc := broadcastCache{}
		before := m.Status
		switch status {
		case MessageSent:
			m.Status = MessageSent
		case MessageDelivered:
			m.Status, m.DeliveredAt = MessageDelivered, &now
			if err := s.emit(tx, m.WorkspaceID, EventMessageDelivered, messagePayload(&m)); err != nil {
				return err
			}
			if err := bc.update(tx.Tx, &m, func(b *Broadcast) { b.TotalDelivered++ }); err != nil {
				return err
			}
		case MessageFailed:
			m.Status, m.ProviderErr = MessageFailed, reason
			if err := flagLandline(tx.Tx, &m, now); err != nil {
				return err
			}
			if err := s.emit(tx, m.WorkspaceID, EventMessageFailed, messagePayload(&m)); err != nil {
				return err
			}
			if err := bc.update(tx.Tx, &m, func(b *Broadcast) { b.TotalFailed++; b.countFailure(m.ProviderErr); b.judgeFailed(true) }); err != nil {
				return err
			}
		default:
			return nil
		}
		if m.Status != MessageSent {
			if err := unmarkAwaiting(tx.Tx, &m); err != nil {
				return err
			}
		}
		if err := tx.reportStatus(&m, before); err != nil {
			return err
		}
		if err := putJSON(tx.Bucket(bMessages), wsKey(m.WorkspaceID, m.ID), m); err != nil {
			return err
		}
		if err := s.liveMessage(tx, &m); err != nil {
			return err
		}
		changed = true
		return bc.flush(tx.Tx, now)
	})
	return m, changed, err
}

// statusRank orders an outbound message's statuses; delivered and failed are both final.
func statusRank(status string) int {
	switch status {
	case MessageScheduled, MessageQueued:
		return 1
	case MessageSending:
		return 2
	case MessageSent:
		return 3
	case MessageDelivered, MessageFailed, MessageCancelled:
		return 4
	}
	return 0
}
