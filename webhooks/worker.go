// Package webhooks delivers the events the store queues to their subscribers: a pool of workers
// that POST signed JSON (Standard Webhooks), retry on a fixed schedule (Schedule) and record every
// attempt, and an SSRF guard for hook URLs. The durable queue is the store's webhook_queue
// bucket; the worker only keeps in memory which deliveries it is sending right now.
package webhooks

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"math/rand/v2"
	"net"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/prometheus/client_golang/prometheus"

	"switchboard/store"
)

// Defaults of Options.
const (
	DefaultWorkers   = 32
	AttemptTimeout   = 15 * time.Second
	ResponseSnippet  = 2 << 10     // bytes of the response body kept with an attempt
	maxTimerWait     = time.Minute // rescan at least this often, whatever the clock does
	drainLimit       = 64 << 10    // response bytes read past the snippet so the connection is reused
	userAgent        = "Switchboard-Webhooks/1"
	eventHeader      = "webhook-event"
	contentTypeJSON  = "application/json"
	claimPerWorker   = 2 // deliveries claimed per worker, so the next job is ready when one ends
	maxErrorInRecord = 500
	recordRetryPause = 5 * time.Second
)

// Options configure a Worker. Zero values take the defaults.
type Options struct {
	// Workers bounds concurrent deliveries (DefaultWorkers).
	Workers int
	// Guard refuses internal addresses when connecting; nil makes one with no allowed ranges.
	Guard *Guard
	// Now is the clock that decides retry times and webhook-timestamp; nil uses the store's.
	Now func() time.Time
	// Rand returns a number in [0,1) that picks each retry's jitter; nil uses math/rand/v2.
	Rand func() float64
	// Timeout bounds one attempt (AttemptTimeout).
	Timeout time.Duration
	// Registry receives the webhook metrics; nil registers none.
	Registry prometheus.Registerer
	// Logger logs failures; nil uses slog.Default().
	Logger *slog.Logger
	// Retention is how old history is before it is purged (store.WebhookRetention); negative
	// turns the purge off.
	Retention time.Duration
}

// Worker delivers queued webhook deliveries. A dispatcher goroutine reads due deliveries from
// the store and hands them to a fixed pool of goroutines over a channel; the channel only carries
// work already durable in the store, so anything lost with the process is picked up again at
// the next start. A delivery is never attempted twice at once: the dispatcher skips those in its
// in-flight set, which a worker leaves only after its attempt is recorded.
type Worker struct {
	store   *store.Store
	opts    Options
	client  *http.Client
	log     *slog.Logger
	metrics *metrics

	jobs chan store.DueDelivery
	wake chan struct{}
	done chan struct{}
	ctx  context.Context // cancelled by Stop: in-flight POSTs end and are not recorded
	stop context.CancelFunc
	wg   sync.WaitGroup

	mu       sync.Mutex
	inflight map[string]struct{}
	// recent holds deliveries finished since the last queue read began: DueDeliveries reads a
	// snapshot, and one taken before an attempt's outcome committed still shows the delivery as
	// due, while it is no longer in flight. A read that starts later sees the outcome, so each
	// read starts by forgetting them.
	recent map[string]struct{}
	// gone holds the subscriptions a receiver answered 410, from the moment the answer came
	// (with when): until the attempt's outcome commits, the store still shows the subscription,
	// and another worker's check of it could pass and POST after the 410. Ids are never reused;
	// entries are dropped an hour on, long after the outcome committed.
	gone map[string]time.Time

	startOnce, stopOnce sync.Once
	// onFill, when set (tests, before Start), hears of each read of the queue: the time it read
	// and how many deliveries it claimed, so a test knows the dispatcher has looked instead of
	// sleeping and hoping it did.
	onFill func(now time.Time, claimed int)
	// beforeRecord, when set (tests), runs after an attempt's answer and before its outcome is
	// recorded, so a test can hold an outcome back and see what the other workers do meanwhile.
	beforeRecord func(j store.DueDelivery, status int)
}

// goneFor is how long a 410 is remembered in memory after it came.
const goneFor = time.Hour

