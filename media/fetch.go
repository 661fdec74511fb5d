package media

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"net/url"
	"path"
	"sync"
	"time"

	"switchboard/store"
)

// DefaultBackoff is the wait before each retry of an inbound media fetch; after the last one
// the message keeps the carrier's URL with a note.
var DefaultBackoff = []time.Duration{5 * time.Second, 30 * time.Second, 2 * time.Minute, 10 * time.Minute, time.Hour, 4 * time.Hour}

// FetcherOptions configure a Fetcher.
type FetcherOptions struct {
	// BaseURL is the Twilio API in use (default https://api.twilio.com): media URLs on its host,
	// and only those, are fetched with the account's credentials.
	BaseURL    string
	AccountSID string
	AuthToken  string
	// Credentials, when set, gives the HTTP Basic user and password at each fetch instead of
	// AccountSID and AuthToken (the account in use may change while the server runs); false
	// when there is no account, and the fetch waits for its next try.
	Credentials func() (user, pass string, ok bool)
	// Now is the clock; nil means the store's.
	Now func() time.Time
	// Backoff overrides DefaultBackoff.
	Backoff []time.Duration
	// Timeout bounds one attempt (default 30 s).
	Timeout time.Duration
	// Transport overrides the HTTP transport (tests).
	Transport http.RoundTripper
}

// Fetcher drains the store's media fetch queue: it downloads each inbound carrier media URL
// with the account's HTTP Basic credentials and keeps the file with its message.
type Fetcher struct {
	s       *store.Store
	opts    FetcherOptions
	host    string // scheme://host[:port] of the Twilio API in use
	client  *http.Client
	wake    chan struct{}
	stop    chan struct{}
	wg      sync.WaitGroup
	started bool
}

// NewFetcher builds a fetcher; Start runs it.
func NewFetcher(s *store.Store, opts FetcherOptions) (*Fetcher, error) {
	if opts.BaseURL == "" {
		opts.BaseURL = "https://api.twilio.com"
	}
	if opts.Now == nil {
		opts.Now = s.Now
	}
	if opts.Backoff == nil {
		opts.Backoff = DefaultBackoff
	}
	if opts.Timeout == 0 {
		opts.Timeout = 30 * time.Second
	}
	base, err := url.Parse(opts.BaseURL)
	if err != nil || base.Host == "" {
		return nil, fmt.Errorf("media: the Twilio base URL %q is not an absolute URL", opts.BaseURL)
	}
	f := &Fetcher{s: s, opts: opts, host: origin(base), wake: make(chan struct{}, 1), stop: make(chan struct{})}
	f.client = &http.Client{Timeout: opts.Timeout, Transport: opts.Transport, CheckRedirect: f.checkRedirect}
	return f, nil
}

// origin is a URL's scheme and host with its port: the unit credentials are bound to.
func origin(u *url.URL) string { return u.Scheme + "://" + u.Host }

// checkRedirect lets a redirect carry the credentials only back to the Twilio API's own origin
// (scheme, host and port): Twilio answers media with a redirect to its storage, which must
// never receive them. Go's own rule compares host names without ports, so it is not enough.
func (f *Fetcher) checkRedirect(req *http.Request, via []*http.Request) error {
	if len(via) >= 5 {
		return errors.New("stopped after 5 redirects")
	}
	if origin(req.URL) != f.host {
		req.Header.Del("Authorization")
	}
	return nil
}

// Wake makes the worker look at the queue now (the store calls it after queueing fetches).
func (f *Fetcher) Wake() {
	select {
	case f.wake <- struct{}{}:
	default:
	}
}

// Start runs the worker until Stop.
func (f *Fetcher) Start() {
	f.started = true
	f.wg.Go(f.run)
}

// Stop stops the worker and waits for a fetch in progress.
func (f *Fetcher) Stop() {
	if !f.started {
		return
	}
	close(f.stop)
	f.wg.Wait()
}

