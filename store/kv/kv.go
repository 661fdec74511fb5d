// Package kv is the store's view of bbolt: a transaction, its buckets and their cursors, which
// forward every call to bbolt and, when the transaction records, append each change they make
// to a write set (Recorder). A write set applied to another copy of the same file (Apply) makes
// it hold what the recorded transaction would have committed; that is how a cluster's nodes
// keep one database (every node applies the leader's write sets) and how the store's tests
// prove that no write escapes the recording (the replay mode runs each write, rolls it back
// and commits only its write set).
//
// Reads cost what bbolt's cost: a recording is checked for nil before each change, and nothing
// is recorded on a read. A *bolt.Tx never leaves this package for a write transaction, so a
// change made elsewhere cannot go unrecorded.
package kv

import (
	"io"

	bolt "go.etcd.io/bbolt"
)

// Tx is a bbolt transaction seen through the package: read-only, writable, or writable and
// recording its changes.
type Tx struct {
	tx    *bolt.Tx
	rec   *Recorder // nil: the changes are not recorded
	epoch uint64
}

// Wrap returns tx seen through the package; rec, when not nil, records every change made
// through it (tx must then be writable). epoch numbers the file tx reads (Epoch).
func Wrap(tx *bolt.Tx, epoch uint64, rec *Recorder) *Tx { return &Tx{tx: tx, rec: rec, epoch: epoch} }

// Epoch is the number its opener gave the file the transaction reads. Transaction ids count
// the commits of one file; a file replaced by another (a snapshot installed) starts another
// count, so what is kept by transaction id (the kept sets) must compare the epoch too.
func (t *Tx) Epoch() uint64 { return t.epoch }

// ID is the transaction's id (bbolt's: a write transaction's is the id its commit will have).
func (t *Tx) ID() int { return t.tx.ID() }

// Size is the size of the database the transaction sees, in bytes.
func (t *Tx) Size() int64 { return t.tx.Size() }

// Writable reports whether the transaction may write.
func (t *Tx) Writable() bool { return t.tx.Writable() }

// OnCommit adds a function to run after the transaction commits (never after a rollback).
func (t *Tx) OnCommit(fn func()) { t.tx.OnCommit(fn) }

// WriteTo writes the database as the transaction sees it: a consistent copy of the file.
func (t *Tx) WriteTo(w io.Writer) (int64, error) { return t.tx.WriteTo(w) }

// Recording reports whether the transaction records its changes.
func (t *Tx) Recording() bool { return t.rec != nil }

// Bucket returns the top-level bucket name, nil when there is none.
func (t *Tx) Bucket(name []byte) *Bucket {
	b := t.tx.Bucket(name)
	if b == nil {
		return nil
	}
	return &Bucket{b: b, tx: t, name: name}
}

// CreateBucket creates the top-level bucket name (bbolt's errors when it exists).
func (t *Tx) CreateBucket(name []byte) (*Bucket, error) {
	b, err := t.tx.CreateBucket(name)
	if err != nil {
		return nil, err
	}
	w := &Bucket{b: b, tx: t, name: name}
	if t.rec != nil {
		t.rec.createBucket(w)
	}
	return w, nil
}

// CreateBucketIfNotExists returns the top-level bucket name, creating it when it is missing.
func (t *Tx) CreateBucketIfNotExists(name []byte) (*Bucket, error) {
	b, err := t.tx.CreateBucketIfNotExists(name)
	if err != nil {
		return nil, err
	}
	w := &Bucket{b: b, tx: t, name: name}
	if t.rec != nil {
		t.rec.createBucket(w)
	}
	return w, nil
}

// DeleteBucket deletes the top-level bucket name and everything in it.
func (t *Tx) DeleteBucket(name []byte) error {
	if err := t.tx.DeleteBucket(name); err != nil {
		return err
	}
	if t.rec != nil {
		t.rec.deleteBucket(nil, name)
	}
	return nil
}

// ForEach calls fn for every top-level bucket, in name order.
func (t *Tx) ForEach(fn func(name []byte, b *Bucket) error) error {
	return t.tx.ForEach(func(name []byte, b *bolt.Bucket) error {
		return fn(name, &Bucket{b: b, tx: t, name: name})
	})
}

// Bucket is a bucket of a Tx, top-level or nested.
type Bucket struct {
	b      *bolt.Bucket
	tx     *Tx
	parent *Bucket // nil for a top-level bucket
	name   []byte
	id     uint64 // the recorder's number for the bucket's path, 0 until it has one
}

// Get returns the value of key, nil when there is none or key names a nested bucket. The value
// is valid only while the transaction is open.
func (b *Bucket) Get(key []byte) []byte { return b.b.Get(key) }

// Put sets key to value; value must stay unchanged until the transaction ends.
func (b *Bucket) Put(key, value []byte) error {
	if err := b.b.Put(key, value); err != nil {
		return err
	}
	if r := b.tx.rec; r != nil {
		r.put(b, key, value)
	}
	return nil
}

