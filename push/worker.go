package push

import (
	"context"
	"log/slog"
	"math/rand/v2"
	"net/http"
	"sync"
	"time"

	"github.com/prometheus/client_golang/prometheus"

	"switchboard/store"
)

// Delivery rules of §22.
const (
	// TTL is how long, in seconds, a push service keeps a push for a device that is offline.
	TTL = 86400
	// GiveUpAfter is how long a push is retried (429, 5xx, no answer) before it is dropped.
	GiveUpAfter = 24 * time.Hour
	// AttemptTimeout bounds one request to a push service.
	AttemptTimeout = 15 * time.Second
	// DefaultWorkers is how many pushes are sent at once.
	DefaultWorkers = 16
	firstRetry     = 10 * time.Second
	maxRetry       = time.Hour
	maxTimerWait   = time.Minute // the queue is read at least this often, whatever the wakes do
)

// Options configure a Worker; zero values take the defaults.
type Options struct {
	// Key signs the pushes (required).
	Key *Key
	// Subject is the VAPID contact (sub): an https URL or a mailto: address.
	Subject string
	// Guard keeps connections to public hosts (and -hook-allow-cidrs); nil allows no range.
	Guard *Guard
	// Workers bounds concurrent pushes (DefaultWorkers).
	Workers int
	// Now is the clock that decides retries and expiries; nil uses the store's.
	Now func() time.Time
	// Rand returns a number in [0,1) that picks each retry's jitter; nil uses math/rand/v2.
	Rand func() float64
	// Timeout bounds one request (AttemptTimeout).
	Timeout time.Duration
	// Registry receives the push metrics; nil registers none.
	Registry prometheus.Registerer
	// SessionAlive reports whether a subscription's session may still be used (not idle nor too
	// old); a push whose session has lapsed ends that session instead of going out, as the
	// session sweep would. nil counts every stored session alive.
	SessionAlive func(store.Session) bool
}

// Worker sends the store's push outbox. A dispatcher reads due jobs and hands them to a fixed
// pool over a channel that carries only work already durable in the store, so whatever the
// process loses with a crash is sent after the next start. A job is never sent twice at once:
// the dispatcher skips those in flight, and those finished since its read began.
type Worker struct {
	store   *store.Store
	opts    Options
	client  *http.Client
	vapid   *vapidSigner
	metrics *metrics

	jobs chan store.DuePush
	wake chan struct{}
	done chan struct{}
	ctx  context.Context // cancelled by Stop: requests in flight end and are not recorded
	stop context.CancelFunc
	wg   sync.WaitGroup

	mu       sync.Mutex
	inflight map[string]bool
	recent   map[string]bool

	startOnce, stopOnce sync.Once
}

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
	ctx, cancel := context.WithCancel(context.Background())
	return &Worker{
		store: s, opts: o, client: o.Guard.hooks.Client(o.Workers),
		vapid:   newVAPIDSigner(o.Key, o.Subject, o.Now),
		metrics: newMetrics(o.Registry, s),
		jobs:    make(chan store.DuePush, 2*o.Workers),
		wake:    make(chan struct{}, 1), done: make(chan struct{}),
		ctx: ctx, stop: cancel,
		inflight: map[string]bool{}, recent: map[string]bool{},
	}
}

// Start runs the dispatcher and the pool; jobs left by an earlier run go at once.
func (w *Worker) Start() {
	w.startOnce.Do(func() {
		w.wg.Add(1 + w.opts.Workers)
		go w.dispatch()
		for range w.opts.Workers {
			go w.work()
		}
	})
}

// Stop ends the worker and waits for it. Requests in flight are cancelled and not recorded:
// their jobs stay in the outbox and go after the next start (at least once).
func (w *Worker) Stop() {
	w.stopOnce.Do(func() {
		close(w.done)
		w.stop()
		w.wg.Wait()
		w.client.CloseIdleConnections()
	})
}

// Wake tells the dispatcher that pushes were queued (store.OnPush). It never blocks.
func (w *Worker) Wake() {
	select {
	case w.wake <- struct{}{}:
	default:
	}
}

func (w *Worker) dispatch() {
	defer w.wg.Done()
	defer close(w.jobs)
	timer := time.NewTimer(maxTimerWait)
	defer timer.Stop()
	for {
		wait := maxTimerWait
		if next, more := w.fill(); more {
			wait = 0
		} else if !next.IsZero() {
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

// fill hands due jobs to the pool; more is true when it stopped at its limit with more due.
func (w *Worker) fill() (next time.Time, more bool) {
	w.mu.Lock()
	clear(w.recent)
	room := cap(w.jobs) - len(w.inflight)
	w.mu.Unlock()
	if room <= 0 {
		return time.Time{}, false // a finished job wakes the dispatcher
	}
	due, next, err := w.store.DuePushes(w.opts.Now(), room, func(id string) bool {
		w.mu.Lock()
		defer w.mu.Unlock()
		return w.inflight[id] || w.recent[id]
	})
	if err != nil {
		slog.Error("push: read the outbox", "error", err)
		return w.opts.Now().Add(10 * time.Second), false
	}
	for _, d := range due {
		w.mu.Lock()
		w.inflight[d.Job.ID] = true
		w.mu.Unlock()
		select {
		case w.jobs <- d:
		case <-w.done:
			return time.Time{}, false
		}
	}
	return next, len(due) == room
}

func (w *Worker) work() {
	defer w.wg.Done()
	for d := range w.jobs {
		if w.ctx.Err() != nil {
			return
		}
		w.send(d)
		w.mu.Lock()
		delete(w.inflight, d.Job.ID)
		w.recent[d.Job.ID] = true
		w.mu.Unlock()
		w.Wake()
	}
}
