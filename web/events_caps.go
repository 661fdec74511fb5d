package web

import "sync"

// Default bounds of the open GET /events streams: a browser tab holds one, so ten per session
// is ten tabs of one browser, and thirty per user three devices' worth. One client cannot then
// fill the server's connection bound with streams and lock everyone else out.
const (
	defaultStreamsPerSession = 10
	defaultStreamsPerUser    = 30
)

// streamCaps counts the open streams per session and per user against their bounds (0 or less:
// no bound).
type streamCaps struct {
	perSession, perUser int
	mu                  sync.Mutex
	sessions, users     map[string]int
}

func newStreamCaps(perSession, perUser int) *streamCaps {
	return &streamCaps{perSession: perSession, perUser: perUser, sessions: map[string]int{}, users: map[string]int{}}
}

// capOf maps a Config value to a bound: 0 is the default, less than 0 none.
func capOf(v, def int) int {
	switch {
	case v == 0:
		return def
	case v < 0:
		return 0
	}
	return v
}

// open takes a place for a stream of session and user, or none when either is at its bound
// (ok false); release gives the place back when the stream ends.
func (c *streamCaps) open(session, user string) (release func(), ok bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if (c.perSession > 0 && c.sessions[session] >= c.perSession) || (c.perUser > 0 && c.users[user] >= c.perUser) {
		return nil, false
	}
	c.sessions[session]++
	c.users[user]++
	return func() {
		c.mu.Lock()
		defer c.mu.Unlock()
		if c.sessions[session]--; c.sessions[session] <= 0 {
			delete(c.sessions, session)
		}
		if c.users[user]--; c.users[user] <= 0 {
			delete(c.users, user)
		}
	}, true
}
