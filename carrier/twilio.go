package carrier

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"time"
)

// Twilio's wire contract, kept beside the adapter so a reader sees both at once:
//
//	POST {BaseURL}/2010-04-01/Accounts/{AccountSid}/Messages.json
//	Authorization: Basic base64(AccountSid:AuthToken)
//	Content-Type: application/x-www-form-urlencoded
//	To=…&From=…[&Body=…][&MediaUrl=…]…[&StatusCallback=…]
//
//	2xx → {"sid":"SM…", …}                          accepted; sid is the provider id
//	4xx → {"code":21211,"message":"…","status":400}  permanent, except 20429 and 21611
//	429, 5xx, network errors, timeouts               transient, Retry-After honoured
const (
	// DefaultTwilioBaseURL is Twilio's REST API root, used when TwilioConfig.BaseURL is empty.
	DefaultTwilioBaseURL = "https://api.twilio.com"

	// twilioTimeout bounds a whole send when the caller gives no client: a hung connection
	// must not hold a dispatcher slot forever, and 30 s is far above Twilio's usual latency.
	twilioTimeout = 30 * time.Second

	// twilioMaxBody bounds what we read of an answer: a message resource or an error is a few
	// hundred bytes, so anything past this is not Twilio speaking and is not worth the memory.
	twilioMaxBody = 64 << 10

	// twilioCodeUnsubscribed is "Attempt to send to unsubscribed recipient": the recipient
	// texted STOP at the carrier, so Switchboard records an opt-out too.
	twilioCodeUnsubscribed = 21610
)

// twilioTransientCodes are 4xx error codes that retrying can fix: 20429 is Twilio's "too many
// requests" in a body, and 21611 is "this From number has exceeded its queue", which drains.
var twilioTransientCodes = map[int]bool{20429: true, 21611: true}

// TwilioConfig configures the Twilio adapter. AccountSID and AuthToken are the account's
// credentials (the token is a secret: it is sent only in the Authorization header and never
// appears in an error); an API key (APIKeySID, APIKeySecret), when set, signs the calls
// instead. BaseURL defaults to DefaultTwilioBaseURL; tests point it at a local server.
// StatusCallbackURL, when set, is sent as StatusCallback on every message ({public
// URL}/carrier/twilio/status). HTTPClient defaults to a client with a 30 s timeout that
// does not follow redirects.
type TwilioConfig struct {
	AccountSID        string
	AuthToken         string
	APIKeySID         string
	APIKeySecret      string
	BaseURL           string
	StatusCallbackURL string
	HTTPClient        *http.Client
}

// Twilio is the Carrier that sends through Twilio's Messages API. It is safe for concurrent
// use.
type Twilio struct {
	// user and token are the HTTP Basic credentials: the Account SID and Auth Token, or the
	// API key's SID and secret.
	user, token string
	endpoint    string
	callback    string
	client      *http.Client
}

var _ Carrier = (*Twilio)(nil)

// NewTwilio returns the Twilio adapter for cfg. It does not contact Twilio: missing credentials
// show up as Twilio's own permanent 401 refusal on the first send, and the caller (serve,
// add-number) is the one to refuse to start without them.
func NewTwilio(cfg TwilioConfig) *Twilio {
	base := strings.TrimRight(cfg.BaseURL, "/")
	if base == "" {
		base = DefaultTwilioBaseURL
	}
	client := cfg.HTTPClient
	if client == nil {
		client = &http.Client{
			Timeout: twilioTimeout,
			// A redirect would turn the POST into a GET and drop the form; the Messages API
			// never redirects, so a redirect is an answer to classify, not to follow.
			CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse },
		}
	}
	user, token := cfg.AccountSID, cfg.AuthToken
	if cfg.APIKeySID != "" {
		user, token = cfg.APIKeySID, cfg.APIKeySecret
	}
	return &Twilio{
		user:     user,
		token:    token,
		endpoint: base + "/2010-04-01/Accounts/" + url.PathEscape(cfg.AccountSID) + "/Messages.json",
		callback: cfg.StatusCallbackURL,
		client:   client,
	}
}

// Name is "twilio", the value of a number's carrier field.
func (t *Twilio) Name() string { return "twilio" }

