package cluster

import (
	"errors"
	"fmt"
	"io"
	"log/slog"

	"github.com/hashicorp/raft"

	"switchboard/store"
)

// fsm is raft's state machine: the store's bbolt file. Committed command entries are write sets
// the store applies (store.ApplyEntries: one bbolt transaction for a batch, with the applied
// index); a snapshot is the store's consistent copy, and installing one replaces the file.
type fsm struct {
	s   *store.Store
	log *slog.Logger
}

var _ raft.BatchingFSM = (*fsm)(nil)

func (f *fsm) Apply(l *raft.Log) any { return f.ApplyBatch([]*raft.Log{l})[0] }

// applyBytes bounds the write sets one transaction applies: many small entries (a follower
// catching up on ordinary writes) share a transaction and its fsync, while an import's entries
// of megabytes each get their own (one huge bbolt transaction spends its commit splitting
// nodes).
const applyBytes = 4 << 20

// ApplyBatch applies the command entries of logs, in transactions of at most applyBytes of
// write sets; each answer is the entry's error, nil when it applied (the writer waiting on the
// leader gets it).
func (f *fsm) ApplyBatch(logs []*raft.Log) []any {
	out := make([]any, len(logs))
	var entries []store.Entry
	var at []int
	size := 0
	flush := func() {
		if len(entries) == 0 {
			return
		}
		for j, err := range f.s.ApplyEntries(entries) {
			if errors.Is(err, store.ErrNewerEntry) {
				// Skipping it would leave this node's file behind the others' for good.
				panic(fmt.Sprintf("cluster: entry %d: %v", entries[j].Index, err))
			}
			if err != nil {
				// Every node that holds what the leader held fails the same entry the same
				// way; the leader's writer gets the error.
				f.log.Error("cluster: a log entry could not be applied", "index", entries[j].Index, "err", err)
				out[at[j]] = err
			}
		}
		entries, at, size = entries[:0], at[:0], 0
	}
	for i, l := range logs {
		if l.Type != raft.LogCommand {
			continue
		}
		if size > 0 && size+len(l.Data) > applyBytes {
			flush()
		}
		entries = append(entries, store.Entry{Index: l.Index, Data: l.Data})
		at = append(at, i)
		size += len(l.Data)
	}
	flush()
	return out
}

func (f *fsm) Snapshot() (raft.FSMSnapshot, error) {
	sn, err := f.s.Snapshot()
	if err != nil {
		return nil, err
	}
	return &fsmSnapshot{sn: sn}, nil
}

// Restore installs a snapshot the leader sent (or the newest one kept, at a start whose file
// is behind it).
func (f *fsm) Restore(rc io.ReadCloser) error {
	defer rc.Close()
	return f.s.Restore(rc)
}

type fsmSnapshot struct{ sn *store.Snapshot }

func (s *fsmSnapshot) Persist(sink raft.SnapshotSink) error {
	if _, err := s.sn.WriteTo(sink); err != nil {
		_ = sink.Cancel()
		return err
	}
	return sink.Close()
}

func (s *fsmSnapshot) Release() { s.sn.Close() }
