package web

import (
	"time"

	"switchboard/store"
)

// sendAtField reads an optional `sendAt` (RFC 3339, in the future, at most one calendar year
// ahead): the zero time when absent; a bad one fails the field.
func sendAtField(f *fields, now time.Time) time.Time {
	at := f.str("sendAt", false, 64)
	if at == "" {
		return time.Time{}
	}
	t, err := time.Parse(time.RFC3339Nano, at)
	if err != nil {
		f.fail("sendAt", "must be an RFC 3339 time such as 2026-12-01T09:00:00Z")
		return time.Time{}
	}
	if msg := store.CheckSendAt(t, now); msg != "" {
		f.fail("sendAt", msg)
		return time.Time{}
	}
	return t.UTC()
}