// New builds a worker on s; Start runs it.
func New(s *store.Store, o Options) *Worker {
	if o.Workers <= 0 {
		o.Workers = DefaultWorkers
	}
	if o.Guard == nil {
		o.Guard = NewGuard(nil)
	}
	if o.Now == nil {
		o.Now = s.Now
	}
	if o.Rand == nil {
		o.Rand = rand.Float64
	}
	if o.Timeout <= 0 {
		o.Timeout = AttemptTimeout
	}
	if o.Retention == 0 {
		o.Retention = store.WebhookRetention
	}
	if o.Logger == nil {
		o.Logger = slog.Default()
	}
	ctx, cancel := context.WithCancel(context.Background())
	w := &Worker{
		store: s, opts: o, client: newClient(o.Guard, o.Workers), log: o.Logger,
		jobs:     make(chan store.DueDelivery, o.Workers*claimPerWorker),
		wake:     make(chan struct{}, 1),
		done:     make(chan struct{}),
		ctx:      ctx,
		stop:     cancel,
		inflight: map[string]struct{}{},
		recent:   map[string]struct{}{},
		gone:     map[string]time.Time{},
	}
	w.metrics = newMetrics(o.Registry, s)
	return w
}

// Client is an HTTP client that keeps to the guard as the webhook deliveries do, for the
// server's other requests to addresses users give it (Web Push endpoints); conns bounds the
// idle connections kept per host.
func (g *Guard) Client(conns int) *http.Client { return newClient(g, conns) }

// newClient is the delivery HTTP client: no proxy (it would hide the real destination from the
// guard), the guard on every connection after DNS, redirects returned as they are (a 3xx is a
// failed attempt), enough idle connections per host for every worker.
func newClient(g *Guard, workers int) *http.Client {
	dialer := &net.Dialer{Timeout: 10 * time.Second, KeepAlive: 30 * time.Second, Control: g.Control}
	tr := &http.Transport{
		Proxy:                 nil,
		DialContext:           dialer.DialContext,
		ForceAttemptHTTP2:     true,
		MaxIdleConns:          4 * workers,
		MaxIdleConnsPerHost:   workers,
		IdleConnTimeout:       90 * time.Second,
		TLSHandshakeTimeout:   10 * time.Second,
		ExpectContinueTimeout: time.Second,
	}
	return &http.Client{
		Transport:     tr,
		CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse },
	}
}

// Start runs the dispatcher and the workers. Due deliveries left by an earlier run are picked
// up at once. The purge of old history is Purge, which the caller runs on its own schedule.
func (w *Worker) Start() {
	w.startOnce.Do(func() {
		w.wg.Add(1 + w.opts.Workers)
		go w.dispatch()
		for range w.opts.Workers {
			go w.work()
		}
	})
}

// Stop ends the worker and waits for its goroutines. Attempts in flight are cancelled and not
// recorded: their deliveries stay due and are sent again after the next start (at-least-once).
func (w *Worker) Stop() {
	w.stopOnce.Do(func() {
		close(w.done)
		w.stop()
		w.wg.Wait()
		w.client.CloseIdleConnections()
	})
}

// Wake tells the dispatcher that deliveries may be due (store.OnEvents). It never blocks.
func (w *Worker) Wake() {
	select {
	case w.wake <- struct{}{}:
	default:
	}
}

func (w *Worker) dispatch() {
	defer w.wg.Done()
	timer := time.NewTimer(maxTimerWait)
	defer timer.Stop()
	for {
		wait := maxTimerWait
		if next := w.fill(); !next.IsZero() {
			wait = min(max(next.Sub(w.opts.Now()), 0), maxTimerWait)
		}
		timer.Reset(wait)
		select {
		case <-w.done:
			return
		case <-w.wake:
		case <-timer.C:
		}
	}
}

// fill claims due deliveries up to the free capacity and queues them for the workers. It
// returns when the next one falls due (zero: nothing pending, or capacity is full and a finishing
// worker will wake the dispatcher).
func (w *Worker) fill() time.Time {
	w.mu.Lock()
	free := w.opts.Workers*claimPerWorker - len(w.inflight)
	// Outcomes committed before this point are in the snapshot the read below takes.
	clear(w.recent)
	w.mu.Unlock()
	if free <= 0 {
		return time.Time{}
	}
	now := w.opts.Now()
	due, next, err := w.store.DueDeliveries(now, free, w.isInflight)
	if w.onFill != nil {
		w.onFill(now, len(due))
	}
	if err != nil {
		w.log.Error("webhooks: reading the delivery queue", "err", err)
		return now.Add(5 * time.Second)
	}
	for _, d := range due {
		w.mu.Lock()
		w.inflight[d.Delivery.ID] = struct{}{}
		w.mu.Unlock()
		// Never blocks: the buffer holds as many jobs as the in-flight set admits.
		w.jobs <- d
	}
	return next
}

