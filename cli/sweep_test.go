package cli

import (
	"errors"
	"sync/atomic"
	"testing"
	"testing/synctest"
	"time"
)

// TestSweeperRunsOnItsOwnAndStopsWhenTold: a sweeper runs its job at start when asked, then
// once per interval, keeps going after a failed sweep, and runs no more once stopped.
func TestSweeperRunsOnItsOwnAndStopsWhenTold(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		var runs atomic.Int32
		stop := sweeper{name: "test sweep", interval: time.Hour, atStart: true, run: func() (int, error) {
			if runs.Add(1) == 2 {
				return 0, errors.New("disk on fire")
			}
			return 1, nil
		}}.start()
		synctest.Wait()
		if n := runs.Load(); n != 1 {
			t.Fatalf("after start: %d sweeps, want 1 (atStart)", n)
		}
		time.Sleep(3 * time.Hour)
		synctest.Wait()
		if n := runs.Load(); n != 4 {
			t.Fatalf("after three hours: %d sweeps, want 4 (one failed, the next tick went on)", n)
		}
		stop()
		stop() // a second stop is harmless
		time.Sleep(5 * time.Hour)
		synctest.Wait()
		if n := runs.Load(); n != 4 {
			t.Fatalf("after stop: %d sweeps, want still 4", n)
		}
	})
}

// TestSweeperWithoutAtStartWaitsForTheFirstTick: the OAuth sweep starts an hour in.
func TestSweeperWithoutAtStartWaitsForTheFirstTick(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		var runs atomic.Int32
		stop := sweeper{name: "test sweep", interval: time.Hour, run: func() (int, error) { runs.Add(1); return 0, nil }}.start()
		defer stop()
		time.Sleep(59 * time.Minute)
		synctest.Wait()
		if n := runs.Load(); n != 0 {
			t.Fatalf("before the first tick: %d sweeps, want 0", n)
		}
		time.Sleep(2 * time.Minute)
		synctest.Wait()
		if n := runs.Load(); n != 1 {
			t.Fatalf("after the first tick: %d sweeps, want 1", n)
		}
	})
}
