// Package assist asks the installation's own model (any OpenAI-compatible server: Ollama,
// llama.cpp's server, vLLM or a hosted one) for reply suggestions, summaries, translations and
// one-segment rewrites of a conversation.
//
// It promises three things. A request carries only what a Job holds: the conversation's latest
// messages, the contact's and the workspace's names, and the draft where the kind needs it. The
// customer's text is quoted as data under a system message that says so, never spliced into an
// instruction. And what the model answers is bounded (bytes read, characters kept, time taken)
// and only ever handed back as text for a person to read: this package sends, stores and
// shows nothing itself.
package assist

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/url"
	"strings"
	"time"

	"github.com/openai/openai-go/v3"
	"github.com/openai/openai-go/v3/option"
)

// Defaults of Config.
const (
	// DefaultTimeout bounds one job, from the request to the model's last word.
	DefaultTimeout = 30 * time.Second
	// DefaultMaxBody bounds the bytes read from one answer of the model: a server that streams
	// without end is cut there, whatever its chunks hold.
	DefaultMaxBody = 4 << 20
	// DefaultLimit is the most characters (code points) kept of one answer: the reply box's and
	// an internal note's limit, so a draft or a summary always fits where it goes.
	DefaultLimit = 1200
)

// MaxMessages is how many of the conversation's latest messages a job carries.
const MaxMessages = 20

// Config is the model server: its OpenAI-compatible base URL (with /v1 where the server puts
// it), the model's name and the key (sent as a bearer token, never logged or shown).
type Config struct {
	URL   string
	Model string
	Key   string
	// Timeout bounds one job (0: DefaultTimeout); MaxBody the bytes read from one answer (0:
	// DefaultMaxBody); Limit the characters kept (0: DefaultLimit).
	Timeout time.Duration
	MaxBody int64
	Limit   int
	// HTTPClient makes the requests (nil: a client of its own that ignores proxies' variables
	// for loopback and follows no redirect to another host).
	HTTPClient *http.Client
}

// Client talks to one model server. It is safe for concurrent use.
type Client struct {
	cfg    Config
	host   string
	chat   openai.ChatCompletionService
	models openai.ModelService
}

// CheckURL refuses a base URL that is not https, or plain http to a loopback address (a model
// on the same machine), with the reason in plain words. A key belongs in SWITCHBOARD_ASSIST_KEY,
// so a URL that carries a user or password is refused too.
func CheckURL(raw string) error {
	u, err := url.Parse(raw)
	if err != nil || u.Host == "" || (u.Scheme != "https" && u.Scheme != "http") {
		return fmt.Errorf("%q is not an http(s) URL such as https://llm.example.com/v1 or http://127.0.0.1:11434/v1", raw)
	}
	if u.User != nil {
		return fmt.Errorf("%q carries a user or password: put the key in SWITCHBOARD_ASSIST_KEY instead", redactURL(u))
	}
	if u.RawQuery != "" || u.Fragment != "" {
		return fmt.Errorf("%q has a query or fragment: give the server's base URL alone", raw)
	}
	if u.Scheme == "http" && !isLoopback(u.Hostname()) {
		return fmt.Errorf("%s is plain http to a host that is not this machine: the conversations would cross the network unencrypted; use https, or http only to 127.0.0.1, ::1 or localhost", raw)
	}
	return nil
}

func redactURL(u *url.URL) string {
	c := *u
	c.User = nil
	return c.Scheme + "://…@" + c.Host + c.Path
}

// isLoopback says whether host names this machine: localhost, or a loopback IP address.
func isLoopback(host string) bool {
	if strings.EqualFold(host, "localhost") {
		return true
	}
	ip := net.ParseIP(host)
	return ip != nil && ip.IsLoopback()
}

