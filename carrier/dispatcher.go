package carrier

import (
	"context"
	"log/slog"
	"math"
	"math/rand/v2"
	"sync"
	"time"

	"golang.org/x/time/rate"

	"switchboard/store"
)

// RetryDelays are the waits before each retry of a transient failure (±20 % jitter); after the
// last one the message fails.
var RetryDelays = []time.Duration{time.Second, 5 * time.Second, 30 * time.Second, 2 * time.Minute, 10 * time.Minute}

// maxRetryAfter caps a carrier's Retry-After, so a bogus header cannot park a message for days.
const maxRetryAfter = time.Hour

// Options configure a Dispatcher.
type Options struct {
	// Carriers by name (store.ProviderSandbox, store.ProviderTwilio); a number whose carrier is
	// missing fails its messages with a clear reason.
	Carriers map[string]Carrier
	// DefaultRate is -send-rate: messages per second for numbers without a rate of their own
	// (sandbox numbers are unlimited unless given one).
	DefaultRate float64
	// Metrics receives the message counters; nil makes private ones.
	Metrics *Metrics
	// Workers is how many carrier calls may run at once (default 32); Batch how many messages
	// one claim takes (default 256).
	Workers, Batch int
	// Now is the clock of rates and retries; nil is time.Now. Jitter returns a factor in
	// [0.8, 1.2); nil is random.
	Now    func() time.Time
	Jitter func() float64
}

// Dispatcher hands queued messages to their numbers' carriers: priority then age, each number
// at its own rate (a token bucket), claim before the call and outcome after, retries with
// jitter. The durable queue is the store's outbox; the dispatcher's channels only carry work
// between its goroutines.
type Dispatcher struct {
	store *store.Store
	opts  Options

	wake     chan struct{}
	stop     chan struct{}
	jobs     chan job
	results  chan result
	loopDone chan struct{}
	recDone  chan struct{}
	workers  sync.WaitGroup
	// unrecorded holds a token for each message handed to the carrier whose outcome is not
	// recorded yet: a worker takes one before the call, the recorder returns it once the outcome
	// is committed. A crash re-sends exactly those messages (the carrier may have accepted them),
	// so their number is the crash window: at most 2×Workers, one call per worker at the carrier
	// and one accepted outcome per worker waiting for the recorder's next batch.
	unrecorded chan struct{}

	mu       sync.Mutex
	inflight int // claimed, outcome not yet recorded
	limiters map[string]*numberLimiter
	stopOnce sync.Once
	// onPass, when set (tests, before Start), hears of each pass of the loop: the time it read
	// and how many messages it claimed, so a test knows the dispatcher has looked instead of
	// sleeping and hoping it did.
	onPass func(now time.Time, claimed int)
}

type numberLimiter struct {
	rate float64
	lim  *rate.Limiter
}

type job struct {
	number store.PhoneNumber
	msg    store.Message
}

type result struct {
	out     store.Outcome
	carrier string
}

// NewDispatcher builds a dispatcher; Start runs it.
func NewDispatcher(s *store.Store, opts Options) *Dispatcher {
	if opts.Workers <= 0 {
		opts.Workers = 32
	}
	if opts.Batch <= 0 {
		opts.Batch = 256
	}
	if opts.Now == nil {
		opts.Now = time.Now
	}
	if opts.Jitter == nil {
		opts.Jitter = func() float64 { return 0.8 + 0.4*rand.Float64() }
	}
	if opts.Metrics == nil {
		opts.Metrics = NewMetrics(nil, s)
	}
	return &Dispatcher{store: s, opts: opts, wake: make(chan struct{}, 1), stop: make(chan struct{}),
		jobs: make(chan job, opts.Batch), results: make(chan result, opts.Batch), loopDone: make(chan struct{}), recDone: make(chan struct{}),
		limiters: map[string]*numberLimiter{}, unrecorded: make(chan struct{}, 2*opts.Workers)}
}

