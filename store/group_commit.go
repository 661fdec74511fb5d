package store

// Group commit: the writers that arrive while a transaction commits share the next one.
//
// bbolt's DB.Batch holds every batch for MaxBatchDelay (10 ms) before it starts, whether more
// writers are coming or not: a lone write waits 10 ms for nothing, and at a steady load each
// commit waits that long before its own write and fsync. groupCommit starts a transaction at
// once when none is running; the writers that arrive meanwhile queue, and the next transaction,
// started as soon as the running one has committed, takes all of them. The queue forms only
// while the disk is busy, so a batch is as big as the load makes it and never waits on a timer.
//
// It keeps DB.Batch's contract, which the store's write path relies on (update): the functions
// of a batch share one transaction and one fsync; if one of them returns an error (or panics),
// the transaction is rolled back, that function runs again alone in its own transaction, and
// the others run again together. So a function may run more than once.

import (
	"errors"
	"fmt"
	"sync"
	"time"
)

// maxGroup bounds the writers one transaction takes (DB.Batch's default MaxBatchSize).
const maxGroup = 1000

// groupLinger bounds how long a transaction that others already wait for is held for the
// writers just answered to come back (see loop).
const groupLinger = 2 * time.Millisecond

type groupCommit struct {
	write   func(fn func(*wtx) error) error // opens a write transaction (Store.writeTx)
	mu      sync.Mutex
	running bool
	queue   []groupCall
	arrived chan struct{} // a writer queued while a transaction ran (capacity 1)
}

type groupCall struct {
	fn  func(*wtx) error
	err chan error
}

// errRunAlone tells a writer its function failed inside a batch and must run alone.
var errRunAlone = errors.New("store: batch function failed; run it alone")

// run runs fn in a transaction shared with the writers waiting beside it and returns when that
// transaction has committed (or failed).
func (g *groupCommit) run(fn func(*wtx) error) error {
	c := groupCall{fn: fn, err: make(chan error, 1)}
	g.mu.Lock()
	g.queue = append(g.queue, c)
	if !g.running {
		g.running = true
		go g.loop()
	} else {
		select {
		case g.arrived <- struct{}{}:
		default:
		}
	}
	g.mu.Unlock()
	err := <-c.err
	if err == errRunAlone {
		// Alone, a panic is the writer's own again (bbolt rolls the transaction back).
		err = g.write(fn)
	}
	return err
}

// loop commits the queued writers, up to maxGroup a transaction, until none is left.
//
// Writers that run in a loop (32 API clients sending) come back soon after their answer. Taken
// as they come, they split into two groups that commit in turn, each half the size, and every
// commit rewrites the root-to-leaf paths of the trees it touches, whatever its size: half the
// writers a commit is nearly twice the pages a write. So when writers already wait, the next
// transaction waits for as many more as the last one answered, at most groupLinger (a lone
// writer, one that comes back after a commit it had alone, or writers queued behind no commit,
// never wait).
func (g *groupCommit) loop() {
	last := 0
	var linger *time.Timer
	for {
		g.mu.Lock()
		if want := min(len(g.queue)+last, maxGroup); last > 1 && len(g.queue) > 0 && len(g.queue) < want {
			if linger == nil {
				linger = time.NewTimer(groupLinger)
			} else {
				linger.Reset(groupLinger)
			}
		wait:
			for len(g.queue) < want {
				g.mu.Unlock()
				select {
				case <-g.arrived:
					g.mu.Lock()
				case <-linger.C:
					g.mu.Lock()
					break wait
				}
			}
			linger.Stop()
		}
		n := min(len(g.queue), maxGroup)
		if n == 0 {
			g.running = false
			g.mu.Unlock()
			return
		}
		calls := g.queue[:n:n]
		g.queue = g.queue[n:]
		if len(g.queue) == 0 {
			g.queue = nil // let the backing array go
		}
		g.mu.Unlock()
		g.commit(calls)
		last = n
	}
}

// commit runs calls in one transaction; a failing function is taken out (to run alone) and the
// rest run again, until the transaction of the others commits.
func (g *groupCommit) commit(calls []groupCall) {
	for len(calls) > 0 {
		failed := -1
		// What the writers buffer for the whole transaction is written last, inside it (writeTx).
		err := g.write(func(tx *wtx) error {
			for i, c := range calls {
				if err := callSafely(c.fn, tx); err != nil {
					failed = i
					return err
				}
			}
			return nil
		})
		if failed >= 0 {
			calls[failed].err <- errRunAlone
			calls = append(calls[:failed:failed], calls[failed+1:]...)
			continue
		}
		for _, c := range calls {
			c.err <- err
		}
		return
	}
}

// callSafely turns a panic of fn into its error, so that one writer's bug does not take down
// the transaction loop and the writers waiting on it.
func callSafely(fn func(*wtx) error, tx *wtx) (err error) {
	defer func() {
		if p := recover(); p != nil {
			err = fmt.Errorf("store: write function panicked: %v", p)
		}
	}()
	return fn(tx)
}