// New checks cfg and builds the client; it contacts nothing (Probe does).
func New(cfg Config) (*Client, error) {
	if err := CheckURL(cfg.URL); err != nil {
		return nil, err
	}
	if strings.TrimSpace(cfg.Model) == "" {
		return nil, errors.New("no model named: set -assist-model to the model's name as the server lists it (for Ollama, e.g. llama3.2)")
	}
	if cfg.Timeout <= 0 {
		cfg.Timeout = DefaultTimeout
	}
	if cfg.MaxBody <= 0 {
		cfg.MaxBody = DefaultMaxBody
	}
	if cfg.Limit <= 0 {
		cfg.Limit = DefaultLimit
	}
	if cfg.HTTPClient == nil {
		cfg.HTTPClient = defaultHTTPClient()
	}
	u, _ := url.Parse(cfg.URL) // checked above
	opts := []option.RequestOption{
		option.WithBaseURL(strings.TrimRight(cfg.URL, "/") + "/"),
		option.WithHTTPClient(cfg.HTTPClient),
		// A person is waiting: a failure is shown at once, not retried behind their back.
		option.WithMaxRetries(0),
		option.WithMiddleware(capBody(cfg.MaxBody)),
	}
	if cfg.Key != "" {
		opts = append(opts, option.WithAPIKey(cfg.Key))
	}
	// The services are built from these options alone: openai.NewClient would also read the
	// OPENAI_* variables of the environment, which are not this installation's settings.
	return &Client{cfg: cfg, host: u.Scheme + "://" + u.Host, chat: openai.NewChatCompletionService(opts...),
		models: openai.NewModelService(opts...)}, nil
}

// defaultHTTPClient follows redirects only on the same host (the key goes nowhere else) and
// waits at most 10 s to connect.
func defaultHTTPClient() *http.Client {
	t := http.DefaultTransport.(*http.Transport).Clone()
	t.DialContext = (&net.Dialer{Timeout: 10 * time.Second}).DialContext
	return &http.Client{Transport: t, CheckRedirect: func(req *http.Request, via []*http.Request) error {
		if len(via) >= 3 || req.URL.Host != via[0].URL.Host {
			return http.ErrUseLastResponse
		}
		return nil
	}}
}

// Host is where the requests go: scheme and host, as the settings page names it.
func (c *Client) Host() string { return c.host }

// Model is the model's name.
func (c *Client) Model() string { return c.cfg.Model }

// Timeout is how long a job may take.
func (c *Client) Timeout() time.Duration { return c.cfg.Timeout }

// Probe asks the server for its models (GET {url}/models), so that a server that cannot be
// reached or refuses the key stops the start with a plain reason. A server without that list
// (an answer other than 401 or 403) is reachable enough. It sends no conversation.
func (c *Client) Probe(ctx context.Context) error {
	ctx, cancel := context.WithTimeout(ctx, 10*time.Second)
	defer cancel()
	_, err := c.models.List(ctx)
	var apiErr *openai.Error
	switch {
	case err == nil:
		return nil
	case errors.As(err, &apiErr) && (apiErr.StatusCode == http.StatusUnauthorized || apiErr.StatusCode == http.StatusForbidden):
		return fmt.Errorf("the model server at %s refused the key (%d %s): check SWITCHBOARD_ASSIST_KEY", c.host, apiErr.StatusCode, http.StatusText(apiErr.StatusCode))
	case errors.As(err, &apiErr):
		return nil
	default:
		return fmt.Errorf("the model server at %s cannot be reached: %s", c.host, c.redact(plainNetError(err)))
	}
}

// plainNetError is the last, most telling part of a network error ("connection refused").
func plainNetError(err error) string {
	var op *net.OpError
	if errors.As(err, &op) && op.Err != nil {
		return op.Err.Error()
	}
	var dns *net.DNSError
	if errors.As(err, &dns) {
		return "no such host " + dns.Name
	}
	if errors.Is(err, context.DeadlineExceeded) {
		return "no answer within 10 s"
	}
	return err.Error()
}

// redact takes the key out of a text bound for a log.
func (c *Client) redact(s string) string {
	if c.cfg.Key == "" {
		return s
	}
	return strings.ReplaceAll(s, c.cfg.Key, "[key]")
}

// errTooLarge ends an answer longer than MaxBody bytes.
var errTooLarge = errors.New("the answer is larger than the bound")

// capBody cuts every answer's body after max bytes: the stream's decoder then ends with
// errTooLarge, whatever the server keeps sending.
func capBody(max int64) option.Middleware {
	return func(req *http.Request, next option.MiddlewareNext) (*http.Response, error) {
		res, err := next(req)
		if err == nil && res != nil && res.Body != nil {
			res.Body = &cappedBody{rc: res.Body, left: max}
		}
		return res, err
	}
}

type cappedBody struct {
	rc   io.ReadCloser
	left int64
}

func (b *cappedBody) Read(p []byte) (int, error) {
	if b.left <= 0 {
		return 0, errTooLarge
	}
	if int64(len(p)) > b.left {
		p = p[:b.left]
	}
	n, err := b.rc.Read(p)
	b.left -= int64(n)
	return n, err
}

func (b *cappedBody) Close() error { return b.rc.Close() }
