package cluster

import (
	"bytes"
	"io"
	"log/slog"
	"path/filepath"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/hashicorp/raft"

	"switchboard/store"
)

// memSink is a snapshot sink in memory.
type memSink struct {
	bytes.Buffer
	cancelled bool
}

func (s *memSink) ID() string    { return "mem" }
func (s *memSink) Cancel() error { s.cancelled = true; return nil }
func (s *memSink) Close() error  { return nil }

// TestSnapshotInstallsOnAnotherNode: a snapshot of one node's database, installed on another
// node while readers keep reading it, gives that node the same workspaces and applied index,
// and no reader finds its database closed under it.
func TestSnapshotInstallsOnAnotherNode(t *testing.T) {
	dir := t.TempDir()
	a, err := store.Open(filepath.Join(dir, "a.db"), store.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer a.Close()
	index := uint64(0)
	a.Replicate(nil, func(entry []byte) error {
		index++
		return a.ApplyEntries([]store.Entry{{Index: index, Data: bytes.Clone(entry)}})[0]
	})
	for _, name := range []string{"Acme", "Globex", "Initech"} {
		if _, err := a.CreateWorkspace(name); err != nil {
			t.Fatal(err)
		}
	}
	b, err := store.Open(filepath.Join(dir, "b.db"), store.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer b.Close()

	snap, err := (&fsm{s: a, log: slog.Default()}).Snapshot()
	if err != nil {
		t.Fatal(err)
	}
	var sink memSink
	if err := snap.Persist(&sink); err != nil || sink.cancelled {
		t.Fatalf("persist: %v (cancelled %v)", err, sink.cancelled)
	}
	snap.Release()

	var stop atomic.Bool
	var readErrs atomic.Int64
	var wg sync.WaitGroup
	for range 4 {
		wg.Go(func() {
			for !stop.Load() {
				if _, err := b.Workspaces(); err != nil {
					readErrs.Add(1)
				}
			}
		})
	}
	if err := (&fsm{s: b, log: slog.Default()}).Restore(io.NopCloser(bytes.NewReader(sink.Bytes()))); err != nil {
		t.Fatal(err)
	}
	stop.Store(true)
	wg.Wait()
	if n := readErrs.Load(); n > 0 {
		t.Errorf("%d reads failed while the snapshot was installed", n)
	}
	wss, err := b.Workspaces()
	if err != nil || len(wss) != 3 {
		t.Fatalf("after the install the node lists %d workspaces (%v); want 3", len(wss), err)
	}
	if b.AppliedIndex() != a.AppliedIndex() || b.AppliedIndex() != index {
		t.Errorf("applied index: %d after the install, the snapshot's node %d; want %d", b.AppliedIndex(), a.AppliedIndex(), index)
	}
	// The installed file takes the entries after the snapshot.
	b.Replicate(nil, func(entry []byte) error {
		return b.ApplyEntries([]store.Entry{{Index: index + 1, Data: bytes.Clone(entry)}})[0]
	})
	if _, err := b.CreateWorkspace("After"); err != nil {
		t.Fatalf("a write after the install: %v", err)
	}
}

// TestApplyBatchAnswersEachEntry: configuration entries are passed over, a command entry that
// cannot be read gets its error, the others apply.
func TestApplyBatchAnswersEachEntry(t *testing.T) {
	s, err := store.Open(filepath.Join(t.TempDir(), "s.db"), store.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	var good []byte
	s.Replicate(nil, func(entry []byte) error { good = bytes.Clone(entry); return store.ErrUnavailable })
	_, _ = s.CreateWorkspace("Recorded")
	f := &fsm{s: s, log: slog.Default()}
	out := f.ApplyBatch([]*raft.Log{
		{Index: 1, Type: raft.LogConfiguration},
		{Index: 2, Type: raft.LogCommand, Data: []byte{1, 1, 0}},
		{Index: 3, Type: raft.LogCommand, Data: good},
	})
	if out[0] != nil || out[1] == nil || out[2] != nil {
		t.Fatalf("answers %v; want nil, an error, nil", out)
	}
	if s.AppliedIndex() != 3 {
		t.Errorf("applied index %d; want 3", s.AppliedIndex())
	}
	if wss, _ := s.Workspaces(); len(wss) != 1 {
		t.Errorf("%d workspaces after the good entry; want 1", len(wss))
	}
}
