package store

import (
	"path/filepath"
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

	tx := beginWrite(t, s)
	if _, created, err := s.createOptOut(tx, w.ID, "", "+14155550002", OptOutKeyword); err != nil || !created {
		tx.Rollback()
		t.Fatalf("createOptOut = %v, %v", created, err)
	}
	// Give a rebuild that does not wait for this commit the time to finish first.
	time.Sleep(100 * time.Millisecond)
	if err := tx.Commit(); err != nil {
		t.Fatal(err)
	}
	deadline := time.Now().Add(5 * time.Second)
	for s.optFilterOf(w.ID) == full && time.Now().Before(deadline) {
		time.Sleep(5 * time.Millisecond)
	}
	if s.optFilterOf(w.ID) == full {
		t.Fatal("the full filter was never rebuilt")
	}
	for _, p := range []string{"+14155550001", "+14155550002"} {
		if out, err := s.IsOptedOut(w.ID, p); err != nil || !out {
			t.Errorf("IsOptedOut(%s) after the filter grew = %v, %v; want true", p, out, err)
		}
	}
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
