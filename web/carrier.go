package web

import (
	"crypto/rand"
	"encoding/hex"
	"errors"
	"log/slog"
	"net/http"
	"net/url"

	"switchboard/carrier"
	"switchboard/store"
)

// maxCallbackBody bounds a carrier callback form; Twilio's are a few kilobytes.
const maxCallbackBody = 64 << 10

// Carrier callbacks. The Twilio endpoints check X-Twilio-Signature against the
// public URL and the POST fields and answer TwiML; the sandbox endpoints take the same form
// fields from a member's bearer token, so scripts and demos can play a contact. Both parse and
// verify here, then call the carrier package.

// readCallbackForm parses a bounded urlencoded POST body; the fields are the body's only.
func readCallbackForm(w http.ResponseWriter, r *http.Request) (url.Values, bool) {
	r.Body = http.MaxBytesReader(w, r.Body, maxCallbackBody)
	if err := r.ParseForm(); err != nil {
		var tooBig *http.MaxBytesError
		if errors.As(err, &tooBig) {
			writeError(w, http.StatusRequestEntityTooLarge, "form is larger than 64 KiB")
			return nil, false
		}
		writeValidation(w, store.ValidationError{{Field: "body", Message: "must be an application/x-www-form-urlencoded form"}})
		return nil, false
	}
	return r.PostForm, true
}

func writeTwiML(w http.ResponseWriter, say string) {
	w.Header().Set("Content-Type", "text/xml; charset=utf-8")
	w.WriteHeader(http.StatusOK)
	_, _ = w.Write([]byte(carrier.TwiML(say)))
}

// twilioVerified reads the form and checks its signature; a missing or wrong one is 403 and
// nothing else happens. A body that is no form cannot carry a valid signature either.
func (h *Handler) twilioVerified(w http.ResponseWriter, r *http.Request) (url.Values, bool) {
	r.Body = http.MaxBytesReader(w, r.Body, maxCallbackBody)
	err := r.ParseForm()
	var tooBig *http.MaxBytesError
	if errors.As(err, &tooBig) {
		writeError(w, http.StatusRequestEntityTooLarge, "form is larger than 64 KiB")
		return nil, false
	}
	form := r.PostForm
	full := h.cfg.BaseURL + r.URL.RequestURI()
	if err != nil || !carrier.ValidTwilioSignature(h.twilioAuthToken(), full, form, r.Header.Get("X-Twilio-Signature")) {
		slog.WarnContext(r.Context(), "twilio callback with a missing or wrong signature", "request_id", requestID(r.Context()), "path", logPath(r.URL.Path))
		writeError(w, http.StatusForbidden, "missing or invalid X-Twilio-Signature")
		return nil, false
	}
	return form, true
}

// twilioSMS records an inbound text. Whatever cannot be recorded (a malformed form, a number
// that is not ours, a sender that is no phone number) is logged and answered 200, so that
// Twilio does not retry what can never succeed.
func (h *Handler) twilioSMS(w http.ResponseWriter, r *http.Request) {
	form, ok := h.twilioVerified(w, r)
	if !ok {
		return
	}
	in, err := carrier.ParseInboundSMS(form)
	if err == nil {
		err = h.receiveSMS(r, store.ProviderTwilio, in, nil)
	}
	h.answerTwilio(w, r, err, "")
}

// answerTwilio answers a verified Twilio callback with TwiML (say: the voice greeting), logging
// what could not be recorded for a reason retrying will not change; an internal error is 500 so
// that Twilio retries.
func (h *Handler) answerTwilio(w http.ResponseWriter, r *http.Request, err error, say string) {
	if err != nil && !h.callbackIgnorable(r, err) {
		writeStoreError(w, r, err)
		return
	}
	writeTwiML(w, say)
}

// twilioStatus applies a delivery receipt; unknown ids and backward moves change nothing.
func (h *Handler) twilioStatus(w http.ResponseWriter, r *http.Request) {
	form, ok := h.twilioVerified(w, r)
	if !ok {
		return
	}
	u, err := carrier.ParseStatus(form)
	if err == nil {
		err = h.cfg.Receiver.Status(store.ProviderTwilio, u)
	}
	h.answerTwilio(w, r, err, "")
}

// twilioVoice records a call (call.received) and answers with the workspace's greeting.
func (h *Handler) twilioVoice(w http.ResponseWriter, r *http.Request) {
	form, ok := h.twilioVerified(w, r)
	if !ok {
		return
	}
	// Like texts, only calls to the number's own carrier are recorded: a Twilio callback for a
	// sandbox number is not a call to this installation.
	greeting, err := h.receiveCall(r, form, func(n store.PhoneNumber) error {
		if n.CarrierName() != store.ProviderTwilio {
			return carrier.ErrUnknownNumber
		}
		return nil
	})
	if greeting == "" { // the call was not recorded (no such number): still a polite answer
		greeting = store.DefaultVoiceGreeting
	}
	h.answerTwilio(w, r, err, greeting)
}

