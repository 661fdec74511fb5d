package index

import (
	bolt "go.etcd.io/bbolt"

	"switchboard/store/kv"
)

// rawUpdate writes to db in a transaction of its own: the engine's tests run on a bare file.
func rawUpdate(db *bolt.DB, fn func(tx *kv.Tx) error) error {
	return db.Update(func(tx *bolt.Tx) error { return fn(kv.Wrap(tx, 0, nil)) })
}

// rawView reads db in a transaction of its own.
func rawView(db *bolt.DB, fn func(tx *kv.Tx) error) error {
	return db.View(func(tx *bolt.Tx) error { return fn(kv.Wrap(tx, 0, nil)) })
}
