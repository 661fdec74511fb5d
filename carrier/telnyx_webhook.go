package carrier

import (
	"crypto/ed25519"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"net/url"
	"strconv"
	"strings"
	"time"
)

// Telnyx signs each webhook with the account's Ed25519 key: the header telnyx-signature-ed25519
// holds the base64 signature of "{telnyx-timestamp}|{raw body}", telnyx-timestamp the Unix time
// in seconds. A webhook looks like:
//
//	{"data":{"event_type":"message.received","id":"…","occurred_at":"…",
//	         "payload":{"id":"…","from":{"phone_number":"+1…"},"to":[{"phone_number":"+1…","status":"…"}],
//	                    "text":"…","media":[{"url":"https://…","content_type":"image/jpeg"}],
//	                    "errors":[{"code":"40002","title":"…"}]}},
//	 "meta":{"attempt":1}}

// Header names of a Telnyx webhook signature.
const (
	TelnyxSignatureHeader = "telnyx-signature-ed25519"
	TelnyxTimestampHeader = "telnyx-timestamp"
	// TelnyxTolerance is how far a webhook's timestamp may be from now: a captured webhook
	// cannot be replayed later than this.
	TelnyxTolerance = 5 * time.Minute
)

// Telnyx event types Switchboard acts on.
const (
	TelnyxMessageReceived  = "message.received"
	TelnyxMessageSent      = "message.sent"
	TelnyxMessageFinalized = "message.finalized"
)

// ParseTelnyxPublicKey reads the account's public key as Telnyx shows it: base64 of the 32 bytes.
func ParseTelnyxPublicKey(s string) (ed25519.PublicKey, error) {
	raw, err := base64.StdEncoding.DecodeString(strings.TrimSpace(s))
	if err != nil || len(raw) != ed25519.PublicKeySize {
		return nil, fmt.Errorf("want the base64 of a %d-byte Ed25519 public key, as the Telnyx portal shows it", ed25519.PublicKeySize)
	}
	return ed25519.PublicKey(raw), nil
}

// ErrTelnyxSignature is a webhook whose signature is missing or wrong, or whose timestamp is
// missing or too far from now.
var ErrTelnyxSignature = errors.New("telnyx webhook signature is missing, invalid or stale")

// VerifyTelnyxSignature checks a webhook: the signature must be valid for pub over
// "{timestamp}|{body}", and the timestamp within TelnyxTolerance of now. A nil key refuses
// everything.
func VerifyTelnyxSignature(pub ed25519.PublicKey, body []byte, timestamp, signature string, now time.Time) error {
	if len(pub) != ed25519.PublicKeySize || timestamp == "" || signature == "" {
		return ErrTelnyxSignature
	}
	secs, err := strconv.ParseInt(strings.TrimSpace(timestamp), 10, 64)
	if err != nil {
		return ErrTelnyxSignature
	}
	if d := now.Sub(time.Unix(secs, 0)); d > TelnyxTolerance || d < -TelnyxTolerance {
		return ErrTelnyxSignature
	}
	sig, err := base64.StdEncoding.DecodeString(strings.TrimSpace(signature))
	if err != nil || len(sig) != ed25519.SignatureSize {
		return ErrTelnyxSignature
	}
	msg := make([]byte, 0, len(timestamp)+1+len(body))
	msg = append(append(append(msg, timestamp...), '|'), body...)
	if !ed25519.Verify(pub, msg, sig) {
		return ErrTelnyxSignature
	}
	return nil
}

// ErrNotTelnyxEvent is a body that is not a Telnyx webhook event at all (not JSON, or no
// data.event_type and data.payload object).
var ErrNotTelnyxEvent = errors.New("not a Telnyx webhook event: want JSON with data.event_type and data.payload")

// TelnyxEvent is a webhook, parsed. Type is data.event_type. For message.received SMS is the
// inbound message; for message.sent and message.finalized Status is the receipt in the shape the
// Receiver takes (Status "sent", "delivered" or "failed" with ErrorCode; "" for another final
// status, which changes nothing). Other event types carry nothing.
type TelnyxEvent struct {
	Type   string
	SMS    InboundSMS
	Status StatusUpdate
}

type telnyxPhone struct {
	PhoneNumber string `json:"phone_number"`
	Status      string `json:"status"`
}

type telnyxPayload struct {
	ID    string        `json:"id"`
	From  telnyxPhone   `json:"from"`
	To    []telnyxPhone `json:"to"`
	Text  string        `json:"text"`
	Media []struct {
		URL string `json:"url"`
	} `json:"media"`
	Errors []telnyxError `json:"errors"`
}

