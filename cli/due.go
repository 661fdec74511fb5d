package cli

import (
	"context"
	"log/slog"
	"sync"
	"time"

	"switchboard/store"
)

// dueMaxWait bounds how long the due timer sleeps without looking at the queue again, so that
// a clock set forward (or an entry written by another process) is noticed.
const dueMaxWait = time.Minute

// startDueTimer runs the store's due automations (conversation.unanswered rules, first-response
// deadlines) when they come due by now: it sleeps until the queue's next due time, and wakes
// early when wake is called (the store's Due hook: a commit queued an entry that may be due
// sooner). The library exposes the job (store.RunDue); serve owns the timer, like every
// sweeper. stop waits for a run in progress; wake does nothing once it stopped.
func startDueTimer(s *store.Store, now func() time.Time) (wake, stop func()) {
	ch := make(chan struct{}, 1)
	wake = func() {
		select {
		case ch <- struct{}{}:
		default:
		}
	}
	ctx, cancel := context.WithCancel(context.Background())
	var wg sync.WaitGroup
	wg.Go(func() {
		for {
			n, next, err := s.RunDue(now(), 500)
			if err != nil {
				slog.Error("automations due", "err", err)
			} else if n > 0 {
				slog.Info("automations due", "done", n)
			}
			if err == nil && n == 500 {
				continue // more are due: on at once
			}
			wait := dueMaxWait
			if !next.IsZero() {
				wait = min(wait, max(next.Sub(now()), 0))
			}
			t := time.NewTimer(wait)
			select {
			case <-ctx.Done():
				t.Stop()
				return
			case <-ch:
			case <-t.C:
			}
			t.Stop()
		}
	})
	var once sync.Once
	return wake, func() { once.Do(func() { cancel(); wg.Wait() }) }
}
