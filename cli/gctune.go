package cli

import (
	"os"

	"github.com/bytedance/gopkg/util/gctuner"
)

// gcHeapFloor is the heap the garbage collector lets a serving process grow to before it
// collects, whatever the live heap: a server's live heap is a few megabytes (the database is
// mapped, not on the heap), so with Go's default (collect when the heap doubles) it collected
// every few hundred requests, a tenth of its CPU under load. Above half the floor the default
// holds (gctuner's percent never goes below 100), so the floor adds at most its own size to
// what the process would hold.
const gcHeapFloor = 32 << 20

// tuneGC sets the serving process's collector to gcHeapFloor, unless GOGC or GOMEMLIMIT says
// how the operator wants it.
func tuneGC() {
	if os.Getenv("GOGC") != "" || os.Getenv("GOMEMLIMIT") != "" {
		return
	}
	gctuner.SetMinGCPercent(100)
	gctuner.SetMaxGCPercent(500)
	gctuner.Tuning(gcHeapFloor)
}
