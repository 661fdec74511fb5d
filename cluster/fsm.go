package cluster

import (
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

// ApplyBatch applies the command entries of logs in one transaction; each answer is the
// entry's error, nil when it applied (the writer waiting on the leader gets it).
func (f *fsm) ApplyBatch(logs []*raft.Log) []any {
	out := make([]any, len(logs))
	var entries []store.Entry
	var at []int
	for i, l := range logs {
		if l.Type == raft.LogCommand {
			entries = append(entries, store.Entry{Index: l.Index, Data: l.Data})
			at = append(at, i)
		}
	}
	if len(entries) == 0 {
		return out
	}
	for j, err := range f.s.ApplyEntries(entries) {
		if err != nil {
			// Every node that holds what the leader held fails the same entry the same way;
			// the leader's writer gets the error.
			f.log.Error("cluster: a log entry could not be applied", "index", entries[j].Index, "err", err)
			out[at[j]] = err
		}
	}
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