func (w *Worker) isInflight(id string) bool {
	w.mu.Lock()
	_, ok := w.inflight[id]
	_, done := w.recent[id]
	w.mu.Unlock()
	return ok || done
}

func (w *Worker) work() {
	defer w.wg.Done()
	for {
		select {
		case <-w.done:
			return
		case j := <-w.jobs:
			w.handle(j)
			w.mu.Lock()
			delete(w.inflight, j.Delivery.ID)
			w.recent[j.Delivery.ID] = struct{}{}
			w.mu.Unlock()
			w.Wake()
		}
	}
}

// handle makes one attempt of a delivery and records it.
func (w *Worker) handle(j store.DueDelivery) {
	if j.Stale != "" {
		if err := w.store.CancelDelivery(j.Delivery.ID, j.Stale); err != nil {
			w.log.Error("webhooks: cancelling a delivery", "delivery", j.Delivery.ID, "err", err)
			return
		}
		w.metrics.outcome(store.DeliveryCancelled)
		return
	}
	// The claim may be old by now: the subscription is checked again right before the POST,
	// so a 410 or an unsubscribe stops every delivery not yet sent, claimed ones included.
	sub, stale, pending, err := w.store.RecheckDelivery(j.Delivery.ID)
	if err != nil {
		w.log.Error("webhooks: rechecking a delivery", "delivery", j.Delivery.ID, "err", err)
		return // still due: the next claim tries again
	}
	if stale != "" {
		if !pending {
			return // cancelled or settled meanwhile, by whoever removed its subscription
		}
		if err := w.store.CancelDelivery(j.Delivery.ID, stale); err != nil {
			w.log.Error("webhooks: cancelling a delivery", "delivery", j.Delivery.ID, "err", err)
			return
		}
		w.metrics.outcome(store.DeliveryCancelled)
		return
	}
	// The claim: the store's check above may predate a 410 another worker holds but has not
	// recorded yet, so the 410s this process has heard decide too. After a 410, no attempt of
	// its subscription starts; the outcome's commit cancels the rest, this one included.
	if !w.claim(sub.ID) {
		if err := w.store.CancelDelivery(j.Delivery.ID, goneReason); err != nil {
			w.log.Error("webhooks: cancelling a delivery", "delivery", j.Delivery.ID, "err", err)
			return
		}
		w.metrics.outcome(store.DeliveryCancelled)
		return
	}
	j.Subscription = sub
	att, resp := w.post(j)
	if w.ctx.Err() != nil {
		return // stopping: the delivery stays due
	}
	if att.StatusCode == http.StatusGone {
		w.markGone(sub.ID)
	}
	if w.beforeRecord != nil {
		w.beforeRecord(j, att.StatusCode)
	}
	res := store.AttemptResult{Attempt: att}
	// The status decides (0: no response); Error only describes.
	switch {
	case att.StatusCode >= 200 && att.StatusCode < 300:
		res.Outcome = store.OutcomeDelivered
	case att.StatusCode == http.StatusGone:
		res.Outcome = store.OutcomeGone
	default:
		ra, hasRA := time.Duration(0), false
		if resp != nil {
			ra, hasRA = ParseRetryAfter(resp.Get("Retry-After"), w.opts.Now())
		}
		if delay, ok := NextDelay(j.Delivery.Attempts+1, w.opts.Rand(), att.StatusCode, ra, hasRA); ok {
			res.Outcome, res.NextAt = store.OutcomeRetry, w.opts.Now().Add(delay)
		} else {
			res.Outcome = store.OutcomeFailed
		}
	}
	d, disabled, err := w.store.RecordAttempt(j.Delivery.ID, res)
	if err != nil {
		// The attempt happened but is not recorded: the delivery stays due and is sent again.
		// Hold it (and this worker) a while first, so a failing disk does not turn into a
		// tight loop of POSTs to the receiver.
		w.log.Error("webhooks: recording an attempt", "delivery", j.Delivery.ID, "err", err)
		select {
		case <-w.done:
		case <-time.After(recordRetryPause):
		}
		return
	}
	w.metrics.outcome(res.Outcome)
	w.metrics.latency.Observe(float64(att.LatencyMS) / 1000)
	if res.Outcome != store.OutcomeDelivered {
		w.log.Warn("webhooks: delivery attempt failed", "delivery", d.ID, "subscription", d.SubscriptionID,
			"status", att.StatusCode, "err", att.Error, "outcome", res.Outcome, "next", store.FormatTime(res.NextAt))
	}
	if disabled {
		w.log.Warn("webhooks: subscription disabled after failing for 5 days", "subscription", d.SubscriptionID)
	}
}

