package carrier

import (
	"log/slog"
	"sync"
	"time"

	"switchboard/store"
)

// Scheduler starts scheduled broadcasts when their time comes (within a second: it sleeps until
// the next one is due and is woken when one is scheduled), and at start finishes broadcasts whose
// fan-out a crash cut off. The schedule is the store's; a restart loses nothing.
type Scheduler struct {
	store *store.Store
	now   func() time.Time
	wake  chan struct{}
	stop  chan struct{}
	done  chan struct{}
	once  sync.Once
}

// NewScheduler builds a Scheduler; now nil is time.Now.
func NewScheduler(s *store.Store, now func() time.Time) *Scheduler {
	if now == nil {
		now = time.Now
	}
	return &Scheduler{store: s, now: now, wake: make(chan struct{}, 1), stop: make(chan struct{}), done: make(chan struct{})}
}

// Start resumes cut-off fan-outs (in the background) and runs the schedule.
func (sc *Scheduler) Start() {
	go sc.loop()
}

// Wake tells the scheduler a broadcast was scheduled (store.OnSchedule).
func (sc *Scheduler) Wake() {
	select {
	case sc.wake <- struct{}{}:
	default:
	}
}

// Stop ends the loop after the broadcast it is starting, if any.
func (sc *Scheduler) Stop() {
	sc.once.Do(func() { close(sc.stop) })
	<-sc.done
}

func (sc *Scheduler) loop() {
	defer close(sc.done)
	if n, err := sc.store.ResumeBroadcasts(); err != nil {
		slog.Error("scheduler: resume broadcasts", "err", err)
	} else if n > 0 {
		slog.Info("scheduler: finished broadcasts a restart cut off", "broadcasts", n)
	}
	for {
		due, next, err := sc.store.DueBroadcasts(sc.now())
		if err != nil {
			slog.Error("scheduler: due broadcasts", "err", err)
		}
		failed := err != nil
		for _, d := range due {
			select {
			case <-sc.stop:
				return
			default:
			}
			if err := sc.store.StartScheduledBroadcast(d); err != nil {
				failed = true
				slog.Error("scheduler: start broadcast", "broadcast", d.ID, "err", err)
			}
		}
		wait := time.Minute
		if !next.IsZero() {
			wait = min(wait, max(next.Sub(sc.now()), time.Millisecond))
		}
		if len(due) > 0 && !failed {
			continue
		}
		if failed {
			wait = min(wait, time.Second) // try again soon, without spinning
		}
		t := time.NewTimer(wait)
		select {
		case <-sc.stop:
			t.Stop()
			return
		case <-sc.wake:
		case <-t.C:
		}
		t.Stop()
	}
}
