package web

import (
	"context"
	"sync"
)

// keyGate lets each key run one thing at a time.
//
// Contact searches wait their turn, per token: a search is CPU work (up to about 10 ms at a
// million contacts), so a token sending many at once would hold every core and each other
// user's request would wait behind all of them; its searches queue instead, costing nothing
// while they wait, and still count against its rate limit. Other actions are not gated: sends
// are waits on the disk that DB.Batch coalesces, and need concurrency.
//
// Assist requests do not wait, per user: a second one while the first runs is refused at once
// (tryEnter), since each holds a model's attention for seconds.
type keyGate struct {
	m sync.Map // key → chan struct{} (capacity 1)
}

func (g *keyGate) slot(key string) chan struct{} {
	v, ok := g.m.Load(key)
	if !ok {
		v, _ = g.m.LoadOrStore(key, make(chan struct{}, 1))
	}
	return v.(chan struct{})
}

// enter waits for key's turn; the returned function ends it. It gives up when ctx ends (the
// client went away).
func (g *keyGate) enter(ctx context.Context, key string) (func(), error) {
	ch := g.slot(key)
	select {
	case ch <- struct{}{}:
		return func() { <-ch }, nil
	case <-ctx.Done():
		return nil, ctx.Err()
	}
}

// tryEnter takes key's turn when it is free; false when something of key is running.
func (g *keyGate) tryEnter(key string) (func(), bool) {
	ch := g.slot(key)
	select {
	case ch <- struct{}{}:
		return func() { <-ch }, true
	default:
		return nil, false
	}
}