// Delete removes key (nothing when it is missing).
func (b *Bucket) Delete(key []byte) error {
	if err := b.b.Delete(key); err != nil {
		return err
	}
	if r := b.tx.rec; r != nil {
		r.del(b, key)
	}
	return nil
}

// Bucket returns the nested bucket name, nil when there is none.
func (b *Bucket) Bucket(name []byte) *Bucket {
	c := b.b.Bucket(name)
	if c == nil {
		return nil
	}
	return &Bucket{b: c, tx: b.tx, parent: b, name: name}
}

// CreateBucket creates the nested bucket name (bbolt's errors when it exists).
func (b *Bucket) CreateBucket(name []byte) (*Bucket, error) {
	c, err := b.b.CreateBucket(name)
	if err != nil {
		return nil, err
	}
	w := &Bucket{b: c, tx: b.tx, parent: b, name: name}
	if r := b.tx.rec; r != nil {
		r.createBucket(w)
	}
	return w, nil
}

// CreateBucketIfNotExists returns the nested bucket name, creating it when it is missing.
func (b *Bucket) CreateBucketIfNotExists(name []byte) (*Bucket, error) {
	c, err := b.b.CreateBucketIfNotExists(name)
	if err != nil {
		return nil, err
	}
	w := &Bucket{b: c, tx: b.tx, parent: b, name: name}
	if r := b.tx.rec; r != nil {
		r.createBucket(w)
	}
	return w, nil
}

// DeleteBucket deletes the nested bucket name and everything in it.
func (b *Bucket) DeleteBucket(name []byte) error {
	if err := b.b.DeleteBucket(name); err != nil {
		return err
	}
	if r := b.tx.rec; r != nil {
		r.deleteBucket(b, name)
	}
	return nil
}

// Sequence is the bucket's sequence number.
func (b *Bucket) Sequence() uint64 { return b.b.Sequence() }

// SetSequence sets the bucket's sequence number.
func (b *Bucket) SetSequence(v uint64) error {
	if err := b.b.SetSequence(v); err != nil {
		return err
	}
	if r := b.tx.rec; r != nil {
		r.setSequence(b, v)
	}
	return nil
}

// NextSequence increments the bucket's sequence number and returns it.
func (b *Bucket) NextSequence() (uint64, error) {
	v, err := b.b.NextSequence()
	if err != nil {
		return 0, err
	}
	if r := b.tx.rec; r != nil {
		r.setSequence(b, v)
	}
	return v, nil
}

// SetFillPercent sets how full the bucket's pages are filled before they split, for this
// transaction (bbolt's FillPercent): high for keys that only grow at the end.
func (b *Bucket) SetFillPercent(f float64) {
	b.b.FillPercent = f
	if r := b.tx.rec; r != nil {
		r.fill(b, f)
	}
}

// ForEach calls fn for every key of the bucket in order; v is nil for a nested bucket.
func (b *Bucket) ForEach(fn func(k, v []byte) error) error { return b.b.ForEach(fn) }

// ForEachBucket calls fn with the name of every nested bucket, in order.
func (b *Bucket) ForEachBucket(fn func(k []byte) error) error { return b.b.ForEachBucket(fn) }

// Stats are bbolt's statistics of the bucket (KeyN counts its keys).
func (b *Bucket) Stats() bolt.BucketStats { return b.b.Stats() }

// Writable reports whether the bucket's transaction may write.
func (b *Bucket) Writable() bool { return b.b.Writable() }

// Cursor returns a cursor over the bucket's keys.
func (b *Bucket) Cursor() *Cursor { return &Cursor{c: b.b.Cursor(), b: b} }

// Cursor walks a bucket's keys in order; Delete removes the key it stands on.
type Cursor struct {
	c *bolt.Cursor
	b *Bucket
	k []byte // the key the cursor stands on
}

// Bucket is the bucket the cursor walks.
func (c *Cursor) Bucket() *Bucket { return c.b }

// First moves to the first key.
func (c *Cursor) First() ([]byte, []byte) {
	k, v := c.c.First()
	c.k = k
	return k, v
}

// Last moves to the last key.
func (c *Cursor) Last() ([]byte, []byte) {
	k, v := c.c.Last()
	c.k = k
	return k, v
}

// Next moves to the next key.
func (c *Cursor) Next() ([]byte, []byte) {
	k, v := c.c.Next()
	c.k = k
	return k, v
}

// Prev moves to the previous key.
func (c *Cursor) Prev() ([]byte, []byte) {
	k, v := c.c.Prev()
	c.k = k
	return k, v
}

// Seek moves to seek, or the first key after it.
func (c *Cursor) Seek(seek []byte) ([]byte, []byte) {
	k, v := c.c.Seek(seek)
	c.k = k
	return k, v
}

// Delete removes the key the cursor stands on.
func (c *Cursor) Delete() error {
	r := c.b.tx.rec
	var k []byte
	if r != nil {
		k = append(k, c.k...) // the key's bytes may go with it
	}
	if err := c.c.Delete(); err != nil {
		return err
	}
	if r != nil {
		r.del(c.b, k)
	}
	return nil
}
