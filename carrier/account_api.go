package carrier

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"strings"
	"time"
)

// The carriers' account APIs (numbers, search, purchase, webhook settings) answer an
// administrator at a page, not the dispatcher: every call has a short deadline, and every
// failure becomes an *APIError that says in words what happened, without a secret in it.

// DefaultAPITimeout bounds one call to a carrier's account API: long enough for a purchase,
// short enough that a page waiting on a carrier that hangs answers while the person still waits.
const DefaultAPITimeout = 20 * time.Second

// apiMaxBody bounds what is read of an answer: a page of 50 numbers with all their fields is
// tens of kilobytes, so anything past this is not the carrier speaking.
const apiMaxBody = 1 << 20

// ErrorKind says what kind of failure an APIError is.
type ErrorKind int

// Kinds of APIError.
const (
	KindAuth        ErrorKind = iota + 1 // the credentials were refused
	KindNotFound                         // no such number (or account) there
	KindTaken                            // the number was bought by someone else meanwhile
	KindNoNumbers                        // the search found no number for sale
	KindRefused                          // any other refusal, in the carrier's words
	KindTimeout                          // no answer within the deadline
	KindUnreachable                      // no connection
	KindServer                           // the carrier failed (5xx) or asked to slow down (429)
	KindGarbage                          // an answer that is not the carrier's documented JSON
)

// APIError is a call to a carrier's account API that did not do what was asked. Its message is
// a sentence for the page; it never holds a credential.
type APIError struct {
	Carrier string // "Twilio" or "Telnyx"
	Kind    ErrorKind
	Status  int    // the HTTP status, 0 when no answer came
	Code    string // the carrier's error code, when it gave one
	Detail  string // the carrier's own words, when it gave some
	Wait    time.Duration
}

func (e *APIError) Error() string {
	said := e.said()
	switch e.Kind {
	case KindAuth:
		return e.Carrier + " said: authentication failed" + said + ". Check the credentials and try again."
	case KindNotFound:
		return e.Carrier + " has no such number in this account" + said + "."
	case KindTaken:
		return "That number is no longer available at " + e.Carrier + ": someone else took it meanwhile. Search again and choose another."
	case KindNoNumbers:
		return e.Carrier + " has no numbers for sale that match this search. Try another area code or city."
	case KindTimeout:
		return fmt.Sprintf("%s did not answer within %s. Try again in a moment.", e.Carrier, e.Wait)
	case KindUnreachable:
		return "Switchboard could not reach " + e.Carrier + said + ". Try again in a moment."
	case KindServer:
		return fmt.Sprintf("%s had a problem (HTTP %d)%s. Try again in a moment.", e.Carrier, e.Status, said)
	case KindGarbage:
		return fmt.Sprintf("%s's answer could not be read (HTTP %d). Try again in a moment.", e.Carrier, e.Status)
	default:
		if e.Detail == "" && e.Code == "" {
			return fmt.Sprintf("%s refused the request (HTTP %d).", e.Carrier, e.Status)
		}
		return e.Carrier + " said: " + strings.TrimSuffix(e.Detail, ".") + codeSuffix(e.Code) + "."
	}
}

// said is " (code: words)" from what the carrier said, or "".
func (e *APIError) said() string {
	switch {
	case e.Code != "" && e.Detail != "":
		return " (" + e.Code + ": " + strings.TrimSuffix(e.Detail, ".") + ")"
	case e.Code != "":
		return " (" + e.Code + ")"
	case e.Detail != "":
		return " (" + strings.TrimSuffix(e.Detail, ".") + ")"
	}
	return ""
}

func codeSuffix(code string) string {
	if code == "" {
		return ""
	}
	return " (" + code + ")"
}

// IsKind reports whether err is an *APIError of kind.
func IsKind(err error, kind ErrorKind) bool {
	var e *APIError
	return errors.As(err, &e) && e.Kind == kind
}

// apiClient makes the calls of one carrier's account API: its name for messages, how it signs a
// request, how it reads an error answer, and the secrets no error may carry.
type apiClient struct {
	name    string
	client  *http.Client
	timeout time.Duration
	sign    func(*http.Request)
	// refusal reads a 4xx or 5xx answer into an APIError (Kind, Code, Detail).
	refusal func(status int, body []byte) *APIError
	secrets []string
}