// goneReason is why a delivery claimed after its subscription's 410 is cancelled, as the
// store says it when it records the 410.
const goneReason = "subscription removed after 410 Gone"

// claim reports whether an attempt of subscription subID may start: not once a receiver has
// answered 410 for it.
func (w *Worker) claim(subID string) bool {
	w.mu.Lock()
	defer w.mu.Unlock()
	_, gone := w.gone[subID]
	return !gone
}

// markGone remembers that subID's receiver answered 410, before the outcome is recorded.
func (w *Worker) markGone(subID string) {
	now := w.opts.Now()
	w.mu.Lock()
	defer w.mu.Unlock()
	for id, at := range w.gone {
		if now.Sub(at) > goneFor {
			delete(w.gone, id)
		}
	}
	w.gone[subID] = now
}

// post sends one attempt and describes it; the response headers come back for Retry-After.
func (w *Worker) post(j store.DueDelivery) (store.Attempt, http.Header) {
	at := w.opts.Now()
	att := store.Attempt{At: at}
	ts := at.Unix()
	sig, err := Sign(j.Subscription.Secret, j.Delivery.ID, ts, j.Payload)
	if err != nil {
		att.Error = err.Error()
		return att, nil
	}
	ctx, cancel := context.WithTimeout(w.ctx, w.opts.Timeout)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, j.Subscription.HookURL, bytes.NewReader(j.Payload))
	if err != nil {
		att.Error = "invalid hook URL: " + err.Error()
		return att, nil
	}
	h := req.Header
	h.Set("Content-Type", contentTypeJSON)
	h.Set("User-Agent", userAgent)
	h.Set("webhook-id", j.Delivery.ID)
	h.Set("webhook-timestamp", strconv.FormatInt(ts, 10))
	h.Set("webhook-signature", sig)
	h.Set(eventHeader, j.Delivery.EventName)
	start := time.Now() // latency is real elapsed time, whatever the injected clock says
	resp, err := w.client.Do(req)
	if err != nil {
		att.LatencyMS = time.Since(start).Milliseconds()
		att.Error = describeError(err, w.opts.Timeout)
		return att, nil
	}
	snippet, readErr := io.ReadAll(io.LimitReader(resp.Body, ResponseSnippet))
	_, _ = io.Copy(io.Discard, io.LimitReader(resp.Body, drainLimit))
	resp.Body.Close()
	att.LatencyMS = time.Since(start).Milliseconds()
	att.StatusCode = resp.StatusCode
	att.Response = strings.ToValidUTF8(string(snippet), "\uFFFD")
	switch {
	case resp.StatusCode >= 200 && resp.StatusCode < 300:
		// Accepted: a body cut short by the timeout does not undo that.
	case readErr != nil && ctx.Err() != nil:
		att.Error = describeError(readErr, w.opts.Timeout)
	case resp.StatusCode >= 300 && resp.StatusCode < 400:
		att.Error = fmt.Sprintf("redirect (%d) to %q not followed", resp.StatusCode, resp.Header.Get("Location"))
	case resp.StatusCode < 200 || resp.StatusCode >= 300:
		att.Error = "HTTP " + strconv.Itoa(resp.StatusCode)
	}
	return att, resp.Header
}

// describeError turns a client error into the short text the delivery log shows.
func describeError(err error, timeout time.Duration) string {
	if errors.Is(err, context.DeadlineExceeded) || isTimeout(err) {
		return fmt.Sprintf("timed out after %s", timeout)
	}
	// Drop the "Post \"URL\": " prefix of *url.Error: the log shows the URL already.
	var ue *url.Error
	if errors.As(err, &ue) {
		err = ue.Err
	}
	msg := err.Error()
	if len(msg) > maxErrorInRecord {
		msg = msg[:maxErrorInRecord]
	}
	return msg
}

func isTimeout(err error) bool {
	var te interface{ Timeout() bool }
	return errors.As(err, &te) && te.Timeout()
}

// Purge deletes delivery history older than the retention period (Options.Retention) and
// returns how many deliveries went; with the purge turned off it does nothing. The server runs
// it at start and then hourly.
func (w *Worker) Purge() (int, error) {
	if w.opts.Retention <= 0 {
		return 0, nil
	}
	return w.store.PurgeWebhookHistory(w.opts.Now().Add(-w.opts.Retention))
}
