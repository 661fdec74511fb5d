package mail

import (
	"context"
	"log/slog"
	"sync"
	"time"

	"switchboard/store"
)

// Worker drains the store's mail outbox: the bucket is the queue, Wake only hurries it.
type Worker struct {
	s    *store.Store
	cfg  Config
	now  func() time.Time
	wake chan struct{}
	stop chan struct{}
	wg   sync.WaitGroup
}

// NewWorker makes a worker; now nil means the store's clock.
func NewWorker(s *store.Store, cfg Config, now func() time.Time) *Worker {
	if now == nil {
		now = s.Now
	}
	return &Worker{s: s, cfg: cfg, now: now, wake: make(chan struct{}, 1), stop: make(chan struct{})}
}

// Enabled reports whether e-mail is configured: without it nothing is queued or sent.
func (w *Worker) Enabled() bool { return w != nil && w.cfg.Enabled() }

// Wake tells the worker that mail was queued.
func (w *Worker) Wake() {
	select {
	case w.wake <- struct{}{}:
	default:
	}
}

// Start runs the worker until Stop. E-mail that failed before is tried again at once: a
// restart is how an operator applies a fixed -smtp-url.
func (w *Worker) Start() {
	if n, err := w.s.RetryFailedMail(w.now()); err != nil {
		slog.Error("mail: read outbox", "error", err)
	} else if n > 0 {
		slog.Info("mail: retrying e-mail that failed before the start", "count", n)
	}
	w.wg.Go(w.loop)
}

// Stop ends the worker after the send in progress, if any.
func (w *Worker) Stop() {
	close(w.stop)
	w.wg.Wait()
}

// backoff is the wait after the n-th failed try: 1 minute, doubling, at most an hour.
func backoff(n int) time.Duration {
	d := time.Minute
	for i := 1; i < n && d < time.Hour; i++ {
		d *= 2
	}
	return min(d, time.Hour)
}

func (w *Worker) loop() {
	for {
		next := w.RunOnce(context.Background())
		wait := time.Minute // a slow poll as well, in case a wake was lost to a crash of a writer
		if !next.IsZero() {
			wait = min(wait, max(next.Sub(w.now()), 10*time.Millisecond))
		}
		t := time.NewTimer(wait)
		select {
		case <-w.stop:
			t.Stop()
			return
		case <-w.wake:
		case <-t.C:
		}
		t.Stop()
	}
}

// RunOnce sends every e-mail due now and returns when the next one is due (zero when none).
func (w *Worker) RunOnce(ctx context.Context) time.Time {
	for {
		due, next, err := w.s.DueMail(w.now(), 20)
		if err != nil {
			slog.Error("mail: read outbox", "error", err)
			return w.now().Add(time.Minute)
		}
		if len(due) == 0 {
			return next
		}
		for _, m := range due {
			select {
			case <-w.stop:
				return time.Time{}
			default:
			}
			if err := w.cfg.Send(ctx, m); err != nil {
				slog.Warn("mail: not sent; will retry", "mail_id", m.ID, "attempt", m.Attempts+1, "error", err)
				if err := w.s.MailFailed(m, err.Error(), w.now().Add(backoff(m.Attempts+1))); err != nil {
					slog.Error("mail: record failure", "mail_id", m.ID, "error", err)
				}
				continue
			}
			if err := w.s.MailSent(m); err != nil {
				slog.Error("mail: record sent", "mail_id", m.ID, "error", err)
			}
		}
	}
}
