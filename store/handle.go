package store

import (
	"sync"
	"sync/atomic"

	bolt "go.etcd.io/bbolt"
)

// dbHandle is the open database file with a count of the transactions using it, so that the
// installation of a snapshot, which replaces the file, closes the old one only once the last
// reader of it is done: a reader never finds its database closed under it.
type dbHandle struct {
	db      *bolt.DB
	epoch   uint64 // the number of the file: each installed snapshot is a new one
	refs    atomic.Int64
	retired atomic.Bool
	idle    chan struct{} // closed once retired and unused
	once    sync.Once
}

func newHandle(db *bolt.DB, epoch uint64) *dbHandle {
	return &dbHandle{db: db, epoch: epoch, idle: make(chan struct{})}
}

// acquire returns the open file, counted as used until release.
func (s *Store) acquire() *dbHandle {
	for {
		h := s.h.Load()
		h.refs.Add(1)
		if s.h.Load() == h {
			return h
		}
		h.release() // replaced meanwhile: use the new one
	}
}

func (h *dbHandle) release() {
	if h.refs.Add(-1) == 0 && h.retired.Load() {
		h.once.Do(func() { close(h.idle) })
	}
}

// retire waits, once h is no longer the store's file, for its last user and closes it.
func (h *dbHandle) retire() error {
	h.retired.Store(true)
	if h.refs.Load() == 0 {
		h.once.Do(func() { close(h.idle) })
	}
	<-h.idle
	return h.db.Close()
}
