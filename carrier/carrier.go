// Package carrier moves texts between Switchboard and the phone network: the Carrier interface
// and its adapters (sandbox, twilio), the dispatcher that hands queued messages to them in
// priority order at each number's rate, and the parsing of what carriers send back (inbound
// texts, delivery receipts, calls). The HTTP endpoints in web/ only parse, verify and call it.
package carrier

import (
	"context"
	"errors"
	"fmt"
	"time"
)

// Outbound is one message handed to a carrier.
type Outbound struct {
	MessageID string   // Switchboard's id; the sandbox derives its provider id from it
	From      string   // E.164, a number of the workspace on this carrier
	To        string   // E.164; for a group message, one send per member is the adapter's business
	Text      string   // may be empty when Media is not
	Media     []string // absolute http(s) URLs
}

// Carrier sends a message. It returns the carrier's id of the accepted message, or an error that
// says what kind it is: *PermanentError (the message fails) or anything else (transient: the
// dispatcher retries it), optionally a *TransientError carrying a Retry-After.
type Carrier interface {
	Name() string
	Send(ctx context.Context, m Outbound) (providerID string, err error)
}

// DeliveredOnAccept is implemented by carriers that know a message is delivered the moment they
// accept it (the sandbox): the dispatcher records sent and delivered together.
type DeliveredOnAccept interface {
	DeliveredOnAccept() bool
}

// PermanentError is a refusal that retrying cannot change. Reason is stored as the message's
// providerErr (for Twilio: "twilio <code>: <message>"). Unsubscribed marks a recipient who
// unsubscribed at the carrier (Twilio 21610): the dispatcher records an opt-out (reason carrier).
type PermanentError struct {
	Reason       string
	Unsubscribed bool
}

func (e *PermanentError) Error() string { return e.Reason }

// TransientError is a failure worth retrying; RetryAfter, when set, is the carrier's own word on
// when to try again (the Retry-After header).
type TransientError struct {
	Reason     string
	RetryAfter time.Duration
}

func (e *TransientError) Error() string { return e.Reason }

// Permanent reports whether err is a permanent refusal, and returns it.
func Permanent(err error) (*PermanentError, bool) {
	var p *PermanentError
	ok := errors.As(err, &p)
	return p, ok
}

// RetryAfter is the carrier's requested delay carried by err, or 0.
func RetryAfter(err error) time.Duration {
	var t *TransientError
	if errors.As(err, &t) {
		return t.RetryAfter
	}
	return 0
}

// Transientf builds a TransientError.
func Transientf(format string, args ...any) error {
	return &TransientError{Reason: fmt.Sprintf(format, args...)}
}
