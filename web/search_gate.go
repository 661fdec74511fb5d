package web

import (
	"context"
	"sync"
)

// searchGate lets each token run one contact search at a time. A search is CPU work (up to
// about 10 ms at a million contacts), so a token sending many at once would hold every core and
// each other user's request would wait behind all of them; its searches queue instead, costing
// nothing while they wait, and still count against its rate limit. Other actions are not gated:
// sends are waits on the disk that DB.Batch coalesces, and need concurrency.
type searchGate struct {
	m sync.Map // token id → chan struct{} (capacity 1)
}

// enter waits for key's turn; the returned function ends it. It gives up when ctx ends (the
// client went away).
func (g *searchGate) enter(ctx context.Context, key string) (func(), error) {
	v, ok := g.m.Load(key)
	if !ok {
		v, _ = g.m.LoadOrStore(key, make(chan struct{}, 1))
	}
	ch := v.(chan struct{})
	select {
	case ch <- struct{}{}:
		return func() { <-ch }, nil
	case <-ctx.Done():
		return nil, ctx.Err()
	}
}