func (f *Fetcher) run() {
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	go func() { <-f.stop; cancel() }()
	for {
		next, err := f.RunOnce(ctx)
		if err != nil {
			slog.Error("media fetch", "err", err)
		}
		wait := time.Minute
		if err == nil && !next.IsZero() {
			wait = max(next.Sub(f.opts.Now()), 0)
		}
		t := time.NewTimer(wait)
		select {
		case <-f.stop:
			t.Stop()
			return
		case <-f.wake:
		case <-t.C:
		}
		t.Stop()
	}
}

// RunOnce fetches every fetch due now and returns when the next one is due (zero: none queued).
func (f *Fetcher) RunOnce(ctx context.Context) (time.Time, error) {
	for {
		due, next, err := f.s.DueMediaFetches(f.opts.Now(), 16)
		if err != nil || len(due) == 0 {
			return next, err
		}
		for _, job := range due {
			if ctx.Err() != nil {
				return next, ctx.Err()
			}
			if err := f.fetchOne(ctx, job); err != nil {
				return next, err
			}
		}
	}
}

// permanent is a fetch that retrying cannot help.
type permanent struct{ msg string }

func (p *permanent) Error() string { return p.msg }

// fetchOne makes one attempt and records its outcome: the file kept, a retry, or the note.
func (f *Fetcher) fetchOne(ctx context.Context, job store.MediaFetch) error {
	up, err := f.download(ctx, job.URL)
	if err == nil {
		return f.s.CompleteMediaFetch(job, up)
	}
	label := fileLabel(job.URL)
	var p *permanent
	if errors.As(err, &p) {
		return f.s.FailMediaFetch(job, label+": "+p.msg)
	}
	if job.Attempts >= len(f.opts.Backoff) {
		return f.s.FailMediaFetch(job, label+": could not be fetched ("+err.Error()+")")
	}
	return f.s.RetryMediaFetch(job, f.opts.Now().Add(f.opts.Backoff[job.Attempts]), err.Error())
}

// fileLabel names a media URL in a note: its last path segment.
func fileLabel(raw string) string {
	if u, err := url.Parse(raw); err == nil && u.Path != "" && u.Path != "/" {
		return path.Base(u.Path)
	}
	return "file"
}

// download GETs a media URL of the Twilio API with the account's credentials.
func (f *Fetcher) download(ctx context.Context, raw string) (store.Upload, error) {
	u, err := url.Parse(raw)
	if err != nil || u.Host == "" {
		return store.Upload{}, &permanent{"not a URL"}
	}
	// The credentials go only to the Twilio API in use; another host gets no request at all.
	if origin(u) != f.host {
		return store.Upload{}, &permanent{"not fetched: " + u.Host + " is not the Twilio API host"}
	}
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, raw, nil)
	if err != nil {
		return store.Upload{}, &permanent{"not a URL"}
	}
	user, pass := f.opts.AccountSID, f.opts.AuthToken
	if f.opts.Credentials != nil {
		var ok bool
		if user, pass, ok = f.opts.Credentials(); !ok {
			return store.Upload{}, errors.New("no Twilio account is in use")
		}
	}
	req.SetBasicAuth(user, pass)
	resp, err := f.client.Do(req)
	if err != nil {
		return store.Upload{}, err
	}
	defer resp.Body.Close()
	if resp.StatusCode/100 != 2 {
		_, _ = io.Copy(io.Discard, io.LimitReader(resp.Body, 64<<10))
		return store.Upload{}, fmt.Errorf("HTTP %d", resp.StatusCode)
	}
	if resp.ContentLength > MaxFileSize {
		return store.Upload{}, &permanent{"larger than 5 MB (" + FormatSize(resp.ContentLength) + ")"}
	}
	data, err := io.ReadAll(io.LimitReader(resp.Body, MaxFileSize+1))
	if err != nil {
		return store.Upload{}, err
	}
	if len(data) > MaxFileSize {
		return store.Upload{}, &permanent{"larger than 5 MB"}
	}
	if len(data) == 0 {
		return store.Upload{}, &permanent{"the file is empty"}
	}
	t := Sniff(data)
	name := path.Base(u.Path)
	if path.Ext(name) == "" {
		name += extension(t)
	}
	return store.Upload{Name: CleanName(name, t), Type: t, Data: data}, nil
}
