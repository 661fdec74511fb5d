package store

import (
	"sync"
	"time"

	"switchboard/store/kv"
)

// Availability is whether a member takes new conversations: available or away as they chose
// (in the header, or `admin set-availability`), and offline — whatever they chose — once they
// have had no open live stream (GET /events) for OfflineAfter. Auto-assignment hands
// conversations only to available members.
//
// The choice is kept in the database (bAvailability holds the users who chose away). Whether
// a stream is open is known only to this process and kept in memory: a server that starts
// counts everyone as seen at its start, so a restart makes no one offline before the browsers
// that were open have had the time to connect again. In a cluster the other nodes report the
// streams open on them to the leader (StreamUsers, SeenElsewhere).

// Availability states.
const (
	Available = "available"
	Away      = "away"
	Offline   = "offline"
)

// OfflineAfter is how long a user without an open live stream stays available.
const OfflineAfter = 5 * time.Minute

// presence counts each user's open live streams and remembers when their last one closed.
type presence struct {
	mu     sync.Mutex
	open   map[string]int
	closed map[string]time.Time
	start  time.Time
}

// StreamOpened records that userID opened a live stream; call the returned function when it
// closes. A user with a stream open is online; one whose last stream closed is online for
// OfflineAfter more.
func (s *Store) StreamOpened(userID string) (closed func()) {
	p := &s.presence
	p.mu.Lock()
	if p.open == nil {
		p.open, p.closed = map[string]int{}, map[string]time.Time{}
	}
	p.open[userID]++
	p.mu.Unlock()
	var once sync.Once
	return func() {
		once.Do(func() {
			p.mu.Lock()
			defer p.mu.Unlock()
			if p.open[userID]--; p.open[userID] <= 0 {
				delete(p.open, userID)
				p.closed[userID] = s.Now()
			}
		})
	}
}

// online reports whether userID has a live stream open, or had one within OfflineAfter
// (counting the server's start as one).
func (s *Store) online(userID string, now time.Time) bool {
	p := &s.presence
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.open[userID] > 0 {
		return true
	}
	last, ok := p.closed[userID]
	if !ok || last.Before(p.start) {
		last = p.start
	}
	return now.Sub(last) < OfflineAfter
}

// StreamUsers lists the users with a live stream open in this process. A cluster's node that
// does not lead tells the leader, which decides availability for auto-assignment (SeenElsewhere).
func (s *Store) StreamUsers() []string {
	p := &s.presence
	p.mu.Lock()
	defer p.mu.Unlock()
	out := make([]string, 0, len(p.open))
	for u := range p.open {
		out = append(out, u)
	}
	return out
}

// SeenElsewhere counts each of userIDs as having had a live stream open now on another node of
// the cluster: online for OfflineAfter more, as when a stream of theirs closes here.
func (s *Store) SeenElsewhere(userIDs []string) {
	now := s.Now()
	p := &s.presence
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.open == nil {
		p.open, p.closed = map[string]int{}, map[string]time.Time{}
	}
	for _, u := range userIDs {
		if p.closed[u].Before(now) {
			p.closed[u] = now
		}
	}
}

// chosenAway reports whether userID chose away.
func chosenAway(tx *kv.Tx, userID string) bool {
	return tx.Bucket(bAvailability).Get(idKey(userID)) != nil
}

// availability is userID's state now: offline without a stream, else what they chose.
func (s *Store) availability(tx *kv.Tx, userID string, now time.Time) string {
	switch {
	case !s.online(userID, now):
		return Offline
	case chosenAway(tx, userID):
		return Away
	}
	return Available
}

// Availability is userID's state now (available, away or offline) and what they chose
// (available or away).
func (s *Store) Availability(userID string) (state, chosen string, err error) {
	err = s.view(func(tx *kv.Tx) error {
		if _, err := getUser(tx, userID); err != nil {
			return err
		}
		chosen = Available
		if chosenAway(tx, userID) {
			chosen = Away
		}
		state = s.availability(tx, userID, s.Now())
		return nil
	})
	return state, chosen, err
}

// SetAvailability records userID's choice: available or away.
func (s *Store) SetAvailability(userID, chosen string) error {
	if chosen != Available && chosen != Away {
		return ValidationError{{"availability", "must be available or away"}}
	}
	return s.update(func(tx *wtx) error {
		if _, err := getUser(tx.Tx, userID); err != nil {
			return tx.refuse(err)
		}
		if chosen == Away {
			return tx.Bucket(bAvailability).Put(idKey(userID), []byte(Away))
		}
		return tx.Bucket(bAvailability).Delete(idKey(userID))
	})
}
