package carrier

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"strings"
	"time"
)

// Telnyx's wire contract (v2 Messaging API), kept beside the adapter so a reader sees both:
//
//	POST {BaseURL}/v2/messages
//	Authorization: Bearer {API key}
//	Content-Type: application/json
//	{"from":"+1…","to":"+1…","text":"…","media_urls":["https://…"],"webhook_url":"https://…"}
//
//	2xx → {"data":{"id":"40385f64-…","record_type":"message",…}}   accepted; data.id is the provider id
//	4xx → {"errors":[{"code":"40300","title":"…","detail":"…"}]}     permanent (40300: blocked by STOP)
//	429, 5xx, network errors, timeouts                              transient, Retry-After honoured
const (
	// DefaultTelnyxBaseURL is Telnyx's API root, used when TelnyxConfig.BaseURL is empty.
	DefaultTelnyxBaseURL = "https://api.telnyx.com"

	// telnyxCodeStopped is "Blocked due to STOP message": the recipient texted STOP at the
	// carrier, so Switchboard records an opt-out too.
	telnyxCodeStopped = "40300"
)

// TelnyxConfig configures the Telnyx adapter. APIKey is a secret: it is sent only in the
// Authorization header and never appears in an error. BaseURL defaults to DefaultTelnyxBaseURL;
// tests point it at a local server. WebhookURL, when set, is sent as webhook_url on every
// message ({public URL}/carrier/telnyx/webhook). HTTPClient defaults to a client with a 30 s
// timeout that does not follow redirects.
type TelnyxConfig struct {
	APIKey     string
	BaseURL    string
	WebhookURL string
	HTTPClient *http.Client
}

// Telnyx is the Carrier that sends through Telnyx's v2 Messaging API. It is safe for
// concurrent use.
type Telnyx struct {
	key      string
	endpoint string
	webhook  string
	client   *http.Client
}

var _ Carrier = (*Telnyx)(nil)

// NewTelnyx returns the Telnyx adapter for cfg. It does not contact Telnyx; the caller (serve,
// add-number) refuses to start without a key.
func NewTelnyx(cfg TelnyxConfig) *Telnyx {
	base := strings.TrimRight(cfg.BaseURL, "/")
	if base == "" {
		base = DefaultTelnyxBaseURL
	}
	client := cfg.HTTPClient
	if client == nil {
		client = &http.Client{
			Timeout: twilioTimeout,
			// The Messages API never redirects: a redirect is an answer to classify, not follow.
			CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse },
		}
	}
	return &Telnyx{key: cfg.APIKey, endpoint: base + "/v2/messages", webhook: cfg.WebhookURL, client: client}
}

// Name is "telnyx", the value of a number's carrier field.
func (t *Telnyx) Name() string { return "telnyx" }

// telnyxSend is the JSON body of a send; text and media_urls are left out when empty.
type telnyxSend struct {
	From       string   `json:"from"`
	To         string   `json:"to"`
	Text       string   `json:"text,omitempty"`
	MediaURLs  []string `json:"media_urls,omitempty"`
	WebhookURL string   `json:"webhook_url,omitempty"`
}

