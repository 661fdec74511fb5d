package carrier

import (
	"fmt"
	"net/url"
	"regexp"
	"strconv"
	"strings"
	"time"
	"unicode"
	"unicode/utf8"
)

// The callback forms Twilio posts (and the sandbox endpoints accept in the same shape), parsed
// into plain structs. Parsing is all it does: signature checks, routing and storage belong to
// the caller. Errors name the field at fault, and no input panics.

// ParseError is a callback form that cannot be read: Field names the form field at fault.
type ParseError struct {
	Field, Message string
}

func (e *ParseError) Error() string { return e.Field + ": " + e.Message }

func fieldErr(field, format string, args ...any) error {
	return &ParseError{Field: field, Message: fmt.Sprintf(format, args...)}
}

// MaxInboundMedia is the most media a parsed inbound message carries: Twilio's own limit per
// MMS. A NumMedia above it is malformed.
const MaxInboundMedia = 10

// maxSIDLen and maxSenderLen bound identifiers that become index keys and log fields; Twilio's
// SIDs are 34 characters and the longest sender (E.164, short code, alphanumeric id) far less.
const (
	maxSIDLen    = 64
	maxSenderLen = 64
)

var e164Pattern = regexp.MustCompile(`^\+[1-9][0-9]{1,14}$`)

// InboundSMS is an inbound text or MMS. From is the sender as the carrier gave it, trimmed: an
// E.164 number, or a short code or alphanumeric sender the caller may refuse. To is E.164.
// Text is the body as sent (not trimmed: keywords trim for themselves), with invalid UTF-8
// replaced. Media holds the absolute http(s) media URLs in the carrier's order.
type InboundSMS struct {
	MessageSID, From, To, Text string
	Media                      []string
	// SentAt is when the contact sent it, for a text recovered from the carrier's listing after
	// its webhook was missed; zero for a webhook.
	SentAt time.Time
}

// StatusUpdate is a delivery receipt. Status is Twilio's MessageStatus lower-cased ("sent",
// "delivered", "undelivered", "failed", and others the caller may ignore); ErrorCode is
// Twilio's numeric error code or "".
type StatusUpdate struct {
	MessageSID, Status, ErrorCode string
}

// InboundCall is an inbound voice call: who called which number.
type InboundCall struct {
	CallSID, From, To string
}

// ParseInboundSMS reads Twilio's inbound message form: MessageSid, From, To, Body, NumMedia and
// MediaUrl0…MediaUrl{NumMedia-1}. MessageSid, From and an E.164 To are required; NumMedia, when
// present, must be an integer from 0 to MaxInboundMedia. Media URLs that are not absolute
// http(s) URLs are dropped rather than failing the message: the text still deserves delivery.
func ParseInboundSMS(form url.Values) (InboundSMS, error) {
	var in InboundSMS
	var err error
	if in.MessageSID, err = parseSID(form, "MessageSid"); err != nil {
		return InboundSMS{}, err
	}
	if in.From, err = parseSender(form, "From"); err != nil {
		return InboundSMS{}, err
	}
	if in.To, err = parseE164(form, "To"); err != nil {
		return InboundSMS{}, err
	}
	in.Text = strings.ToValidUTF8(form.Get("Body"), "\uFFFD")

	n := 0
	if raw := strings.TrimSpace(form.Get("NumMedia")); raw != "" {
		n, err = strconv.Atoi(raw)
		if err != nil || n < 0 || n > MaxInboundMedia {
			return InboundSMS{}, fieldErr("NumMedia", "want an integer from 0 to %d, got %q", MaxInboundMedia, clipForError(raw))
		}
	}
	for i := range n {
		if u, ok := inboundMediaURL(form.Get("MediaUrl" + strconv.Itoa(i))); ok {
			in.Media = append(in.Media, u)
		}
	}
	return in, nil
}