// Send posts m to Twilio's Messages API and returns the message resource's sid. Errors are a
// *PermanentError for a 4xx refusal with a JSON code ("twilio <code>: <message>", Unsubscribed
// for 21610) or a *TransientError for everything retrying can fix: 429, 5xx, codes 20429 and
// 21611, network errors, timeouts, a cancelled ctx and answers that cannot be understood (a
// 2xx without a sid included, since we cannot tell the message was accepted). RetryAfter
// carries Twilio's Retry-After header when it sent one. No error ever contains the auth token.
func (t *Twilio) Send(ctx context.Context, m Outbound) (string, error) {
	if m.Text == "" && len(m.Media) == 0 {
		// Twilio would refuse it (21602) after a round trip; the outcome is the same.
		return "", &PermanentError{Reason: "twilio: message has neither text nor media"}
	}
	form := url.Values{}
	form.Set("To", m.To)
	form.Set("From", m.From)
	if m.Text != "" {
		form.Set("Body", m.Text)
	}
	for _, u := range m.Media {
		form.Add("MediaUrl", u)
	}
	if t.callback != "" {
		form.Set("StatusCallback", t.callback)
	}

	req, err := http.NewRequestWithContext(ctx, http.MethodPost, t.endpoint, strings.NewReader(form.Encode()))
	if err != nil {
		// Only a malformed BaseURL gets here; retrying will not fix it but neither will failing
		// every queued message, so it is transient and visible in the retries.
		return "", t.transient(0, "twilio: building request: %v", err)
	}
	req.SetBasicAuth(t.user, t.token)
	req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	req.Header.Set("Accept", "application/json")
	req.Header.Set("User-Agent", "switchboard")

	resp, err := t.client.Do(req)
	if err != nil {
		return "", t.transient(0, "twilio: request failed: %v", err)
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(io.LimitReader(resp.Body, twilioMaxBody+1))
	retryAfter := parseRetryAfter(resp.Header.Get("Retry-After"), time.Now())
	if err != nil {
		return "", t.transient(retryAfter, "twilio: HTTP %d: reading answer: %v", resp.StatusCode, err)
	}
	if len(body) > twilioMaxBody {
		return "", t.transient(retryAfter, "twilio: HTTP %d: answer larger than %d bytes", resp.StatusCode, twilioMaxBody)
	}

	switch code := resp.StatusCode; {
	case code >= 200 && code < 300:
		var ok struct {
			SID string `json:"sid"`
		}
		if err := json.Unmarshal(body, &ok); err != nil {
			return "", t.transient(retryAfter, "twilio: HTTP %d: unreadable answer", code)
		}
		if ok.SID == "" {
			return "", t.transient(retryAfter, "twilio: HTTP %d: answer has no sid", code)
		}
		return ok.SID, nil
	case code == http.StatusTooManyRequests || code == http.StatusRequestTimeout || code >= 500:
		return "", t.transient(retryAfter, "twilio: HTTP %d%s", code, describeTwilioError(body))
	case code >= 400:
		var e twilioError
		if err := json.Unmarshal(body, &e); err != nil || e.Code == 0 {
			// Not Twilio's error shape (a proxy's page, say): we cannot know it is final.
			return "", t.transient(retryAfter, "twilio: HTTP %d: unreadable error answer", code)
		}
		if twilioTransientCodes[e.Code] {
			return "", t.transient(retryAfter, "twilio %d: %s", e.Code, t.scrub(strings.TrimSpace(e.Message)))
		}
		return "", &PermanentError{
			Reason:       fmt.Sprintf("twilio %d: %s", e.Code, t.scrub(strings.TrimSpace(e.Message))),
			Unsubscribed: e.Code == twilioCodeUnsubscribed,
		}
	default:
		// 1xx leftovers and 3xx: not an answer the Messages API gives.
		return "", t.transient(retryAfter, "twilio: unexpected HTTP %d", code)
	}
}

// twilioError is the JSON body of a Twilio REST error.
type twilioError struct {
	Code    int    `json:"code"`
	Message string `json:"message"`
}

// describeTwilioError adds Twilio's code and message to a transient reason when the body has
// them, so the retries in the log say what Twilio said.
func describeTwilioError(body []byte) string {
	var e twilioError
	if json.Unmarshal(body, &e) != nil || e.Code == 0 {
		return ""
	}
	return fmt.Sprintf(" (twilio %d: %s)", e.Code, strings.TrimSpace(e.Message))
}

// transient builds a TransientError whose reason cannot leak the auth token, whatever an
// error from net/http or an answer from the server happened to echo.
func (t *Twilio) transient(after time.Duration, format string, args ...any) error {
	return &TransientError{Reason: t.scrub(fmt.Sprintf(format, args...)), RetryAfter: after}
}

// scrub removes the auth token from s. Nothing we build puts it there, but error strings from
// the transport and messages from the far end are not ours to trust.
func (t *Twilio) scrub(s string) string {
	if t.token == "" {
		return s
	}
	return strings.ReplaceAll(s, t.token, "[redacted]")
}

// parseRetryAfter reads a Retry-After header (RFC 9110 §10.2.3): delay-seconds or an HTTP date.
// Anything else, and a date in the past, is 0: no advice, the dispatcher's own backoff applies.
func parseRetryAfter(v string, now time.Time) time.Duration {
	v = strings.TrimSpace(v)
	if v == "" {
		return 0
	}
	if secs, err := strconv.ParseInt(v, 10, 64); err == nil {
		if secs <= 0 {
			return 0
		}
		// Clamp before multiplying so an absurd value cannot overflow into a negative delay.
		const maxSecs = int64((1<<63 - 1) / int64(time.Second))
		if secs > maxSecs {
			secs = maxSecs
		}
		return time.Duration(secs) * time.Second
	}
	if when, err := http.ParseTime(v); err == nil {
		if d := when.Sub(now); d > 0 {
			return d
		}
	}
	return 0
}