// Send posts m to Telnyx's Messages API and returns data.id. Errors are a *PermanentError for a
// 4xx refusal in Telnyx's error shape ("telnyx <code>: <title>", Unsubscribed for 40300) or a
// *TransientError for what retrying can fix: 408, 429, 5xx, network errors, timeouts, and
// answers that cannot be understood. No error ever contains the API key.
func (t *Telnyx) Send(ctx context.Context, m Outbound) (string, error) {
	if m.Text == "" && len(m.Media) == 0 {
		return "", &PermanentError{Reason: "telnyx: message has neither text nor media"}
	}
	body, err := json.Marshal(telnyxSend{From: m.From, To: m.To, Text: m.Text, MediaURLs: m.Media, WebhookURL: t.webhook})
	if err != nil {
		return "", &PermanentError{Reason: "telnyx: encoding request: " + err.Error()}
	}
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, t.endpoint, bytes.NewReader(body))
	if err != nil {
		return "", t.transient(0, "telnyx: building request: %v", err)
	}
	req.Header.Set("Authorization", "Bearer "+t.key)
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json")
	req.Header.Set("User-Agent", "switchboard")

	resp, err := t.client.Do(req)
	if err != nil {
		return "", t.transient(0, "telnyx: request failed: %v", err)
	}
	defer resp.Body.Close()
	answer, err := io.ReadAll(io.LimitReader(resp.Body, twilioMaxBody+1))
	retryAfter := parseRetryAfter(resp.Header.Get("Retry-After"), time.Now())
	if err != nil {
		return "", t.transient(retryAfter, "telnyx: HTTP %d: reading answer: %v", resp.StatusCode, err)
	}
	if len(answer) > twilioMaxBody {
		return "", t.transient(retryAfter, "telnyx: HTTP %d: answer larger than %d bytes", resp.StatusCode, twilioMaxBody)
	}
	switch code := resp.StatusCode; {
	case code >= 200 && code < 300:
		var ok struct {
			Data struct {
				ID string `json:"id"`
			} `json:"data"`
		}
		if err := json.Unmarshal(answer, &ok); err != nil {
			return "", t.transient(retryAfter, "telnyx: HTTP %d: unreadable answer", code)
		}
		if ok.Data.ID == "" {
			return "", t.transient(retryAfter, "telnyx: HTTP %d: answer has no data.id", code)
		}
		return ok.Data.ID, nil
	case code == http.StatusTooManyRequests || code == http.StatusRequestTimeout || code >= 500:
		reason := ""
		if e, ok := firstTelnyxError(answer); ok {
			reason = fmt.Sprintf(" (telnyx %s: %s)", e.Code, e.Title)
		}
		return "", t.transient(retryAfter, "telnyx: HTTP %d%s", code, reason)
	case code >= 400:
		e, ok := firstTelnyxError(answer)
		if !ok {
			// Not Telnyx's error shape (a proxy's page, say): we cannot know it is final.
			return "", t.transient(retryAfter, "telnyx: HTTP %d: unreadable error answer", code)
		}
		return "", &PermanentError{
			Reason:       t.scrub(fmt.Sprintf("telnyx %s: %s", e.Code, e.Title)),
			Unsubscribed: e.Code == telnyxCodeStopped,
		}
	default:
		return "", t.transient(retryAfter, "telnyx: unexpected HTTP %d", code)
	}
}

// telnyxError is one entry of a Telnyx error answer's "errors". Telnyx sends code as a string
// of digits; a number is accepted too.
type telnyxError struct {
	Code  string
	Title string
}

func (e *telnyxError) UnmarshalJSON(b []byte) error {
	var raw struct {
		Code  json.RawMessage `json:"code"`
		Title string          `json:"title"`
	}
	if err := json.Unmarshal(b, &raw); err != nil {
		return err
	}
	e.Title = strings.TrimSpace(raw.Title)
	var s string
	if json.Unmarshal(raw.Code, &s) == nil {
		e.Code = strings.TrimSpace(s)
		return nil
	}
	var n json.Number
	if json.Unmarshal(raw.Code, &n) == nil {
		e.Code = n.String()
	}
	return nil
}

// firstTelnyxError reads errors[0] of an answer; false when there is none with a code.
func firstTelnyxError(body []byte) (telnyxError, bool) {
	var ans struct {
		Errors []telnyxError `json:"errors"`
	}
	if json.Unmarshal(body, &ans) != nil || len(ans.Errors) == 0 || ans.Errors[0].Code == "" {
		return telnyxError{}, false
	}
	return ans.Errors[0], true
}

// transient builds a TransientError whose reason cannot leak the API key.
func (t *Telnyx) transient(after time.Duration, format string, args ...any) error {
	return &TransientError{Reason: t.scrub(fmt.Sprintf(format, args...)), RetryAfter: after}
}

// scrub removes the API key from s: error strings from the transport and text from the far end
// are not ours to trust.
func (t *Telnyx) scrub(s string) string {
	if t.key == "" {
		return s
	}
	return strings.ReplaceAll(s, t.key, "[redacted]")
}