// ParseStatus reads Twilio's status callback form: MessageSid and MessageStatus are required,
// ErrorCode is optional but must be digits when present.
func ParseStatus(form url.Values) (StatusUpdate, error) {
	var st StatusUpdate
	var err error
	if st.MessageSID, err = parseSID(form, "MessageSid"); err != nil {
		return StatusUpdate{}, err
	}
	st.Status = strings.ToLower(strings.TrimSpace(form.Get("MessageStatus")))
	if st.Status == "" {
		return StatusUpdate{}, fieldErr("MessageStatus", "missing")
	}
	if len(st.Status) > 32 || strings.IndexFunc(st.Status, func(r rune) bool { return (r < 'a' || r > 'z') && r != '_' }) >= 0 {
		return StatusUpdate{}, fieldErr("MessageStatus", "want a lower-case word, got %q", clipForError(st.Status))
	}
	st.ErrorCode = strings.TrimSpace(form.Get("ErrorCode"))
	if st.ErrorCode != "" && (len(st.ErrorCode) > 10 || strings.IndexFunc(st.ErrorCode, func(r rune) bool { return r < '0' || r > '9' }) >= 0) {
		return StatusUpdate{}, fieldErr("ErrorCode", "want a number, got %q", clipForError(st.ErrorCode))
	}
	return st, nil
}

// ParseCall reads Twilio's voice callback form: CallSid, From and an E.164 To, all required.
func ParseCall(form url.Values) (InboundCall, error) {
	var c InboundCall
	var err error
	if c.CallSID, err = parseSID(form, "CallSid"); err != nil {
		return InboundCall{}, err
	}
	if c.From, err = parseSender(form, "From"); err != nil {
		return InboundCall{}, err
	}
	if c.To, err = parseE164(form, "To"); err != nil {
		return InboundCall{}, err
	}
	return c, nil
}

// parseSID reads a carrier id: printable ASCII without spaces, at most maxSIDLen bytes. It
// becomes a de-duplication key, so it must be a plain token.
func parseSID(form url.Values, field string) (string, error) {
	v := strings.TrimSpace(form.Get(field))
	if v == "" {
		return "", fieldErr(field, "missing")
	}
	if len(v) > maxSIDLen || strings.IndexFunc(v, func(r rune) bool { return r <= ' ' || r > '~' }) >= 0 {
		return "", fieldErr(field, "want up to %d printable ASCII characters, got %q", maxSIDLen, clipForError(v))
	}
	return v, nil
}

// parseSender reads a sender: anything printable and short, since short codes and
// alphanumeric senders are real. Whether to accept a non-E.164 sender is the caller's call.
func parseSender(form url.Values, field string) (string, error) {
	v := strings.TrimFunc(form.Get(field), unicode.IsSpace)
	if v == "" {
		return "", fieldErr(field, "missing")
	}
	if len(v) > maxSenderLen || !utf8.ValidString(v) || strings.IndexFunc(v, unicode.IsControl) >= 0 {
		return "", fieldErr(field, "want a phone number or sender id, got %q", clipForError(v))
	}
	return v, nil
}

// parseE164 reads a number of ours: strict E.164, as every stored number is.
func parseE164(form url.Values, field string) (string, error) {
	v := strings.TrimFunc(form.Get(field), unicode.IsSpace)
	if v == "" {
		return "", fieldErr(field, "missing")
	}
	if !e164Pattern.MatchString(v) {
		return "", fieldErr(field, "want an E.164 number such as +14155550123, got %q", clipForError(v))
	}
	return v, nil
}

// inboundMediaURL keeps a media URL only when it is an absolute http(s) URL with a host: anything
// else could not be fetched and might be a script or file URL shown in the inbox.
func inboundMediaURL(raw string) (string, bool) {
	raw = strings.TrimSpace(raw)
	if raw == "" || !utf8.ValidString(raw) {
		return "", false
	}
	u, err := url.Parse(raw)
	if err != nil || u.Host == "" || (u.Scheme != "http" && u.Scheme != "https") {
		return "", false
	}
	return raw, true
}

// clipForError shortens a bad value quoted in an error, so an error line stays a line.
func clipForError(s string) string {
	const max = 40
	if len(s) <= max {
		return s
	}
	cut := max
	for cut > 0 && !utf8.RuneStart(s[cut]) {
		cut--
	}
	return s[:cut] + "…"
}