// maxInflight bounds claimed-but-unrecorded messages, so a stop never waits on a mountain.
// (Claimed messages not yet handed to the carrier are not sent twice by a crash: they are
// re-queued at the next start and sent once. Those handed to it are bounded by unrecorded.)
func (d *Dispatcher) maxInflight() int { return 4 * d.opts.Batch }

// Start re-queues messages a crash left `sending`, then starts the workers.
func (d *Dispatcher) Start() error {
	n, err := d.store.RequeueSending()
	if err != nil {
		return err
	}
	if n > 0 {
		slog.Warn("dispatcher: re-queued messages cut off while at the carrier (they may be sent twice)", "messages", n)
	}
	d.workers.Add(d.opts.Workers)
	for range d.opts.Workers {
		go d.worker()
	}
	go d.recorder()
	go d.loop()
	return nil
}

// Wake tells the dispatcher that messages were queued (store.OnOutbox); it never blocks.
func (d *Dispatcher) Wake() {
	select {
	case d.wake <- struct{}{}:
	default:
	}
}

// Stop stops claiming, waits for the sends in flight and records their outcomes.
func (d *Dispatcher) Stop() {
	d.stopOnce.Do(func() {
		close(d.stop)
		<-d.loopDone
		close(d.jobs)
		d.workers.Wait()
		close(d.results)
		<-d.recDone
	})
}

func (d *Dispatcher) loop() {
	defer close(d.loopDone)
	after := ""
	for {
		select {
		case <-d.stop:
			return
		default:
		}
		now := d.opts.Now()
		_, nextDue, err := d.store.PromoteDue(now, 10_000)
		if err != nil {
			slog.Error("dispatcher: promote retries", "err", err)
		}
		wait := time.Second * 5
		if !nextDue.IsZero() {
			wait = min(wait, max(nextDue.Sub(now), time.Millisecond))
		}
		claimed := 0
		if room := d.room(); room > 0 {
			var tokenWait time.Duration
			claims, err := d.store.ClaimOutbound(min(room, d.opts.Batch), d.opts.Batch/2, after, func(n *store.PhoneNumber) int {
				q, w := d.quota(n, now)
				if q == 0 && (tokenWait == 0 || w < tokenWait) {
					tokenWait = w
				}
				return q
			})
			if err != nil {
				slog.Error("dispatcher: claim", "err", err)
			}
			if tokenWait > 0 {
				wait = min(wait, tokenWait)
			}
			for _, c := range claims {
				after = c.Number.ID
				d.take(&c.Number, len(c.Messages), now)
				d.mu.Lock()
				d.inflight += len(c.Messages)
				d.mu.Unlock()
				claimed += len(c.Messages)
				for _, m := range c.Messages {
					d.jobs <- job{number: c.Number, msg: m}
				}
			}
		}
		if d.onPass != nil {
			d.onPass(now, claimed)
		}
		if claimed > 0 {
			continue
		}
		t := time.NewTimer(wait)
		select {
		case <-d.stop:
			t.Stop()
			return
		case <-d.wake:
		case <-t.C:
		}
		t.Stop()
	}
}

func (d *Dispatcher) room() int {
	d.mu.Lock()
	defer d.mu.Unlock()
	return d.maxInflight() - d.inflight
}

// quota is how many messages number n may send now, and when it may send one more if none.
func (d *Dispatcher) quota(n *store.PhoneNumber, now time.Time) (int, time.Duration) {
	l := d.limiter(n)
	if l == nil {
		return math.MaxInt32, 0
	}
	tokens := l.lim.TokensAt(now)
	if tokens >= 1 {
		return int(tokens), 0
	}
	return 0, time.Duration((1 - tokens) / l.rate * float64(time.Second))
}

func (d *Dispatcher) take(n *store.PhoneNumber, k int, now time.Time) {
	if l := d.limiter(n); l != nil {
		l.lim.ReserveN(now, k)
	}
}