// do sends one request and decodes a 2xx JSON answer into out (nil: the answer is not read).
// A body is sent as contentType. Every failure is an *APIError.
func (c *apiClient) do(ctx context.Context, method, url, contentType string, body io.Reader, out any) error {
	ctx, cancel := context.WithTimeout(ctx, c.timeout)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, method, url, body)
	if err != nil {
		return &APIError{Carrier: c.name, Kind: KindUnreachable, Detail: "bad address"}
	}
	c.sign(req)
	if contentType != "" {
		req.Header.Set("Content-Type", contentType)
	}
	req.Header.Set("Accept", "application/json")
	req.Header.Set("User-Agent", "switchboard")
	resp, err := c.client.Do(req)
	if err != nil {
		if errors.Is(err, context.DeadlineExceeded) || ctx.Err() != nil {
			return &APIError{Carrier: c.name, Kind: KindTimeout, Wait: c.timeout}
		}
		return &APIError{Carrier: c.name, Kind: KindUnreachable, Detail: c.scrub(shortNetError(err))}
	}
	defer resp.Body.Close()
	answer, err := io.ReadAll(io.LimitReader(resp.Body, apiMaxBody+1))
	if err != nil {
		if ctx.Err() != nil {
			return &APIError{Carrier: c.name, Kind: KindTimeout, Wait: c.timeout}
		}
		return &APIError{Carrier: c.name, Kind: KindUnreachable, Status: resp.StatusCode, Detail: "the answer was cut off"}
	}
	if len(answer) > apiMaxBody {
		return &APIError{Carrier: c.name, Kind: KindGarbage, Status: resp.StatusCode}
	}
	if resp.StatusCode < 200 || resp.StatusCode > 299 {
		e := c.refusal(resp.StatusCode, answer)
		e.Carrier, e.Status = c.name, resp.StatusCode
		e.Code, e.Detail = clip(c.scrub(e.Code), 20), clip(c.scrub(e.Detail), 300)
		return e
	}
	if out == nil {
		return nil
	}
	if err := json.Unmarshal(answer, out); err != nil {
		return &APIError{Carrier: c.name, Kind: KindGarbage, Status: resp.StatusCode}
	}
	return nil
}

// garbage is the error of a 2xx answer that decoded but lacks what the call needs.
func (c *apiClient) garbage(status int) *APIError {
	return &APIError{Carrier: c.name, Kind: KindGarbage, Status: status}
}

// scrub removes the secrets from s: the far end's words and the transport's are not ours.
func (c *apiClient) scrub(s string) string {
	for _, sec := range c.secrets {
		if sec != "" {
			s = strings.ReplaceAll(s, sec, "[redacted]")
		}
	}
	return s
}

// classifyStatus is the kind of a refusal by its HTTP status alone.
func classifyStatus(status int) ErrorKind {
	switch {
	case status == http.StatusUnauthorized || status == http.StatusForbidden:
		return KindAuth
	case status == http.StatusNotFound:
		return KindNotFound
	case status == http.StatusTooManyRequests || status >= 500:
		return KindServer
	}
	return KindRefused
}

// shortNetError is the end of a transport error ("connection refused"), without the URL.
func shortNetError(err error) string {
	s := err.Error()
	if i := strings.LastIndex(s, ": "); i >= 0 {
		s = s[i+2:]
	}
	return clip(s, 120)
}

// clip cuts s to at most n bytes on a rune boundary and makes it one line.
func clip(s string, n int) string {
	s = strings.Join(strings.Fields(s), " ")
	if len(s) <= n {
		return s
	}
	for n > 0 && !isRuneStart(s[n]) {
		n--
	}
	return s[:n] + "…"
}

func isRuneStart(b byte) bool { return b&0xC0 != 0x80 }

// noRedirects keeps a client from following redirects: the account APIs never redirect, and a
// redirect must not carry the credentials anywhere.
func noRedirects(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }
