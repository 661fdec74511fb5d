package store

import (
	bolt "go.etcd.io/bbolt"

	"switchboard/store/kv"
)

// rawUpdate writes to db in a bbolt transaction of its own, past the store's write path: for
// tests that prepare or damage a file as an older binary or a fault would leave it.
func rawUpdate(db *bolt.DB, fn func(tx *kv.Tx) error) error {
	return db.Update(func(tx *bolt.Tx) error { return fn(kv.Wrap(tx, 0, nil)) })
}

// rawView reads db in a bbolt transaction of its own.
func rawView(db *bolt.DB, fn func(tx *kv.Tx) error) error {
	return db.View(func(tx *bolt.Tx) error { return fn(kv.Wrap(tx, 0, nil)) })
}
