package web

import "switchboard/store"

// Alive reports whether a stored session may still be used by the server's clock: signed in
// less than 7 days ago and seen within the last 12 hours. Every request's session is held to
// it, and so is each Web Push before it goes to a device the session subscribed.
func (ss *Sessions) Alive(row store.Session) bool {
	now := ss.now()
	return now.Sub(row.CreatedAt) < sessionMax && now.Sub(row.LastSeen) < sessionIdle
}
