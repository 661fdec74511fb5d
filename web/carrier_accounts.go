package web

import (
	"crypto/ed25519"
	"errors"
	"log/slog"
	"net/http"

	"switchboard/carrier"
	"switchboard/store"
	"switchboard/views"
)

// The carrier accounts as the handlers see them: the keys that verify callbacks, which carriers
// can take numbers, and how a carrier's failure reads on a page.

// twilioAuthToken verifies Twilio's callbacks: the configured token, else the account in use.
func (h *Handler) twilioAuthToken() string {
	if h.cfg.TwilioAuthToken == "" && h.cfg.Accounts != nil {
		return h.cfg.Accounts.TwilioAuthToken()
	}
	return h.cfg.TwilioAuthToken
}

// telnyxPublicKey verifies Telnyx's webhooks: the configured key, else the account in use's.
func (h *Handler) telnyxPublicKey() ed25519.PublicKey {
	if h.cfg.TelnyxPublicKey == nil && h.cfg.Accounts != nil {
		return h.cfg.Accounts.TelnyxPublicKey()
	}
	return h.cfg.TelnyxPublicKey
}

// carrierUsable reports whether numbers of carrier can send and receive on this server.
func (h *Handler) carrierUsable(name string) bool {
	if h.cfg.Accounts != nil && h.cfg.Accounts.Usable(name) {
		return true
	}
	switch name {
	case store.ProviderTwilio:
		return h.cfg.TwilioAuthToken != ""
	case store.ProviderTelnyx:
		return h.cfg.Telnyx
	}
	return false
}

// accountCarriers are the carriers whose account the numbers pages can act on, current marking
// want (or the first when want is none of them).
func (h *Handler) accountCarriers(want string) []views.CarrierChoice {
	var out []views.CarrierChoice
	if h.cfg.Accounts == nil {
		return nil
	}
	for _, c := range []views.CarrierChoice{{Value: store.ProviderTwilio, Label: "Twilio"}, {Value: store.ProviderTelnyx, Label: "Telnyx"}} {
		if h.cfg.Accounts.Usable(c.Value) {
			c.Current = c.Value == want
			out = append(out, c)
		}
	}
	if len(out) > 0 && !hasCurrent(out) {
		out[0].Current = true
	}
	return out
}

func hasCurrent(cs []views.CarrierChoice) bool {
	for _, c := range cs {
		if c.Current {
			return true
		}
	}
	return false
}

// currentCarrier is the chosen carrier of choices, "" when there is none.
func currentCarrier(cs []views.CarrierChoice) (value, label string) {
	for _, c := range cs {
		if c.Current {
			return c.Value, c.Label
		}
	}
	return "", ""
}

// carrierLabel is a carrier's name in sentences.
func carrierLabel(name string) string {
	switch name {
	case store.ProviderTwilio:
		return "Twilio"
	case store.ProviderTelnyx:
		return "Telnyx"
	}
	return "the sandbox"
}

// carrierFailure is how a failed carrier action reads on a page, and its status: 502 when the
// carrier did not answer or failed, 422 for a refusal, 500 (logged, never shown) for the rest.
func carrierFailure(r *http.Request, err error) (int, string) {
	var (
		api     *carrier.APIError
		verrs   store.ValidationError
		se      *store.Error
		public  *carrier.PublicURLError
		wiring  *carrier.WiringError
		bought  *carrier.BoughtError
		changed *carrier.QuoteChangedError
		none    *carrier.ErrNotConnected
	)
	switch {
	case errors.As(err, &bought):
		return http.StatusBadGateway, bought.Error()
	case errors.As(err, &api):
		switch api.Kind {
		case carrier.KindTimeout, carrier.KindUnreachable, carrier.KindServer, carrier.KindGarbage:
			return http.StatusBadGateway, err.Error()
		}
		return http.StatusUnprocessableEntity, err.Error()
	case errors.As(err, &verrs):
		return http.StatusUnprocessableEntity, capitalize(verrs[0].Message)
	case errors.As(err, &se):
		return http.StatusUnprocessableEntity, capitalize(se.Msg)
	case errors.As(err, &public), errors.As(err, &wiring), errors.As(err, &changed), errors.As(err, &none):
		return http.StatusUnprocessableEntity, err.Error()
	}
	slog.ErrorContext(r.Context(), "carrier account", "request_id", requestID(r.Context()), "path", logPath(r.URL.Path), "error", err)
	return http.StatusInternalServerError, "Something went wrong. Please try again."
}