// ParseTelnyxEvent reads a webhook body. A body that is no Telnyx event is ErrNotTelnyxEvent; an
// event of a known type with a field that cannot be used is a *ParseError naming its JSON path.
func ParseTelnyxEvent(body []byte) (TelnyxEvent, error) {
	var env struct {
		Data *struct {
			EventType string          `json:"event_type"`
			Payload   json.RawMessage `json:"payload"`
		} `json:"data"`
	}
	if err := json.Unmarshal(body, &env); err != nil || env.Data == nil || env.Data.EventType == "" ||
		len(env.Data.Payload) == 0 || env.Data.Payload[0] != '{' {
		return TelnyxEvent{}, ErrNotTelnyxEvent
	}
	ev := TelnyxEvent{Type: env.Data.EventType}
	switch ev.Type {
	case TelnyxMessageReceived, TelnyxMessageSent, TelnyxMessageFinalized:
	default:
		return ev, nil
	}
	var p telnyxPayload
	if err := json.Unmarshal(env.Data.Payload, &p); err != nil {
		return TelnyxEvent{}, fieldErr("data.payload", "not a message: %v", clipForError(err.Error()))
	}
	var err error
	if ev.Type != TelnyxMessageReceived {
		ev.Status, err = p.receipt(ev.Type, "data.payload")
	} else {
		ev.SMS, err = p.inbound("data.payload")
	}
	if err != nil {
		return TelnyxEvent{}, err
	}
	return ev, nil
}

// id reads the message's id, named at by its JSON path.
func (p *telnyxPayload) id(at string) (string, error) {
	// The Twilio form parsers hold the rules for ids, senders and numbers; the fields are named
	// by their JSON paths.
	form := url.Values{}
	form.Set(at+".id", p.ID)
	return parseSID(form, at+".id")
}

// to is the message's first addressee, the only one Switchboard sends to or receives at.
func (p *telnyxPayload) to() telnyxPhone {
	if len(p.To) > 0 {
		return p.To[0]
	}
	return telnyxPhone{}
}

// receipt is the message's status as the Receiver takes it, as an event of eventType reports it
// (message.sent, or message.finalized as a retrieved message reports it too).
func (p *telnyxPayload) receipt(eventType, at string) (StatusUpdate, error) {
	id, err := p.id(at)
	if err != nil {
		return StatusUpdate{}, err
	}
	to := p.to()
	st := StatusUpdate{MessageSID: id, Status: telnyxStatus(eventType, to.Status)}
	if st.Status == "failed" {
		st.ErrorCode = strings.ToLower(strings.TrimSpace(to.Status))
		if len(p.Errors) > 0 && p.Errors[0].Code != "" {
			st.ErrorCode = clipForError(p.Errors[0].Code)
		}
	}
	return st, nil
}

// inbound is the message as an inbound text; at is the JSON path its fields are named under.
func (p *telnyxPayload) inbound(at string) (InboundSMS, error) {
	id, err := p.id(at)
	if err != nil {
		return InboundSMS{}, err
	}
	form := url.Values{}
	form.Set(at+".from.phone_number", p.From.PhoneNumber)
	form.Set(at+".to[0].phone_number", p.to().PhoneNumber)
	in := InboundSMS{MessageSID: id, Text: strings.ToValidUTF8(p.Text, "\uFFFD")}
	if in.From, err = parseSender(form, at+".from.phone_number"); err != nil {
		return InboundSMS{}, err
	}
	if in.To, err = parseE164(form, at+".to[0].phone_number"); err != nil {
		return InboundSMS{}, err
	}
	if len(p.Media) > MaxInboundMedia {
		return InboundSMS{}, fieldErr(at+".media", "want at most %d items, got %d", MaxInboundMedia, len(p.Media))
	}
	for _, m := range p.Media {
		if u, ok := inboundMediaURL(m.URL); ok {
			in.Media = append(in.Media, u)
		}
	}
	return in, nil
}

// telnyxStatus maps a receipt to the Receiver's statuses: message.sent is sent; a finalized
// message is delivered, or failed when Telnyx could not send or deliver it. Other finalized
// statuses (delivery_unconfirmed) map to "" and change nothing.
func telnyxStatus(eventType, status string) string {
	status = strings.ToLower(strings.TrimSpace(status))
	if eventType == TelnyxMessageSent {
		return "sent"
	}
	switch status {
	case "delivered":
		return "delivered"
	case "delivery_failed", "sending_failed":
		return "failed"
	}
	return "" // the Receiver ignores it
}
