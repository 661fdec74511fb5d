package store

import (
	"errors"
	"path/filepath"
	"sync"
	"sync/atomic"
	"testing"

	bolt "go.etcd.io/bbolt"

	"switchboard/store/kv"
)

// TestUpdateRefusalDoesNotRerunTheBatch: concurrent writers share a DB.Batch; one of them
// refusing gets its refusal back, the others commit, and no function runs twice (bbolt re-runs
// a batch whose function returned an error).
func TestUpdateRefusalDoesNotRerunTheBatch(t *testing.T) {
	s, err := Open(filepath.Join(t.TempDir(), "batch.db"), Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	const n = 16
	var runs [n]atomic.Int32
	errs := make([]error, n)
	var wg sync.WaitGroup
	for i := range n {
		wg.Go(func() {
			errs[i] = s.update(func(tx *wtx) error {
				runs[i].Add(1)
				switch i {
				case 3:
					return errorf(ErrConflict, "refused")
				case 7:
					return ValidationError{{"x", "is bad"}}
				}
				return tx.Bucket(bMeta).Put([]byte{'t', byte(i)}, []byte{1})
			})
		})
	}
	wg.Wait()
	for i := range n {
		if got := runs[i].Load(); got != 1 {
			t.Errorf("function %d ran %d times, want once", i, got)
		}
		switch i {
		case 3:
			if !errors.Is(errs[i], ErrConflict) {
				t.Errorf("function %d: error %v, want the conflict", i, errs[i])
			}
		case 7:
			var v ValidationError
			if !errors.As(errs[i], &v) {
				t.Errorf("function %d: error %v, want the validation error", i, errs[i])
			}
		default:
			if errs[i] != nil {
				t.Errorf("function %d: %v", i, errs[i])
			}
		}
	}
	err = s.view(func(tx *kv.Tx) error {
		for i := range n {
			got := tx.Bucket(bMeta).Get([]byte{'t', byte(i)}) != nil
			if want := i != 3 && i != 7; got != want {
				t.Errorf("write of function %d committed: %v, want %v", i, got, want)
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
}

// beginWrite opens a write transaction by hand, for a test that acts between a write and its
// commit; the caller commits or rolls back btx, its bbolt transaction, itself.
func beginWrite(t *testing.T, s *Store) (tx *wtx, btx *bolt.Tx) {
	t.Helper()
	btx, err := s.DB().Begin(true)
	if err != nil {
		t.Fatal(err)
	}
	return s.newWtx(kv.Wrap(btx, 0, nil)), btx
}
