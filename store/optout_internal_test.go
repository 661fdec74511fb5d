package store

import (
	"path/filepath"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/bits-and-blooms/bloom/v3"
)

// TestOptOutFilterGrowthKeepsUncommittedOptOuts: when an opt-out fills the workspace's bloom
// filter, the rebuild that grows it must not lose that opt-out, which is not committed yet when
// the rebuild starts. A lost number is a false "not opted out": texts would go to someone who
// said STOP.
func TestOptOutFilterGrowthKeepsUncommittedOptOuts(t *testing.T) {
	s, err := Open(filepath.Join(t.TempDir(), "sb.db"), Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	w, err := s.CreateWorkspace("Acme")
	if err != nil {
		t.Fatal(err)
	}
	if _, _, err := s.CreateOptOut(w.ID, "", "+14155550001", OptOutAPI); err != nil {
		t.Fatal(err)
	}
	// Replace the filter with a full one, so that the next opt-out starts a rebuild.
	ws, _ := ParseID(w.ID)
	full := &optFilter{f: bloom.NewWithEstimates(16, 0.001), cap: 1}
	full.add("+14155550001")
	s.optMu.Lock()
	s.optBloom[ws] = full
	s.optMu.Unlock()

	tx, btx := beginWrite(t, s)
	if _, created, err := s.createOptOut(tx, w.ID, "", "+14155550002", OptOutKeyword, optOutSource{}); err != nil || !created {
		btx.Rollback()
		t.Fatalf("createOptOut = %v, %v", created, err)
	}
	// Let the rebuild go as far as it can before the commit: a rebuild that does not wait for
	// this transaction finishes and replaces the filter; one that waits stands at the start of
	// its own write transaction.
	waitUntil(t, "the rebuild finishes or waits for the writer", func() bool {
		return s.optFilterOf(w.ID) != full || waitingToWrite("rebuildOptOutFilters")
	})
	if err := btx.Commit(); err != nil {
		t.Fatal(err)
	}
	waitUntil(t, "the full filter is rebuilt", func() bool { return s.optFilterOf(w.ID) != full })
	for _, p := range []string{"+14155550001", "+14155550002"} {
		if out, err := s.IsOptedOut(w.ID, p); err != nil || !out {
			t.Errorf("IsOptedOut(%s) after the filter grew = %v, %v; want true", p, out, err)
		}
	}
}

// waitUntil polls cond, which background work makes true, for up to 5 s.
func waitUntil(t *testing.T, what string, cond func() bool) {
	t.Helper()
	for deadline := time.Now().Add(5 * time.Second); !cond(); time.Sleep(time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatalf("timed out waiting until %s", what)
		}
	}
}

// waitingToWrite reports whether a goroutine running fn (a function of this package) stands
// in bbolt's start of a write transaction, which waits for the open writer to finish. The
// goroutine stacks are the only witness: bbolt's writer lock is a sync.Mutex, on which
// testing/synctest does not see a goroutine as blocked.
func waitingToWrite(fn string) bool {
	buf := make([]byte, 1<<16)
	for {
		n := runtime.Stack(buf, true)
		if n < len(buf) {
			buf = buf[:n]
			break
		}
		buf = make([]byte, 2*len(buf))
	}
	for _, g := range strings.Split(string(buf), "\n\n") {
		if strings.Contains(g, "store.(*Store)."+fn+"(") && strings.Contains(g, "bbolt.(*DB).beginRWTx(") {
			return true
		}
	}
	return false
}

// TestOptOutFilterGrowsOnce: a transaction that adds many opt-outs past the filter's capacity
// starts one rebuild, not one per number.
func TestOptOutFilterGrowsOnce(t *testing.T) {
	f := &optFilter{f: bloom.NewWithEstimates(16, 0.001), cap: 2}
	grows := 0
	for _, p := range []string{"+1", "+2", "+3", "+4", "+5"} {
		if f.add(p) {
			grows++
		}
	}
	if grows != 1 {
		t.Errorf("a filter over capacity asked to grow %d times, want once", grows)
	}
}
