package store

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"time"

	bolt "go.etcd.io/bbolt"
)

// CompactReport is the outcome of Compact: the file's size before and after.
type CompactReport struct {
	Before, After int64
}

// Compact rewrites the database file at path with bbolt's compaction (every key copied in
// order into a new file, pages filled completely) and swaps the copy in: the copy is fsynced,
// renamed over the original and the directory fsynced, so a crash leaves the old file or the
// new one, never half of one. The original is held locked throughout, so a running server
// (which holds it) makes Compact fail at once with ErrLocked, and no server can start on it
// while it is copied.
func Compact(path string, timeout time.Duration) (CompactReport, error) {
	var rep CompactReport
	if timeout == 0 {
		timeout = time.Second
	}
	info, err := os.Stat(path)
	if err != nil {
		return rep, fmt.Errorf("store: compact: %w", err)
	}
	rep.Before = info.Size()
	src, err := bolt.Open(path, 0o600, &bolt.Options{Timeout: timeout})
	if err != nil {
		if errors.Is(err, bolt.ErrTimeout) {
			return rep, fmt.Errorf("store: %s: %w (is a server running? stop it first)", path, ErrLocked)
		}
		return rep, fmt.Errorf("store: compact: open %s: %w", path, err)
	}
	defer src.Close()
	tmp := path + ".compacting"
	_ = os.Remove(tmp) // a copy left by an earlier run that was cut off
	dst, err := bolt.Open(tmp, 0o600, &bolt.Options{FreelistType: bolt.FreelistMapType})
	if err != nil {
		return rep, fmt.Errorf("store: compact: create %s: %w", tmp, err)
	}
	// 64 MB per transaction bounds the copy's memory; each commit is fsynced by bbolt.
	if err := bolt.Compact(dst, src, 64<<20); err != nil {
		dst.Close()
		os.Remove(tmp)
		return rep, fmt.Errorf("store: compact: %w", err)
	}
	if err := dst.Close(); err != nil {
		os.Remove(tmp)
		return rep, fmt.Errorf("store: compact: %w", err)
	}
	if err := syncPath(tmp); err != nil {
		os.Remove(tmp)
		return rep, err
	}
	if err := os.Rename(tmp, path); err != nil {
		os.Remove(tmp)
		return rep, fmt.Errorf("store: compact: replace %s: %w", path, err)
	}
	if err := syncPath(filepath.Dir(path)); err != nil {
		return rep, err
	}
	if info, err = os.Stat(path); err != nil {
		return rep, fmt.Errorf("store: compact: %w", err)
	}
	rep.After = info.Size()
	return rep, nil
}

// syncPath fsyncs a file or directory.
func syncPath(path string) error {
	f, err := os.Open(path)
	if err != nil {
		return fmt.Errorf("store: sync %s: %w", path, err)
	}
	defer f.Close()
	if err := f.Sync(); err != nil {
		return fmt.Errorf("store: sync %s: %w", path, err)
	}
	return nil
}
