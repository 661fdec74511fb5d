package carrier

import (
	"context"

	"switchboard/store"
)

// Sandbox is the default carrier: it accepts every send at once, as delivered, and reaches no
// phone. Inbound texts for sandbox numbers come from the inbox's "simulate inbound" form and
// POST /carrier/sandbox/sms. A few numbers behave like Twilio's test numbers, so failures can
// be played too:
//
//	+15005550001  refused: invalid number (permanent)
//	+15005550004  refused: the recipient unsubscribed (permanent, records an opt-out)
//	+15005550007  refused: filtered by the carrier, 30007 (permanent)
//	+15005550009  refused: the number cannot receive texts (permanent)
type Sandbox struct{}

// Name is "sandbox".
func (Sandbox) Name() string { return store.ProviderSandbox }

// DeliveredOnAccept: a sandbox message is delivered the moment it is accepted.
func (Sandbox) DeliveredOnAccept() bool { return true }

// Send accepts m under the provider id "sandbox-<message id>".
func (Sandbox) Send(ctx context.Context, m Outbound) (string, error) {
	if err := ctx.Err(); err != nil {
		return "", &TransientError{Reason: "sandbox: " + err.Error()}
	}
	switch m.To {
	case "+15005550001":
		return "", &PermanentError{Reason: "sandbox 21211: the 'To' number " + m.To + " is not a valid phone number"}
	case "+15005550004":
		return "", &PermanentError{Reason: "sandbox 21610: the recipient unsubscribed", Unsubscribed: true}
	case "+15005550007":
		return "", &PermanentError{Reason: "sandbox 30007: message filtered by the carrier"}
	case "+15005550009":
		return "", &PermanentError{Reason: "sandbox 21614: " + m.To + " is not a mobile number"}
	}
	return "sandbox-" + m.MessageID, nil
}
