package web

import (
	"bufio"
	"net/http"
	"slices"
	"strconv"
	"sync"
	"time"

	"switchboard/store"
)

// The push stream of the live inbox. The store's live event log is the truth (numbered
// events, replay, pruning); the broker only wakes the streams of a workspace after a commit
// added to its log. A wake is a non-blocking send on a one-slot channel, so a slow stream never
// holds up the broker or the others: it reads what it missed from the log when it gets to it,
// and one that cannot take its writes within streamWriteTimeout is dropped (the browser comes
// back with Last-Event-ID).

// pingEvery is how often an idle stream sends a comment line, so proxies keep it open.
const pingEvery = 15 * time.Second

// streamWriteTimeout bounds each write to a stream; the server's WriteTimeout does not apply.
const streamWriteTimeout = 10 * time.Second

// streamBatch is how many events a stream reads from the log at a time.
const streamBatch = 256

// broker fans commit notices out to the streams of each workspace. Per stream it keeps one
// pointer and a one-slot channel.
type broker struct {
	mu   sync.Mutex
	subs map[string][]*subscriber
	done <-chan struct{}
}

type subscriber struct{ wake chan struct{} }

func newBroker(done <-chan struct{}) *broker {
	return &broker{subs: map[string][]*subscriber{}, done: done}
}

func (b *broker) subscribe(ws string) *subscriber {
	s := &subscriber{wake: make(chan struct{}, 1)}
	b.mu.Lock()
	b.subs[ws] = append(b.subs[ws], s)
	b.mu.Unlock()
	return s
}

func (b *broker) unsubscribe(ws string, s *subscriber) {
	b.mu.Lock()
	defer b.mu.Unlock()
	list := slices.DeleteFunc(b.subs[ws], func(x *subscriber) bool { return x == s })
	if len(list) == 0 {
		delete(b.subs, ws)
	} else {
		b.subs[ws] = list
	}
}

// wake tells the streams of the workspaces that their log grew (or who may read it changed).
func (b *broker) wake(workspaceIDs []string) {
	b.mu.Lock()
	defer b.mu.Unlock()
	for _, ws := range workspaceIDs {
		for _, s := range b.subs[ws] {
			select {
			case s.wake <- struct{}{}:
			default: // already due to wake: it will read everything new
			}
		}
	}
}

// streams counts the open streams (tests and benchmarks).
func (b *broker) streams() int {
	b.mu.Lock()
	defer b.mu.Unlock()
	n := 0
	for _, l := range b.subs {
		n += len(l)
	}
	return n
}

// lastEventID is the Last-Event-ID header as a number, else the query's `after` (a page's
// first connection: the last event before the page loaded); ok is false when neither is a
// number (then the stream starts with what happens next).
func lastEventID(r *http.Request) (uint64, bool) {
	v := r.Header.Get("Last-Event-ID")
	if v == "" {
		v = r.URL.Query().Get("after")
	}
	if v == "" {
		return 0, false
	}
	n, err := strconv.ParseUint(v, 10, 64)
	if err != nil {
		return 0, false
	}
	return n, true
}

