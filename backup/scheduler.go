package backup

import (
	"compress/gzip"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"sync"
	"sync/atomic"
	"time"

	"github.com/prometheus/client_golang/prometheus"
)

// Source writes a consistent copy of the database to w (store.Store.Backup).
type Source interface {
	Backup(w io.Writer, size func(int64)) (int64, error)
}

// Options configure a Scheduler.
type Options struct {
	Keep     int                  // backups kept at the target; older ones are deleted (default 24)
	Now      func() time.Time     // the clock that names backups; nil means time.Now
	Registry *prometheus.Registry // receives the backup metrics; nil registers none
	Logger   *slog.Logger         // nil means slog.Default()
}

// Status is what the last backups did, for the admin page.
type Status struct {
	LastSuccess time.Time // zero before the first success seen (made here or found at start)
	LastName    string
	LastBytes   int64
	LastFailure time.Time // zero when no backup failed since start
	LastError   string
	Failures    int
}

// Failing reports whether the latest attempt failed.
func (s Status) Failing() bool { return !s.LastFailure.IsZero() && s.LastFailure.After(s.LastSuccess) }

// Scheduler makes backups of a Source at a Target, keeps the newest Keep and counts failures.
type Scheduler struct {
	src    Source
	target Target
	keep   int
	now    func() time.Time
	log    *slog.Logger

	lastSuccess prometheus.Gauge
	failures    prometheus.Counter
	bytes       prometheus.Gauge

	mu     sync.Mutex
	status Status
	every  time.Duration // set by Start
}

// NewScheduler returns a scheduler of backups of src to target.
func NewScheduler(src Source, target Target, opts Options) *Scheduler {
	if opts.Keep <= 0 {
		opts.Keep = 24
	}
	if opts.Now == nil {
		opts.Now = time.Now
	}
	if opts.Logger == nil {
		opts.Logger = slog.Default()
	}
	s := &Scheduler{src: src, target: target, keep: opts.Keep, now: opts.Now, log: opts.Logger,
		lastSuccess: prometheus.NewGauge(prometheus.GaugeOpts{Name: "switchboard_backup_last_success_timestamp_seconds",
			Help: "Unix time of the newest successful backup at -backup-url (0 before the first)."}),
		failures: prometheus.NewCounter(prometheus.CounterOpts{Name: "switchboard_backup_failures_total",
			Help: "Scheduled backups that failed (each is retried at the next tick)."}),
		bytes: prometheus.NewGauge(prometheus.GaugeOpts{Name: "switchboard_backup_bytes",
			Help: "Stored (compressed) size in bytes of the newest successful backup."}),
	}
	if opts.Registry != nil {
		opts.Registry.MustRegister(s.lastSuccess, s.failures, s.bytes)
	}
	return s
}

// Keep is how many backups are kept at the target.
func (s *Scheduler) Keep() int { return s.keep }

// Every is the interval Start was given (0 before Start).
func (s *Scheduler) Every() time.Duration {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.every
}

// Target is where the backups go.
func (s *Scheduler) Target() Target { return s.target }

// Status returns what the last backups did.
func (s *Scheduler) Status() Status {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.status
}

// List lists the backups at the target, newest first.
func (s *Scheduler) List(ctx context.Context) ([]Object, error) { return s.target.List(ctx) }

// Start makes a backup every interval until stop is called; stop waits for a backup under way
// to end (it is cancelled). The first backup is due one interval after the newest one at the
// target, at once when there is none, so that restarting the server neither skips backups nor
// piles them up. A failed backup is retried at the next tick.
func (s *Scheduler) Start(every time.Duration) (stop func()) {
	s.mu.Lock()
	s.every = every
	s.mu.Unlock()
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() {
		defer close(done)
		s.loop(ctx, every)
	}()
	return func() {
		cancel()
		<-done
	}
}

func (s *Scheduler) loop(ctx context.Context, every time.Duration) {
	next := s.now()
	if newest, ok := s.newest(ctx); ok {
		next = newest.Add(every)
	}
	timer := time.NewTimer(max(0, next.Sub(s.now())))
	defer timer.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-timer.C:
		}
		_, _ = s.BackupNow(ctx)
		// The next tick is one interval after this one; ticks missed while a backup ran late
		// are skipped, not run back to back.
		now := s.now()
		for next = next.Add(every); !next.After(now); next = next.Add(every) {
		}
		timer.Reset(next.Sub(now))
	}
}

