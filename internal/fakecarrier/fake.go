// Package fakecarrier is a local Twilio and a local Telnyx for tests: each answers the account
// API (numbers, search, purchase, webhook settings, pricing) and the send API the way the real
// one documents it — its JSON, its pagination, its errors — records every request, and can be
// told to hang, fail, or answer what no carrier would. It is imported only by tests.
package fakecarrier

import (
	"io"
	"net/http"
	"net/url"
	"sync"
	"time"
)

// Request is one request a fake received.
type Request struct {
	Method string
	Path   string
	Query  url.Values
	// Form is the POST form (Twilio), Body the raw body (Telnyx's JSON).
	Form url.Values
	Body string
	// User is who signed it: Twilio's HTTP Basic user, or "bearer" for a Telnyx key; the
	// password or key itself is not kept.
	User string
	// OK says the credentials were accepted.
	OK bool
	At time.Time
}

// Fault is an answer a fake gives instead of its own to the next request of a route: Status
// and Body as they are, or Hang until the client gives up.
type Fault struct {
	Status int
	Body   string
	Hang   bool
}

// recorder is what both fakes share: the requests and the scripted faults.
type recorder struct {
	mu       sync.Mutex
	requests []Request
	faults   map[string][]Fault
}

// Fail makes the next requests of route answer faults, one each, in order.
func (r *recorder) Fail(route string, faults ...Fault) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.faults == nil {
		r.faults = map[string][]Fault{}
	}
	r.faults[route] = append(r.faults[route], faults...)
}

// Requests are the requests received so far, oldest first.
func (r *recorder) Requests() []Request {
	r.mu.Lock()
	defer r.mu.Unlock()
	return append([]Request(nil), r.requests...)
}

// Count is how many requests went to method and a path ending in suffix.
func (r *recorder) Count(method, suffix string) int {
	n := 0
	for _, q := range r.Requests() {
		if q.Method == method && len(q.Path) >= len(suffix) && q.Path[len(q.Path)-len(suffix):] == suffix {
			n++
		}
	}
	return n
}

func (r *recorder) record(q Request) {
	r.mu.Lock()
	r.requests = append(r.requests, q)
	r.mu.Unlock()
}

// fault takes the next fault of route and answers it; false when there is none.
func (r *recorder) fault(route string, w http.ResponseWriter, req *http.Request) bool {
	r.mu.Lock()
	fs := r.faults[route]
	if len(fs) == 0 {
		r.mu.Unlock()
		return false
	}
	f := fs[0]
	r.faults[route] = fs[1:]
	r.mu.Unlock()
	if f.Hang {
		select {
		case <-req.Context().Done():
		case <-time.After(time.Minute):
		}
		return true
	}
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(f.Status)
	io.WriteString(w, f.Body)
	return true
}
