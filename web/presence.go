package web

import (
	"sync"
	"time"
)

// presence knows who has an open GET /events stream of which workspace, for the notification
// e-mails: they go only to users who are away. A user counts as present for awayGrace after
// their last stream of the workspace closed, because every page load closes the stream and the
// next page opens a new one.
type presence struct {
	mu     sync.Mutex
	now    func() time.Time
	open   map[presenceKey]int
	closed map[presenceKey]time.Time
}

type presenceKey struct{ user, ws string }

// awayGrace is how long after their last stream closed a user still counts as present.
const awayGrace = time.Minute

func newPresence(now func() time.Time) *presence {
	return &presence{now: now, open: map[presenceKey]int{}, closed: map[presenceKey]time.Time{}}
}

// opened records a stream of user in ws; call the returned function when it ends.
func (p *presence) opened(user, ws string) (closed func()) {
	k := presenceKey{user, ws}
	p.mu.Lock()
	p.open[k]++
	p.mu.Unlock()
	return func() {
		p.mu.Lock()
		defer p.mu.Unlock()
		if p.open[k]--; p.open[k] <= 0 {
			delete(p.open, k)
			p.closed[k] = p.now()
		}
	}
}

// away reports whether user has no open stream of ws and closed none within awayGrace.
func (p *presence) away(user, ws string) bool {
	k := presenceKey{user, ws}
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.open[k] > 0 {
		return false
	}
	at, ok := p.closed[k]
	if !ok {
		return true
	}
	if p.now().Sub(at) < awayGrace {
		return false
	}
	delete(p.closed, k) // long gone: forget it, so that the map stays small
	return true
}
