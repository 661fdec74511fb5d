package kv_test

import (
	"bytes"
	"fmt"
	"math/rand/v2"
	"path/filepath"
	"testing"

	bolt "go.etcd.io/bbolt"

	"switchboard/store/kv"
)

func open(t *testing.T, name string) *bolt.DB {
	t.Helper()
	db, err := bolt.Open(filepath.Join(t.TempDir(), name), 0o600, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	return db
}

// dump lists every bucket, key, value and sequence of db, nested buckets included, in order.
func dump(t *testing.T, db *bolt.DB) string {
	t.Helper()
	var w bytes.Buffer
	var walk func(prefix string, b *bolt.Bucket)
	walk = func(prefix string, b *bolt.Bucket) {
		fmt.Fprintf(&w, "%s seq=%d\n", prefix, b.Sequence())
		_ = b.ForEach(func(k, v []byte) error {
			if v == nil {
				walk(prefix+"/"+string(k), b.Bucket(k))
				return nil
			}
			fmt.Fprintf(&w, "%s %q=%q\n", prefix, k, v)
			return nil
		})
	}
	_ = db.View(func(tx *bolt.Tx) error {
		return tx.ForEach(func(name []byte, b *bolt.Bucket) error {
			walk(string(name), b)
			return nil
		})
	})
	return w.String()
}

// record runs fn in a recording transaction of db, commits it, and returns its write set.
func record(t *testing.T, db *bolt.DB, fn func(tx *kv.Tx) error) []byte {
	t.Helper()
	rec := kv.NewRecorder()
	if err := db.Update(func(btx *bolt.Tx) error { return fn(kv.Wrap(btx, 0, rec)) }); err != nil {
		t.Fatal(err)
	}
	return bytes.Clone(rec.Bytes())
}

func apply(t *testing.T, db *bolt.DB, ops []byte) {
	t.Helper()
	if err := db.Update(func(tx *bolt.Tx) error { return kv.Apply(tx, ops) }); err != nil {
		t.Fatal(err)
	}
}

// TestApplyMakesTheSameFile: random writes of every kind, recorded on one file and applied to
// another, leave both holding the same buckets, keys, values and sequences, transaction after
// transaction.
func TestApplyMakesTheSameFile(t *testing.T) {
	a, b := open(t, "a.db"), open(t, "b.db")
	r := rand.New(rand.NewPCG(1, 2))
	key := func() []byte { return fmt.Appendf(nil, "k%03d", r.IntN(200)) }
	for round := range 60 {
		ops := record(t, a, func(tx *kv.Tx) error {
			top, err := tx.CreateBucketIfNotExists([]byte("top"))
			if err != nil {
				return err
			}
			for range 50 {
				switch r.IntN(10) {
				case 0, 1, 2:
					if err := top.Put(key(), fmt.Appendf(nil, "v%d", r.IntN(1000))); err != nil {
						return err
					}
				case 3:
					if err := top.Delete(key()); err != nil {
						return err
					}
				case 4:
					// Delete through a cursor the keys of a range.
					c := top.Cursor()
					from := key()
					for k, v := c.Seek(from); k != nil && bytes.Compare(k, append(from, 'z')) < 0; k, v = c.Next() {
						if v != nil {
							if err := c.Delete(); err != nil {
								return err
							}
						}
					}
				case 5:
					nested, err := top.CreateBucketIfNotExists(fmt.Appendf(nil, "n%d", r.IntN(4)))
					if err != nil {
						return err
					}
					nested.SetFillPercent(0.95)
					if _, err := nested.NextSequence(); err != nil {
						return err
					}
					if err := nested.Put(key(), []byte("nested")); err != nil {
						return err
					}
					deeper, err := nested.CreateBucketIfNotExists([]byte("deeper"))
					if err != nil {
						return err
					}
					if err := deeper.Put(key(), []byte("deep")); err != nil {
						return err
					}
				case 6:
					name := fmt.Appendf(nil, "n%d", r.IntN(4))
					if top.Bucket(name) != nil {
						if err := top.DeleteBucket(name); err != nil {
							return err
						}
					}
				case 7:
					if err := top.SetSequence(uint64(r.IntN(1 << 20))); err != nil {
						return err
					}
				case 8:
					if round%7 == 0 && tx.Bucket([]byte("other")) != nil {
						if err := tx.DeleteBucket([]byte("other")); err != nil {
							return err
						}
					}
				default:
					other, err := tx.CreateBucketIfNotExists([]byte("other"))
					if err != nil {
						return err
					}
					if err := other.Put(key(), bytes.Repeat([]byte("x"), r.IntN(3000))); err != nil {
						return err
					}
				}
			}
			return nil
		})
		apply(t, b, ops)
		if da, db := dump(t, a), dump(t, b); da != db {
			t.Fatalf("round %d: the files differ:\nrecorded:\n%s\napplied:\n%s", round, da, db)
		}
	}
}

// TestFillPercentTravels: a bucket filled to 95 % through the write set is as lean on the file
// it is applied to as on the one it was recorded on.
func TestFillPercentTravels(t *testing.T) {
	a, b := open(t, "a.db"), open(t, "b.db")
	for i := range 20 {
		ops := record(t, a, func(tx *kv.Tx) error {
			top, err := tx.CreateBucketIfNotExists([]byte("append"))
			if err != nil {
				return err
			}
			top.SetFillPercent(0.95)
			for j := range 1000 {
				if err := top.Put(fmt.Appendf(nil, "%08d", i*1000+j), bytes.Repeat([]byte("v"), 40)); err != nil {
					return err
				}
			}
			return nil
		})
		apply(t, b, ops)
	}
	pages := func(db *bolt.DB) (n int) {
		_ = db.View(func(tx *bolt.Tx) error { n = tx.Bucket([]byte("append")).Stats().LeafPageN; return nil })
		return n
	}
	if pa, pb := pages(a), pages(b); pa != pb {
		t.Errorf("leaf pages: %d where recorded, %d where applied; want the same", pa, pb)
	}
}

// TestReadOnlyRecordsNothing: reads and a write that fails record nothing.
func TestReadOnlyRecordsNothing(t *testing.T) {
	db := open(t, "a.db")
	rec := kv.NewRecorder()
	_ = db.Update(func(btx *bolt.Tx) error {
		tx := kv.Wrap(btx, 0, rec)
		b, _ := btx.CreateBucket([]byte("b")) // made past the recorder, as a test would
		_ = b.Put([]byte("k"), []byte("v"))
		wb := tx.Bucket([]byte("b"))
		wb.Get([]byte("k"))
		c := wb.Cursor()
		for k, _ := c.First(); k != nil; k, _ = c.Next() {
		}
		if err := wb.Put(nil, []byte("v")); err == nil {
			t.Error("bbolt took an empty key")
		}
		return nil
	})
	if rec.Len() != 0 {
		t.Errorf("recorded %d operations from reads and a failed put; want 0", rec.Len())
	}
}

// TestCorruptWriteSet: a truncated or garbled write set is refused, not half-applied blindly.
func TestCorruptWriteSet(t *testing.T) {
	a, b := open(t, "a.db"), open(t, "b.db")
	ops := record(t, a, func(tx *kv.Tx) error {
		bk, err := tx.CreateBucket([]byte("b"))
		if err != nil {
			return err
		}
		return bk.Put([]byte("key"), []byte("value"))
	})
	for _, bad := range [][]byte{ops[:len(ops)-3], append([]byte{99}, ops...), {2, 7, 1, 'k', 1, 'v'}} {
		err := b.Update(func(tx *bolt.Tx) error { return kv.Apply(tx, bad) })
		if err == nil {
			t.Errorf("Apply(%q) = nil; want an error", bad)
		}
	}
}

// FuzzApply: no write set makes Apply or Walk panic.
func FuzzApply(f *testing.F) {
	f.Add([]byte{1, 1, 0, 1, 'b', 4, 1, 2, 1, 1, 'k', 1, 'v'})
	f.Add([]byte{7, 1, 0, 0, 0, 0, 0, 0, 0, 0})
	dir := f.TempDir()
	db, err := bolt.Open(filepath.Join(dir, "f.db"), 0o600, nil)
	if err != nil {
		f.Fatal(err)
	}
	defer db.Close()
	f.Fuzz(func(t *testing.T, ops []byte) {
		_ = db.Update(func(tx *bolt.Tx) error {
			_ = kv.Apply(tx, ops)
			return fmt.Errorf("roll back")
		})
		_ = kv.Walk(ops, func(kv.Op) error { return nil })
	})
}

// TestRewritesRecordedOnce: a key rewritten a thousand times in one transaction (a block each
// new row appends to) is one put in the write set, which still applies to the same file.
func TestRewritesRecordedOnce(t *testing.T) {
	a, b := open(t, "a.db"), open(t, "b.db")
	ops := record(t, a, func(tx *kv.Tx) error {
		bk, err := tx.CreateBucketIfNotExists([]byte("blocks"))
		if err != nil {
			return err
		}
		block := []byte{}
		for i := range 1000 {
			block = append(bytes.Clone(block), byte(i))
			if err := bk.Put([]byte("block"), block); err != nil {
				return err
			}
			if err := bk.Put(fmt.Appendf(nil, "gone%d", i%10), []byte("x")); err != nil {
				return err
			}
			if err := bk.Delete(fmt.Appendf(nil, "gone%d", i%10)); err != nil {
				return err
			}
		}
		return nil
	})
	if len(ops) > 1200 {
		t.Errorf("the write set of 1,000 rewrites of a 1,000-byte block is %d bytes; want it once", len(ops))
	}
	apply(t, b, ops)
	if da, db := dump(t, a), dump(t, b); da != db {
		t.Fatalf("the files differ:\n%s\n%s", da, db)
	}
}