// newest looks up the newest backup at the target, so that the metrics and the schedule start
// from it. A failure here is not counted: the first backup will show whether the target works.
func (s *Scheduler) newest(ctx context.Context) (time.Time, bool) {
	lctx, cancel := context.WithTimeout(ctx, time.Minute)
	defer cancel()
	objs, err := s.target.List(lctx)
	if err != nil || len(objs) == 0 {
		return time.Time{}, false
	}
	s.mu.Lock()
	s.status.LastSuccess, s.status.LastName, s.status.LastBytes = objs[0].Time, objs[0].Name, objs[0].Size
	s.mu.Unlock()
	s.lastSuccess.Set(float64(objs[0].Time.Unix()))
	s.bytes.Set(float64(objs[0].Size))
	return objs[0].Time, true
}

// BackupNow makes one backup, then deletes the oldest beyond Keep. A failure is logged (the
// target's name never holds credentials), counted, and kept for Status.
func (s *Scheduler) BackupNow(ctx context.Context) (Object, error) {
	start := s.now()
	obj, err := s.backup(ctx, Name(start))
	if err != nil && ctx.Err() != nil {
		// Cut short by shutdown: not a failure of the target; the next start catches up.
		s.log.Info("backup cancelled by shutdown", "target", s.target.String())
		return Object{}, err
	}
	if err != nil {
		s.failures.Inc()
		s.mu.Lock()
		s.status.LastFailure, s.status.LastError = start, err.Error()
		s.status.Failures++
		s.mu.Unlock()
		s.log.Error("backup failed; retrying at the next tick", "target", s.target.String(), "err", err)
		return Object{}, err
	}
	s.lastSuccess.Set(float64(start.Unix()))
	s.bytes.Set(float64(obj.Size))
	s.mu.Lock()
	s.status.LastSuccess, s.status.LastName, s.status.LastBytes = start, obj.Name, obj.Size
	s.mu.Unlock()
	s.log.Info("backup written", "target", s.target.String(), "name", obj.Name, "bytes", obj.Size,
		"took", s.now().Sub(start).Round(time.Millisecond))
	if err := s.prune(ctx); err != nil {
		// The backup itself is safe; old ones are pruned at the next success.
		s.log.Warn("backup retention failed", "target", s.target.String(), "err", err)
	}
	return obj, nil
}

// backup streams the store's copy through gzip into the target: the copy is written into a pipe
// as the target reads it, so memory holds one buffer whatever the size of the database.
func (s *Scheduler) backup(ctx context.Context, name string) (Object, error) {
	pr, pw := io.Pipe()
	var stopped atomic.Bool // set once the target stopped reading: the copy's error is then ours
	copyErr := make(chan error, 1)
	go func() {
		zw, _ := gzip.NewWriterLevel(pw, gzip.BestSpeed) // the level is valid
		_, err := s.src.Backup(zw, nil)
		if err == nil {
			err = zw.Close()
		}
		if err != nil && stopped.Load() {
			err = nil // the write failed because the target stopped reading
		}
		copyErr <- err
		pw.CloseWithError(err) // nil: the reader sees EOF
	}()
	h := sha256.New()
	n, err := s.target.Put(ctx, name, io.TeeReader(pr, h), func() string { return hex.EncodeToString(h.Sum(nil)) })
	// Unblock the writer if the target stopped reading early.
	stopped.Store(true)
	pr.CloseWithError(errTargetStopped)
	if cerr := <-copyErr; cerr != nil {
		// The copy itself failed: that is the cause, whatever the target made of the cut stream.
		return Object{}, fmt.Errorf("copy the database: %w", cerr)
	}
	if err != nil {
		return Object{}, err
	}
	t, _ := ParseName(name)
	return Object{Name: name, Size: n, Time: t, SHA256: hex.EncodeToString(h.Sum(nil))}, nil
}

var errTargetStopped = errors.New("backup: the target stopped reading")

// prune deletes the backups beyond the newest Keep; only files named like a backup are touched.
func (s *Scheduler) prune(ctx context.Context) error {
	objs, err := s.target.List(ctx)
	if err != nil {
		return err
	}
	for _, o := range objs[min(len(objs), s.keep):] {
		if err := s.target.Delete(ctx, o.Name); err != nil {
			return err
		}
		s.log.Info("old backup deleted", "target", s.target.String(), "name", o.Name)
	}
	return nil
}
