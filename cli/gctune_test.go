package cli

import (
	"os"
	"runtime"
	"runtime/debug"
	"testing"
	"time"

	"github.com/bytedance/gopkg/util/gctuner"
)

// An operator's GOGC or GOMEMLIMIT wins: tuneGC leaves the collector as it found it.
func TestTuneGCLeavesOperatorsSetting(t *testing.T) {
	for _, env := range []string{"GOGC", "GOMEMLIMIT"} {
		t.Run(env, func(t *testing.T) {
			t.Setenv(env, map[string]string{"GOGC": "100", "GOMEMLIMIT": "1GiB"}[env])
			prev := debug.SetGCPercent(123)
			tuneGC()
			if got := debug.SetGCPercent(prev); got != 123 {
				t.Errorf("with %s set, the collector's percent became %d", env, got)
			}
		})
	}
}

// Without them, a small live heap may grow to the floor before a collection: the percent goes
// above Go's 100 after the next cycle.
func TestTuneGCRaisesThePercentForASmallHeap(t *testing.T) {
	if os.Getenv("GOGC") != "" || os.Getenv("GOMEMLIMIT") != "" {
		t.Skip("GOGC or GOMEMLIMIT is set in this environment: tuneGC leaves the collector alone")
	}
	tuneGC()
	deadline := time.Now().Add(10 * time.Second)
	for gctuner.GetGCPercent() <= 100 {
		if time.Now().After(deadline) {
			t.Fatalf("the collector's percent is %d after the cycles, want above 100", gctuner.GetGCPercent())
		}
		runtime.GC() // the tuner sets the percent after each cycle
		runtime.Gosched()
	}
}