// callbackIgnorable logs a callback that cannot be recorded for a reason retrying will not
// change and reports true; internal errors report false (answered 500 so the carrier retries).
func (h *Handler) callbackIgnorable(r *http.Request, err error) bool {
	var verrs store.ValidationError
	var se *store.Error
	if errors.As(err, &verrs) || errors.As(err, &se) || errors.Is(err, carrier.ErrUnknownNumber) || isParseError(err) {
		slog.WarnContext(r.Context(), "carrier callback not recorded", "request_id", requestID(r.Context()), "path", logPath(r.URL.Path), "reason", err.Error())
		return true
	}
	return false
}

func isParseError(err error) bool {
	var pe *carrier.ParseError
	return errors.As(err, &pe)
}

// receiveSMS routes an inbound text by its To and records it; check, when set, vets the number
// first (the sandbox endpoint's membership rule).
func (h *Handler) receiveSMS(r *http.Request, provider string, in carrier.InboundSMS, check func(n store.PhoneNumber) error) error {
	if check == nil {
		_, err := h.cfg.Receiver.Inbound(provider, in)
		return err
	}
	n, err := h.cfg.Receiver.Route(in.To)
	if err != nil {
		return err
	}
	if err := check(n); err != nil {
		return err
	}
	_, err = h.cfg.Receiver.SMS(n, provider, in)
	return err
}

func (h *Handler) receiveCall(r *http.Request, form url.Values, check func(n store.PhoneNumber) error) (string, error) {
	in, err := carrier.ParseCall(form)
	if err != nil {
		return "", err
	}
	n, err := h.cfg.Receiver.Route(in.To)
	if err != nil {
		return "", err
	}
	if check != nil {
		if err := check(n); err != nil {
			return "", err
		}
	}
	return h.cfg.Receiver.Call(n, in)
}

// sandboxMember authenticates the bearer token and returns the check that the addressed number
// is a sandbox number of a workspace the token's user belongs to.
func (h *Handler) sandboxMember(w http.ResponseWriter, r *http.Request) (func(n store.PhoneNumber) error, bool) {
	tok, ok := h.authenticate(w, r)
	if !ok {
		return nil, false
	}
	// The sandbox endpoints take the API's token, and its rate limit with it.
	if wait, ok := h.limiters.allow(tok.ID, h.cfg.RateLimit, h.now()); !ok {
		w.Header().Set("Retry-After", retryAfter(wait))
		writeError(w, http.StatusTooManyRequests, "rate limit exceeded: at most "+formatRate(h.cfg.RateLimit)+" requests per second per token")
		return nil, false
	}
	return func(n store.PhoneNumber) error {
		if n.CarrierName() != store.ProviderSandbox {
			return errSandboxOnly
		}
		return h.store.Authorize(n.WorkspaceID, tok.UserID)
	}, true
}

var errSandboxOnly = errors.New("sandbox only")

// writeSandboxError answers a sandbox callback that could not be recorded.
func writeSandboxError(w http.ResponseWriter, r *http.Request, to string, err error) {
	switch {
	case errors.Is(err, carrier.ErrUnknownNumber):
		writeError(w, http.StatusNotFound, "number "+to+" is not an active number of any workspace")
	case errors.Is(err, errSandboxOnly):
		writeError(w, http.StatusUnprocessableEntity, "number "+to+" is not a sandbox number: its texts come from its carrier")
	case isParseError(err):
		var pe *carrier.ParseError
		errors.As(err, &pe)
		writeValidation(w, store.ValidationError{{Field: pe.Field, Message: pe.Message}})
	default:
		writeStoreError(w, r, err)
	}
}

// sandboxSMS plays an inbound text to a sandbox number: the same form fields as Twilio's
// (From, To, Body, NumMedia, MediaUrl0…; MessageSid optional) and a member's bearer token.
func (h *Handler) sandboxSMS(w http.ResponseWriter, r *http.Request) {
	check, ok := h.sandboxMember(w, r)
	if !ok {
		return
	}
	form, ok := readCallbackForm(w, r)
	if !ok {
		return
	}
	if form.Get("MessageSid") == "" {
		form.Set("MessageSid", newSandboxSID())
	}
	in, err := carrier.ParseInboundSMS(form)
	if err == nil && !store.ValidE164(in.From) {
		// A contact is a phone number; the error names the form's own field, as for a missing From.
		err = &carrier.ParseError{Field: "From", Message: store.E164Message}
	}
	if err == nil {
		err = h.receiveSMS(r, store.ProviderSandbox, in, check)
	}
	if err != nil {
		writeSandboxError(w, r, form.Get("To"), err)
		return
	}
	writeTwiML(w, "")
}

// sandboxVoice plays an inbound call to a sandbox number (CallSid optional).
func (h *Handler) sandboxVoice(w http.ResponseWriter, r *http.Request) {
	check, ok := h.sandboxMember(w, r)
	if !ok {
		return
	}
	form, ok := readCallbackForm(w, r)
	if !ok {
		return
	}
	if form.Get("CallSid") == "" {
		form.Set("CallSid", "CA"+newSandboxSID()[2:])
	}
	greeting, err := h.receiveCall(r, form, check)
	if err != nil {
		writeSandboxError(w, r, form.Get("To"), err)
		return
	}
	writeTwiML(w, greeting)
}

// newSandboxSID makes a Twilio-shaped id for a sandbox text that came without one.
func newSandboxSID() string {
	b := make([]byte, 16)
	_, _ = rand.Read(b)
	return "SM" + hex.EncodeToString(b)
}
