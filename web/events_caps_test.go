package web

import (
	"context"
	"net/http"
	"testing"
	"time"

	"switchboard/store"
)

// TestEventStreamsAreCapped: one session holds at most 10 open GET /events streams and one user
// 30; one more is refused with 429 and Retry-After (the connection bound stays free for everyone
// else), and a stream that ends frees its place.
func TestEventStreamsAreCapped(t *testing.T) {
	e := newUIEnv(t)
	sessions := []*http.Client{e.signIn(t, e.alice), e.signIn(t, e.alice), e.signIn(t, e.alice), e.signIn(t, e.alice)}
	var first []*sseStream
	for range 10 {
		first = append(first, e.openStream(t, sessions[0], ""))
	}
	if status, retry := e.streamStatus(t, sessions[0]); status != http.StatusTooManyRequests || retry == "" {
		t.Fatalf("an 11th stream of one session: %d (Retry-After %q), want 429 with Retry-After", status, retry)
	}
	for _, c := range sessions[1:3] {
		for range 10 {
			e.openStream(t, c, "")
		}
	}
	if status, _ := e.streamStatus(t, sessions[3]); status != http.StatusTooManyRequests {
		t.Fatalf("a 31st stream of one user: %d, want 429", status)
	}
	e.openStream(t, e.signIn(t, e.mo), "") // another user is not affected
	// A stream that ends frees its place (the server notices the closed connection).
	first[0].cancel()
	first[0].res.Body.Close()
	for deadline := time.Now().Add(5 * time.Second); ; time.Sleep(10 * time.Millisecond) {
		status, _ := e.streamStatus(t, sessions[0])
		if status == http.StatusOK {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("after a stream ended: %d, want its place free", status)
		}
	}
}

// streamStatus opens GET /events with c's session and returns its status and Retry-After, then
// ends it.
func (e *uiEnv) streamStatus(t *testing.T, c *http.Client) (int, string) {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	req, _ := http.NewRequestWithContext(ctx, "GET", e.srv.URL+"/events", nil)
	res, err := c.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer res.Body.Close()
	return res.StatusCode, res.Header.Get("Retry-After")
}

// TestEventsStreamEndsWhenWorkspaceArchived: a stream of a workspace that is archived sends
// nothing more (its inbound texts are still recorded) and ends.
func TestEventsStreamEndsWhenWorkspaceArchived(t *testing.T) {
	e := newUIEnv(t)
	s := e.openStream(t, e.signIn(t, e.alice), "")
	if err := e.st.SetWorkspaceArchived(e.a.ID, true); err != nil {
		t.Fatal(err)
	}
	if _, err := e.st.RecordInboundMessage(e.a.ID, store.InboundMessage{From: "+14155550123", To: e.numberA, Text: "anyone there?"}); err != nil {
		t.Fatal(err)
	}
	s.endsWithoutMessage(t)
}
