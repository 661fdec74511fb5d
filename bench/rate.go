package main

import (
	"bytes"
	"encoding/binary"
	"os"
	"path/filepath"
	"sync"
	"sync/atomic"
	"time"

	bolt "go.etcd.io/bbolt"
	_ "modernc.org/sqlite"
)

// rateFor calls fn from n goroutines for about d and returns the calls per second.
func rateFor(n int, d time.Duration, fn func() error) (float64, error) {
	var count atomic.Int64
	var wg sync.WaitGroup
	var failed atomic.Pointer[error]
	start := time.Now()
	stop := start.Add(d)
	for range n {
		wg.Go(func() {
			for time.Now().Before(stop) && failed.Load() == nil {
				if err := fn(); err != nil {
					failed.CompareAndSwap(nil, &err)
					return
				}
				count.Add(1)
			}
		})
	}
	wg.Wait()
	if p := failed.Load(); p != nil {
		return 0, *p
	}
	return float64(count.Load()) / time.Since(start).Seconds(), nil
}

// boltBatchRate is raw bbolt: concurrent DB.Batch puts of 600-byte values in a fresh file in
// dir, for about d.
func boltBatchRate(dir string, concurrency int, d time.Duration) (float64, error) {
	path := filepath.Join(dir, "raw-bolt.db")
	_ = os.Remove(path)
	defer os.Remove(path)
	db, err := bolt.Open(path, 0o600, nil)
	if err != nil {
		return 0, err
	}
	defer db.Close()
	bucket := []byte("b")
	if err := db.Update(func(tx *bolt.Tx) error { _, err := tx.CreateBucket(bucket); return err }); err != nil {
		return 0, err
	}
	value := bytes.Repeat([]byte("v"), 600)
	var seq atomic.Uint64
	return rateFor(concurrency, d, func() error {
		k := binary.BigEndian.AppendUint64(nil, seq.Add(1))
		return db.Batch(func(tx *bolt.Tx) error { return tx.Bucket(bucket).Put(k, value) })
	})
}
