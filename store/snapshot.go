package store

import (
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"

	bolt "go.etcd.io/bbolt"
)

// Snapshot is a consistent copy of the file as of one moment (a read transaction held open):
// a cluster's snapshot, taken between two applied entries, so it holds exactly the entries up
// to AppliedIndex.
type Snapshot struct {
	h  *dbHandle
	tx *bolt.Tx
	// Index is the index of the last log entry the copy holds.
	Index uint64
}

// Snapshot begins a copy of the file as it is now. Close it when done.
func (s *Store) Snapshot() (*Snapshot, error) {
	h := s.acquire()
	tx, err := h.db.Begin(false)
	if err != nil {
		h.release()
		return nil, err
	}
	sn := &Snapshot{h: h, tx: tx}
	if meta := tx.Bucket(bMeta); meta != nil {
		sn.Index = decodeUint(meta.Get(metaAppliedIndex))
	}
	return sn, nil
}

// WriteTo writes the copy (bbolt's Tx.WriteTo, the consistent copy a backup is).
func (sn *Snapshot) WriteTo(w io.Writer) (int64, error) { return sn.tx.WriteTo(w) }

// Size is the copy's length in bytes.
func (sn *Snapshot) Size() int64 { return sn.tx.Size() }

// Close ends the copy's read transaction.
func (sn *Snapshot) Close() {
	_ = sn.tx.Rollback()
	sn.h.release()
}

// Restore replaces the file with the copy r reads (a cluster's snapshot sent by the leader):
// the copy is written beside the file, checked, renamed over it (atomic: a crash leaves the
// old file or the new one) and opened; what the store keeps in memory is built again from it.
// Readers of the old file finish on it; it closes after the last of them.
func (s *Store) Restore(r io.Reader) error {
	tmp := s.path + ".install"
	if err := writeSynced(tmp, r); err != nil {
		os.Remove(tmp)
		return fmt.Errorf("store: install snapshot: %w", err)
	}
	if err := checkStoreFile(tmp); err != nil {
		os.Remove(tmp)
		return fmt.Errorf("store: install snapshot: %w", err)
	}
	s.wmu.Lock()
	defer s.wmu.Unlock()
	if err := os.Rename(tmp, s.path); err != nil {
		os.Remove(tmp)
		return fmt.Errorf("store: install snapshot: %w", err)
	}
	syncDir(filepath.Dir(s.path))
	db, err := openFile(s.path, s.opts)
	if err != nil {
		return fmt.Errorf("store: install snapshot: %w", err)
	}
	old := s.h.Load()
	epoch := old.epoch + 1
	s.h.Store(newHandle(db, epoch))
	s.idx.ForgetSets(epoch, 0)
	if err := old.retire(); err != nil {
		return fmt.Errorf("store: close the replaced file: %w", err)
	}
	if err := s.loadMemory(); err != nil {
		return err
	}
	// Every live stream reads the new file from where it stands.
	if live := s.hook().Live; live != nil {
		if wss, err := s.Workspaces(); err == nil {
			ids := make([]string, len(wss))
			for i, w := range wss {
				ids[i] = w.ID
			}
			live(ids)
		}
	}
	return nil
}

// writeSynced writes what r reads to path and syncs it to the disk.
func writeSynced(path string, r io.Reader) error {
	f, err := os.OpenFile(path, os.O_CREATE|os.O_TRUNC|os.O_WRONLY, 0o600)
	if err != nil {
		return err
	}
	if _, err := io.Copy(f, r); err != nil {
		f.Close()
		return err
	}
	if err := f.Sync(); err != nil {
		f.Close()
		return err
	}
	return f.Close()
}

// syncDir makes a rename in dir durable (best effort: not every system can sync a directory).
func syncDir(dir string) {
	if d, err := os.Open(dir); err == nil {
		_ = d.Sync()
		d.Close()
	}
}

// checkStoreFile refuses a file that is not a store's, or of a newer schema than this binary's.
func checkStoreFile(path string) error {
	db, err := bolt.Open(path, 0o600, &bolt.Options{ReadOnly: true, Timeout: openTimeout})
	if err != nil {
		return err
	}
	defer db.Close()
	return db.View(func(tx *bolt.Tx) error {
		if !IsStoreFile(tx) {
			return errors.New("not a Switchboard database")
		}
		if v := decodeUint(tx.Bucket(bMeta).Get(metaSchemaVersion)); v > uint64(SchemaVersion) {
			return fmt.Errorf("database schema %d is newer than this binary's %d", v, SchemaVersion)
		}
		return nil
	})
}
