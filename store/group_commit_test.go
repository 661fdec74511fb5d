package store

import (
	"errors"
	"fmt"
	"path/filepath"
	"sync"
	"testing"
	"testing/synctest"
	"time"

	bolt "go.etcd.io/bbolt"

	"switchboard/store/internal/index"
	"switchboard/store/kv"
)

// openGroup returns a group commit over a fresh database file, writing through the store's own
// write transactions (writeTx), and the file to read back what it wrote.
func openGroup(t *testing.T) (*groupCommit, *bolt.DB) {
	t.Helper()
	db, err := bolt.Open(filepath.Join(t.TempDir(), "g.db"), 0o600, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	if err := rawUpdate(db, func(tx *kv.Tx) error { _, err := tx.CreateBucket([]byte("b")); return err }); err != nil {
		t.Fatal(err)
	}
	s := &Store{idx: index.New(&indexLayout, setMembers, index.DefaultBounds(ImportBatchSize))}
	s.h.Store(newHandle(db, 0))
	return &groupCommit{write: s.writeTx, arrived: make(chan struct{}, 1)}, db
}

func putFn(key string, txID *int) func(*wtx) error {
	return func(tx *wtx) error {
		*txID = tx.ID()
		return tx.Bucket([]byte("b")).Put([]byte(key), []byte("v"))
	}
}

// block starts a writer that holds g's transaction until release is closed, and returns once it
// holds it.
func block(g *groupCommit, release chan struct{}) {
	inside := make(chan struct{})
	go g.run(func(tx *wtx) error { close(inside); <-release; return nil })
	<-inside
}

// blockPair is block with two writers in the held transaction: the commit after it lingers
// for writers (one with a single writer does not).
func blockPair(g *groupCommit, release chan struct{}) {
	first := make(chan struct{})
	block(g, first)
	inside := make(chan struct{})
	go g.run(func(tx *wtx) error { close(inside); <-release; return nil })
	go g.run(func(tx *wtx) error { return nil })
	queued(g, 2)
	close(first)
	<-inside
}

// queued waits until n writers wait in g's queue.
func queued(g *groupCommit, n int) {
	for {
		g.mu.Lock()
		l := len(g.queue)
		g.mu.Unlock()
		if l >= n {
			return
		}
		time.Sleep(time.Millisecond)
	}
}

// TestGroupCommitSharesTransaction: the writers that arrive while a transaction commits all
// share the next one, and every write is stored.
func TestGroupCommitSharesTransaction(t *testing.T) {
	g, db := openGroup(t)
	release := make(chan struct{})
	var firstTx int
	firstDone := make(chan error)
	inside := make(chan struct{})
	go func() {
		firstDone <- g.run(func(tx *wtx) error {
			close(inside)
			<-release // the disk is busy with this one
			return putFn("first", &firstTx)(tx)
		})
	}()
	<-inside
	const n = 10
	txIDs := make([]int, n)
	var wg sync.WaitGroup
	for i := range n {
		wg.Go(func() {
			if err := g.run(putFn(fmt.Sprint("k", i), &txIDs[i])); err != nil {
				t.Error(err)
			}
		})
	}
	queued(g, n)
	close(release)
	if err := <-firstDone; err != nil {
		t.Fatal(err)
	}
	wg.Wait()
	for i, id := range txIDs {
		if id != txIDs[0] || id == firstTx {
			t.Fatalf("writer %d ran in transaction %d; want all %d queued writers in one transaction after %d", i, id, n, firstTx)
		}
	}
	err := rawView(db, func(tx *kv.Tx) error {
		for i := range n {
			if tx.Bucket([]byte("b")).Get(fmt.Append(nil, "k", i)) == nil {
				return fmt.Errorf("k%d not stored", i)
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
}

// TestGroupCommitFailureRunsAlone: a function that fails in a shared transaction gets its own
// error and leaves nothing; the others of its batch run again and commit.
func TestGroupCommitFailureRunsAlone(t *testing.T) {
	g, db := openGroup(t)
	release := make(chan struct{})
	block(g, release)
	boom := errors.New("boom")
	var badRuns, goodRuns sync.Map
	var wg sync.WaitGroup
	errs := make([]error, 5)
	for i := range 5 {
		wg.Go(func() {
			errs[i] = g.run(func(tx *wtx) error {
				runs := &goodRuns
				if i == 2 {
					runs = &badRuns
				}
				v, _ := runs.LoadOrStore(i, new(int))
				*v.(*int)++
				if err := tx.Bucket([]byte("b")).Put(fmt.Append(nil, "k", i), []byte("v")); err != nil {
					return err
				}
				if i == 2 {
					return boom
				}
				return nil
			})
		})
	}
	queued(g, 5)
	close(release)
	wg.Wait()
	for i, err := range errs {
		if (i == 2) != (err == boom) {
			t.Fatalf("writer %d: err %v", i, err)
		}
	}
	if v, _ := badRuns.Load(2); *v.(*int) != 2 {
		t.Fatalf("the failing function ran %d times; want 2 (in the batch, then alone)", *v.(*int))
	}
	_ = rawView(db, func(tx *kv.Tx) error {
		for i := range 5 {
			if got := tx.Bucket([]byte("b")).Get(fmt.Append(nil, "k", i)) != nil; got != (i != 2) {
				t.Errorf("k%d stored: %v", i, got)
			}
		}
		return nil
	})
}

// TestGroupCommitPanicStaysWithItsWriter: a panicking function panics in its own caller, and
// the writers beside it still commit.
func TestGroupCommitPanicStaysWithItsWriter(t *testing.T) {
	g, _ := openGroup(t)
	release := make(chan struct{})
	block(g, release)
	var wg sync.WaitGroup
	var recovered any
	var tx1 int
	var err1 error
	wg.Go(func() {
		defer func() { recovered = recover() }()
		_ = g.run(func(tx *wtx) error { panic("bug") })
	})
	wg.Go(func() { err1 = g.run(putFn("ok", &tx1)) })
	queued(g, 2)
	close(release)
	wg.Wait()
	if recovered != "bug" {
		t.Fatalf("recovered %v; want the writer's own panic", recovered)
	}
	if err1 != nil {
		t.Fatal(err1)
	}
}

// TestGroupCommitNoWait: a lone write commits at once; bbolt's DB.Batch would hold it 10 ms.
func TestGroupCommitNoWait(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		s, err := Open(filepath.Join(t.TempDir(), "s.db"), Options{})
		if err != nil {
			t.Fatal(err)
		}
		defer s.Close()
		start := time.Now()
		for range 3 {
			if err := s.update(func(tx *wtx) error {
				return tx.Bucket(bMeta).Put([]byte("group-commit-test"), []byte("v"))
			}); err != nil {
				t.Fatal(err)
			}
		}
		if d := time.Since(start); d != 0 {
			t.Fatalf("three lone writes took %v of the clock; want no waiting", d)
		}
	})
}

// TestGroupCommitLingerIsBounded: a writer waiting behind a commit of several writers is held
// at most groupLinger for others to join it, and one that comes back in time shares its
// transaction.
func TestGroupCommitLingerIsBounded(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		g, _ := openGroup(t)
		// behind queues a writer behind a blocked commit, releases the commit, and returns how
		// long the writer then took; join, when set, is called half a linger after the release.
		behind := func(key string, txID *int, join func()) time.Duration {
			release := make(chan struct{})
			blockPair(g, release)
			done := make(chan struct{})
			go func() {
				if err := g.run(putFn(key, txID)); err != nil {
					t.Error(err)
				}
				close(done)
			}()
			synctest.Wait() // the writer waits in the queue
			start := time.Now()
			close(release)
			if join != nil {
				time.Sleep(groupLinger / 2)
				join()
			}
			<-done
			return time.Since(start)
		}
		var tx1, tx2, tx3 int
		var wg sync.WaitGroup
		d := behind("a", &tx1, func() {
			wg.Go(func() {
				if err := g.run(putFn("b", &tx2)); err != nil {
					t.Error(err)
				}
			})
		})
		wg.Wait()
		if tx1 != tx2 || d > groupLinger {
			t.Errorf("writers in transactions %d and %d after %v; want one transaction within %v", tx1, tx2, d, groupLinger)
		}
		if d := behind("c", &tx3, nil); d > groupLinger {
			t.Errorf("a lone waiting writer was held %v; want at most %v", d, groupLinger)
		}
	})
}
