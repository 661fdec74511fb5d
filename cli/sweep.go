package cli

import (
	"context"
	"log/slog"
	"sync"
	"time"
)

// sweeper is a periodic housekeeping job of the server: the library packages expose the job
// (store.SweepRetention, oauth.Provider.Sweep, webhooks.Worker.Purge) and serve owns its timer.
type sweeper struct {
	name     string
	interval time.Duration
	atStart  bool // run once at start, before the first tick
	// run does one sweep and says how many records it deleted (0 when it does not count).
	run func() (int, error)
}

// start runs the job every interval until the returned stop function is called; stop waits for
// a sweep in progress and may be called more than once. A failed sweep is logged and the next
// tick tries again: nothing is lost by waiting.
func (sw sweeper) start() (stop func()) {
	ctx, cancel := context.WithCancel(context.Background())
	var wg sync.WaitGroup
	wg.Go(func() {
		t := time.NewTicker(sw.interval)
		defer t.Stop()
		if sw.atStart {
			sw.once()
		}
		for {
			select {
			case <-ctx.Done():
				return
			case <-t.C:
				sw.once()
			}
		}
	})
	var once sync.Once
	return func() { once.Do(func() { cancel(); wg.Wait() }) }
}

func (sw sweeper) once() {
	n, err := sw.run()
	if err != nil {
		slog.Error(sw.name, "err", err, "deleted", n)
	} else if n > 0 {
		slog.Info(sw.name, "deleted", n)
	}
}
