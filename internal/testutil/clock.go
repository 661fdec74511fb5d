// Package testutil holds the helpers the tests of several packages share: an injectable
// clock, a Chromium launcher, a must helper and a free loopback port. It is imported only
// from _test.go files, so none of it reaches the binary.
package testutil

import (
	"sync"
	"time"
)

// Clock is an injected clock that tests move by hand instead of sleeping. It is safe for
// concurrent use: workers read it from their goroutines while the test advances it. Pass
// its Now method wherever the code under test takes a func() time.Time.
type Clock struct {
	mu sync.Mutex
	t  time.Time
}

// NewClock returns a clock stopped at start.
func NewClock(start time.Time) *Clock { return &Clock{t: start} }

// Now is the clock's current time.
func (c *Clock) Now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.t
}

// Set moves the clock to t (backwards too).
func (c *Clock) Set(t time.Time) {
	c.mu.Lock()
	c.t = t
	c.mu.Unlock()
}

// Advance moves the clock forward by d.
func (c *Clock) Advance(d time.Duration) {
	c.mu.Lock()
	c.t = c.t.Add(d)
	c.mu.Unlock()
}