// limiter is the number's token bucket, nil when it is unlimited; a changed rate starts a new one.
func (d *Dispatcher) limiter(n *store.PhoneNumber) *numberLimiter {
	r := n.SendRate(d.opts.DefaultRate)
	if r <= 0 {
		return nil
	}
	d.mu.Lock()
	defer d.mu.Unlock()
	l := d.limiters[n.ID]
	if l == nil || l.rate != r {
		l = &numberLimiter{rate: r, lim: rate.NewLimiter(rate.Limit(r), max(1, int(math.Ceil(r))))}
		d.limiters[n.ID] = l
	}
	return l
}

func (d *Dispatcher) worker() {
	defer d.workers.Done()
	for j := range d.jobs {
		d.unrecorded <- struct{}{} // returned by the recorder
		d.results <- d.send(j)
	}
}

// send hands one message to its number's carrier: every recipient of a group message gets its
// own send (carriers have no group texts), and the message is sent when all are accepted.
func (d *Dispatcher) send(j job) result {
	m := j.msg
	name := j.number.CarrierName()
	out := store.Outcome{WorkspaceID: m.WorkspaceID, MessageID: m.ID, Provider: name}
	c := d.opts.Carriers[name]
	switch {
	case !j.number.Active:
		out.Err = "the number " + m.From + " is no longer active"
		return result{out: out, carrier: name}
	case c == nil:
		out.Err = "carrier " + name + " is not configured on this server"
		return result{out: out, carrier: name}
	}
	for _, to := range m.Recipients() {
		ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
		id, err := c.Send(ctx, Outbound{MessageID: m.ID, From: m.From, To: to, Text: m.Text, Media: m.Media})
		cancel()
		if err != nil {
			if p, ok := Permanent(err); ok {
				out.Err, out.Unsubscribed, out.ProviderIDs = p.Reason, p.Unsubscribed, nil
				return result{out: out, carrier: name}
			}
			out.ProviderIDs = nil
			out.Err = err.Error()
			if m.Attempts > len(RetryDelays) {
				return result{out: out, carrier: name} // out of retries: failed
			}
			delay := time.Duration(float64(RetryDelays[m.Attempts-1]) * d.opts.Jitter())
			if ra := min(RetryAfter(err), maxRetryAfter); ra > delay {
				delay = ra
			}
			out.RetryAt = d.opts.Now().Add(delay)
			return result{out: out, carrier: name}
		}
		out.ProviderIDs = append(out.ProviderIDs, id)
	}
	if dc, ok := c.(DeliveredOnAccept); ok && dc.DeliveredOnAccept() {
		out.Delivered = true
	}
	return result{out: out, carrier: name}
}

// recorder commits outcomes in batches: one transaction for as many as have arrived. It ends
// when results is closed (Stop, after the workers), having recorded everything.
func (d *Dispatcher) recorder() {
	defer close(d.recDone)
	batch := make([]result, 0, d.opts.Batch)
	for r := range d.results {
		batch = append(batch[:0], r)
	drain:
		for len(batch) < cap(batch) {
			select {
			case r, ok := <-d.results:
				if !ok {
					break drain
				}
				batch = append(batch, r)
			default:
				break drain
			}
		}
		d.record(batch)
	}
}

func (d *Dispatcher) record(batch []result) {
	outs := make([]store.Outcome, len(batch))
	for i, r := range batch {
		outs[i] = r.out
	}
	if err := d.store.RecordOutcomes(outs); err != nil {
		// The messages stay `sending` and are re-queued at the next start (at least once).
		slog.Error("dispatcher: record outcomes", "err", err, "messages", len(outs))
	} else {
		for _, r := range batch {
			d.opts.Metrics.countOutcome(r.carrier, &r.out)
		}
	}
	for range batch {
		<-d.unrecorded
	}
	d.mu.Lock()
	d.inflight -= len(batch)
	d.mu.Unlock()
	d.Wake()
}
