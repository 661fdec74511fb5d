package carrier

import (
	"errors"

	"switchboard/store"
)

// ErrUnknownNumber is an inbound text or call for a phone that is no active number here.
var ErrUnknownNumber = errors.New("not an active number of any workspace")

// Receiver records what carriers send back: inbound texts (with their keywords), delivery
// receipts and calls. Callback handlers parse and verify, then call it.
type Receiver struct {
	store   *store.Store
	metrics *Metrics
}

// NewReceiver builds a Receiver; m may be nil.
func NewReceiver(s *store.Store, m *Metrics) *Receiver {
	if m == nil {
		m = NewMetrics(nil, s)
	}
	return &Receiver{store: s, metrics: m}
}

// Route finds the active number a text or call is addressed to (by the installation-wide index).
func (r *Receiver) Route(to string) (store.PhoneNumber, error) {
	n, err := r.store.NumberByPhone(to)
	if errors.Is(err, store.ErrNotFound) {
		return n, ErrUnknownNumber
	}
	return n, err
}

// Inbound records a text the carrier provider says arrived for in.To, as its webhook does and
// as the inbound recovery does with a text its webhook missed: routed by To to the active number,
// which must be one of provider's (else ErrUnknownNumber), then recorded by SMS.
func (r *Receiver) Inbound(provider string, in InboundSMS) (store.InboundResult, error) {
	n, err := r.Route(in.To)
	if err != nil {
		return store.InboundResult{}, err
	}
	if n.CarrierName() != provider {
		return store.InboundResult{}, ErrUnknownNumber
	}
	return r.SMS(n, provider, in)
}

// SMS records an inbound text to number n, acting on its keyword (STOP, START, HELP families):
// contact, conversation, message, event, opt-out and reply in one transaction. A MessageSid seen
// before is recorded once: the check and the record are one transaction, so a webhook and the
// recovery of the same text, whichever comes first, store it once.
func (r *Receiver) SMS(n store.PhoneNumber, provider string, in InboundSMS) (store.InboundResult, error) {
	res, err := r.store.ReceiveMessage(n.WorkspaceID, store.InboundMessage{From: in.From, To: n.Phone, Text: in.Text,
		Media: in.Media, Provider: provider, ProviderID: in.MessageSID, Keyword: MatchKeyword(in.Text),
		PossibleOptOut: LikelyOptOut(in.Text), SentAt: in.SentAt})
	if err == nil && !res.Duplicate {
		r.metrics.inbound.WithLabelValues(provider).Inc()
	}
	return res, err
}

// Status applies a delivery receipt: sent, delivered, or undelivered/failed (providerErr
// "<provider> <ErrorCode>"). Other statuses, unknown ids, repeats and receipts that would move a
// message backwards change nothing.
func (r *Receiver) Status(provider string, u StatusUpdate) error {
	_, err := r.applyStatus(provider, u)
	return err
}

// applyStatus is Status, reporting whether the message moved to delivered or failed.
func (r *Receiver) applyStatus(provider string, u StatusUpdate) (bool, error) {
	status, reason := "", ""
	switch u.Status {
	case "sent":
		status = store.MessageSent
	case "delivered":
		status = store.MessageDelivered
	case "undelivered", "failed":
		status, reason = store.MessageFailed, provider+" "+u.ErrorCode
		if u.ErrorCode == "" {
			reason = provider + " " + u.Status
		}
	default:
		return false, nil
	}
	_, changed, err := r.store.StatusUpdate(provider, u.MessageSID, status, reason)
	final := err == nil && changed && status != store.MessageSent
	if final {
		r.metrics.messages.WithLabelValues(provider, status).Inc()
	}
	return final, err
}

// Call records an inbound call to number n (call.received) and returns the greeting to speak.
func (r *Receiver) Call(n store.PhoneNumber, in InboundCall) (string, error) {
	_, greeting, err := r.store.RecordInboundCall(n.WorkspaceID, in.From, n.Phone)
	return greeting, err
}