// events is GET /events: the signed-in user's stream of the current workspace's live events.
func (h *Handler) events(w http.ResponseWriter, r *http.Request) {
	if c := h.cfg.Cluster; c != nil {
		// Served by any node: first catch up with the leader, so that a session or a
		// membership it just committed is here too.
		if err := c.ReadBarrier(r.Context()); err != nil {
			h.unavailable(w, r)
			return
		}
	}
	ss := h.cfg.Sessions
	user, ok := ss.CurrentUser(r)
	if !ok {
		writeError(w, http.StatusUnauthorized, "sign in first")
		return
	}
	ws, err := h.streamWorkspace(r, user)
	if err != nil {
		writeStoreError(w, r, err)
		return
	}
	if ws == "" {
		writeError(w, http.StatusForbidden, "you are not a member of any workspace")
		return
	}
	release, ok := h.streamCaps.open(ss.SessionID(r), user.ID)
	if !ok {
		w.Header().Set("Retry-After", "30")
		writeError(w, http.StatusTooManyRequests, "too many open live streams for this session or user: close a tab or window of Switchboard")
		return
	}
	defer release()
	// Subscribe before reading where the log stands, so that no commit falls between the two.
	sub := h.broker.subscribe(ws)
	defer h.broker.unsubscribe(ws, sub)
	defer h.presence.opened(user.ID, ws)() // the user is not away
	defer h.store.StreamOpened(user.ID)()  // nor offline, for auto-assignment
	cursor, resume := lastEventID(r)
	if !resume {
		if cursor, err = h.store.LastLiveEvent(ws); err != nil {
			writeStoreError(w, r, err)
			return
		}
	}
	hd := w.Header()
	hd.Set("Content-Type", "text/event-stream")
	hd.Set("Cache-Control", "no-store")
	hd.Set("X-Accel-Buffering", "no") // proxies must not hold events back
	rc := http.NewResponseController(w)
	// The server's ReadTimeout would cancel the request once it passes (the connection's
	// background read fails): a stream reads nothing more, so it has no read deadline.
	_ = rc.SetReadDeadline(time.Time{})
	bw := bufio.NewWriterSize(w, 512)
	// flush sends what is buffered within streamWriteTimeout, then lifts the deadline so that
	// an idle stream is not cut by the server's WriteTimeout.
	flush := func() bool {
		_ = rc.SetWriteDeadline(h.now().Add(streamWriteTimeout))
		if bw.Flush() != nil || rc.Flush() != nil {
			return false
		}
		_ = rc.SetWriteDeadline(time.Time{})
		return true
	}
	w.WriteHeader(http.StatusOK)
	bw.WriteString("retry: 2000\n\n")
	if !flush() {
		return
	}
	ping := time.NewTicker(pingEvery)
	defer ping.Stop()
	sight := &streamSight{numbers: map[string]string{}}
	for {
		// Deliver everything the log holds after the cursor, in batches, checking access first.
		for {
			evs, last, tooOld, err := h.store.LiveEventsAfter(ws, cursor, streamBatch)
			if err != nil || !h.streamAllowed(r, ws, user.ID) {
				return
			}
			if tooOld {
				cursor = last
				bw.WriteString("id: " + strconv.FormatUint(last, 10) + "\nevent: reset\ndata: {\"type\":\"reset\"}\n\n")
				break
			}
			if err := h.see(sight, ws, user.ID, evs); err != nil {
				return
			}
			for _, e := range evs {
				cursor = e.Seq
				if !e.For(user.ID) || !sight.shows(e.Data) {
					continue
				}
				bw.WriteString("id: " + strconv.FormatUint(e.Seq, 10) + "\nevent: " + e.Type + "\ndata: ")
				bw.Write(e.Data)
				bw.WriteString("\n\n")
			}
			if len(evs) < streamBatch {
				break
			}
			if !flush() {
				return
			}
		}
		if !flush() {
			return
		}
		select {
		case <-r.Context().Done():
			return
		case <-h.broker.done:
			return
		case <-sub.wake:
		case <-ping.C:
			if !h.streamAllowed(r, ws, user.ID) {
				return
			}
			bw.WriteString(": ping\n\n")
		}
	}
}

// streamWorkspace is the session's current workspace, as the pages choose it: the one kept in
// the session when the user may still open it, else their first; "" when they have none.
func (h *Handler) streamWorkspace(r *http.Request, user store.User) (string, error) {
	want := h.cfg.Sessions.SessionValue(r, sessionWorkspace)
	var wss []store.Workspace
	var err error
	if user.Superuser {
		wss, err = h.store.Workspaces()
	} else {
		wss, err = h.store.UserWorkspaces(user.ID)
	}
	if err != nil {
		return "", err
	}
	archived, err := h.store.ArchivedWorkspaces()
	if err != nil {
		return "", err
	}
	wss = slices.DeleteFunc(wss, func(w store.Workspace) bool { return archived[w.ID] })
	for _, w := range wss {
		if w.ID == want {
			return w.ID, nil
		}
	}
	if len(wss) > 0 {
		return wss[0].ID, nil
	}
	return "", nil
}

// streamAllowed is the check made when a stream opens and before each event it sends: the
// session still signs the same user in (not signed out, idle or expired; the user exists),
// who is still a member of the workspace (or a superuser), the workspace is not archived, and
// Config.StreamAccess agrees.
func (h *Handler) streamAllowed(r *http.Request, ws, userID string) bool {
	u, ok := h.cfg.Sessions.CurrentUser(r)
	if !ok || u.ID != userID {
		return false
	}
	if archived, err := h.store.WorkspaceArchived(ws); err != nil || archived {
		return false
	}
	if !u.Superuser {
		if err := h.store.Authorize(ws, userID); err != nil {
			return false
		}
	}
	if f := h.cfg.StreamAccess; f != nil && !f(r, userID) {
		return false
	}
	return true
}
