package store_test

import (
	"fmt"
	"testing"

	"switchboard/store"
)

func TestShouldPauseThreshold(t *testing.T) {
	for _, c := range []struct {
		judged, failed int
		want           bool
	}{
		{0, 0, false},
		{99, 99, false}, // every one failed, but fewer than 100 verdicts: never
		{99, 21, false},
		{100, 20, false}, // exactly 20 %: not more than 20 %
		{100, 21, true},
		{100, 100, true},
		{150, 30, false},
		{150, 31, true},
		{1000, 200, false},
		{1000, 201, true},
	} {
		if got := store.ShouldPause(c.judged, c.failed); got != c.want {
			t.Errorf("ShouldPause(%d judged, %d failed) = %v, want %v", c.judged, c.failed, got, c.want)
		}
	}
}

// pauseFixture queues a broadcast to n numbers; failing(i) says whether the i-th copy's send fails.
type pauseRun struct {
	f       *fixture
	b       store.Broadcast
	failing map[string]bool // recipient → its copy is refused
}

func newPauseRun(t *testing.T, n int, failing func(i int) bool) *pauseRun {
	t.Helper()
	f := newFixture(t)
	r := &pauseRun{f: f, failing: map[string]bool{}}
	var rec []string
	for i := range n {
		p := fmt.Sprintf("+1415555%04d", 1000+i)
		rec = append(rec, p)
		if failing(i) {
			r.failing[p] = true
		}
	}
	b, err := f.s.SendBroadcast(f.ws, store.BroadcastInput{From: f.number, Recipients: rec, Text: "sale"})
	if err != nil {
		t.Fatal(err)
	}
	r.b = b
	return r
}

// step claims up to max copies and records the carrier's verdict on each: accepted (and
// delivered) or refused. It reports how many it claimed.
func (r *pauseRun) step(t *testing.T, max int) int {
	t.Helper()
	var outs []store.Outcome
	for _, c := range claimAll(t, r.f.s, max) {
		for _, m := range c.Messages {
			o := store.Outcome{WorkspaceID: r.f.ws, MessageID: m.ID, Provider: "sandbox"}
			if r.failing[m.To] {
				o.Err = "twilio 30007: filtered"
			} else {
				o.ProviderIDs, o.Delivered = []string{"sandbox-" + m.ID}, true
			}
			outs = append(outs, o)
		}
	}
	if err := r.f.s.RecordOutcomes(outs); err != nil {
		t.Fatal(err)
	}
	return len(outs)
}

func (r *pauseRun) broadcast(t *testing.T) store.Broadcast {
	t.Helper()
	b, err := r.f.s.Broadcast(r.f.ws, r.b.ID)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

func TestBroadcastPausesOnFailuresAndResumes(t *testing.T) {
	// Every third copy is refused (50 of 150, 33 %).
	r := newPauseRun(t, 150, func(i int) bool { return i%3 == 0 })
	if n := r.step(t, 99); n != 99 {
		t.Fatalf("claimed %d, want 99", n)
	}
	if b := r.broadcast(t); b.Status != store.BroadcastSending {
		t.Fatalf("after 99 verdicts status %q, want sending (fewer than 100 never pause)", b.Status)
	}
	r.step(t, 1)
	b := r.broadcast(t)
	if b.Status != store.BroadcastPaused || b.PausedJudged != 100 || b.PausedFailed != 34 || b.PausedAt == nil {
		t.Fatalf("after 100 verdicts: status %q paused at %d/%d, want paused at 34 failed of 100", b.Status, b.PausedFailed, b.PausedJudged)
	}
	// Paused: the dispatcher gets nothing, and the copies stay queued and outstanding.
	if n := r.step(t, 100); n != 0 {
		t.Fatalf("a paused broadcast gave the dispatcher %d copies", n)
	}
	if b := r.broadcast(t); b.Outstanding != 50 || b.Status != store.BroadcastPaused {
		t.Errorf("paused: outstanding %d status %q, want 50 paused", b.Outstanding, b.Status)
	}
	if d := r.f.s.OutboxDepth(); d != 50 {
		t.Errorf("outbox depth %d while paused, want 50 (held copies are still queued)", d)
	}
	// Resuming twice: the second is a conflict.
	if _, err := r.f.s.ResumeBroadcast(r.f.ws, r.b.ID); err != nil {
		t.Fatal(err)
	}
	_, err := r.f.s.ResumeBroadcast(r.f.ws, r.b.ID)
	wantKind(t, err, store.ErrConflict, "broadcast is sending: only a paused broadcast can be resumed")
	// Judged afresh: the last 50 (33 % failing) cannot pause it again; it finishes.
	for r.step(t, 20) > 0 {
	}
	b = r.broadcast(t)
	if b.Status != store.BroadcastSent || b.TotalSent != 100 || b.TotalDelivered != 100 || b.TotalFailed != 50 || b.Outstanding != 0 {
		t.Errorf("after the resume: %q sent %d delivered %d failed %d outstanding %d, want sent 100/100/50/0",
			b.Status, b.TotalSent, b.TotalDelivered, b.TotalFailed, b.Outstanding)
	}
	if d := r.f.s.OutboxDepth(); d != 0 {
		t.Errorf("outbox depth %d at the end, want 0", d)
	}
}

func TestBroadcastAtTwentyPercentKeepsGoing(t *testing.T) {
	// One in five refused: exactly 20 % at every hundredth verdict.
	r := newPauseRun(t, 200, func(i int) bool { return i%5 == 4 })
	for r.step(t, 25) > 0 {
	}
	if b := r.broadcast(t); b.Status != store.BroadcastSent || b.TotalFailed != 40 || b.TotalSent != 160 {
		t.Errorf("status %q failed %d sent %d, want sent with 40 failed of 200", b.Status, b.TotalFailed, b.TotalSent)
	}
}

func TestCancelPausedBroadcastCountsWaitingCopies(t *testing.T) {
	r := newPauseRun(t, 130, func(i int) bool { return i < 30 })
	r.step(t, 100)
	if b := r.broadcast(t); b.Status != store.BroadcastPaused {
		t.Fatalf("status %q, want paused", b.Status)
	}
	r.step(t, 100) // the claim sets the 30 waiting copies aside
	b, err := r.f.s.CancelBroadcast(r.f.ws, r.b.ID)
	if err != nil {
		t.Fatal(err)
	}
	if b.Status != store.BroadcastCancelled || b.TotalCancelled != 30 || b.Outstanding != 0 || b.TotalSent != 70 || b.TotalFailed != 30 {
		t.Errorf("cancelled: %q cancelled %d outstanding %d sent %d failed %d, want 30 cancelled, 0 outstanding, 70 sent, 30 failed",
			b.Status, b.TotalCancelled, b.Outstanding, b.TotalSent, b.TotalFailed)
	}
	if d := r.f.s.OutboxDepth(); d != 0 {
		t.Errorf("outbox depth %d after the cancel, want 0", d)
	}
	if n := r.step(t, 100); n != 0 {
		t.Errorf("%d copies of a cancelled broadcast were claimed", n)
	}
	_, err = r.f.s.ResumeBroadcast(r.f.ws, r.b.ID)
	wantKind(t, err, store.ErrConflict, "broadcast is cancelled: only a paused broadcast can be resumed")
}
