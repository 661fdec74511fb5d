package index

import (
	"bytes"

	"switchboard/store/kv"
)

// The phone, e-mail and name-order indexes take keys all over their range, and every one of
// the 10,000 phone-digit terms of the postings gets new nums in every import batch: at a
// million contacts a batch of 8,192 new contacts landed on some 20,000 pages, and bbolt reads,
// copies and rewrites every page it touches, whole. That rewriting was most of an import's
// time. So each of the four is kept in two parts:
//
//   - its main bucket, where every write other than an import's goes, and
//   - a recent part (a bucket of its own, same keys and values), where an import batch puts
//     its new contacts' entries. The recent part holds at most Bounds.RecentMax entries (the postings
//     Bounds.RecentMaxPostings nums); a batch that takes it past that moves as many from it into the
//     main bucket, the next keys in key order from where the last move stopped (wrapping at
//     the end). A move takes a run of neighbouring keys, so it lands on a sixteenth of the main
//     bucket's pages, and the recent part is small: a batch rewrites about half the pages it
//     did (a 1,000,000-row import: 78 s → 48 s).
//
// An entry is in one part, never both (a phone is looked up in both before it is given to a
// contact; a posting is added once). Readers see the two as one index: SplitIndex's Get looks
// in both, its cursor merges them in key order, and the postings of both parts go into one set.

// SplitIndex is a workspace's index in its two parts; either may be nil (nothing written yet).
type SplitIndex struct{ main, recent *kv.Bucket }

// ReadSplit returns workspace ws's index named by s.
func ReadSplit(tx *kv.Tx, s Split, ws []byte) SplitIndex {
	return SplitIndex{main: WsBucket(tx, s.Main, ws), recent: WsBucket(tx, s.Recent, ws)}
}

// Exists reports whether anything was ever written to the index.
func (x SplitIndex) Exists() bool { return x.main != nil || x.recent != nil }

// Get returns the value of k in either part, nil when neither holds it.
func (x SplitIndex) Get(k []byte) []byte {
	if x.main != nil {
		if v := x.main.Get(k); v != nil {
			return v
		}
	}
	if x.recent != nil {
		return x.recent.Get(k)
	}
	return nil
}

// Delete removes k from whichever part holds it.
func (x SplitIndex) Delete(k []byte) error {
	if x.main != nil {
		if err := x.main.Delete(k); err != nil {
			return err
		}
	}
	if x.recent != nil && hasKey(x.recent, k) {
		if err := x.recent.Delete(k); err != nil {
			return err
		}
		return x.recent.SetSequence(x.recent.Sequence() - 1) // the part's count (see recentWriter.put)
	}
	return nil
}

// Cursor walks both parts as one, in key order.
func (x SplitIndex) Cursor() *SplitCursor {
	c := &SplitCursor{}
	if x.main != nil {
		c.a = x.main.Cursor()
	}
	if x.recent != nil {
		c.b = x.recent.Cursor()
	}
	return c
}

// SplitCursor is a forward cursor over the two parts of a SplitIndex. Keys and values are valid
// for the transaction, as a bolt cursor's are.
type SplitCursor struct {
	a, b       *kv.Cursor
	ka, va     []byte
	kb, vb     []byte
	fromA      bool // the last key returned came from a
	fromBoth   bool // ... and b held the same key (skipped: an entry is in one part)
	positioned bool
}

// First moves to the first key of either part.
func (c *SplitCursor) First() ([]byte, []byte) {
	c.ka, c.va, c.kb, c.vb = nil, nil, nil, nil
	if c.a != nil {
		c.ka, c.va = c.a.First()
	}
	if c.b != nil {
		c.kb, c.vb = c.b.First()
	}
	return c.pick()
}

// Seek moves to k, or to the first key after it.
func (c *SplitCursor) Seek(k []byte) ([]byte, []byte) {
	c.ka, c.va, c.kb, c.vb = nil, nil, nil, nil
	if c.a != nil {
		c.ka, c.va = c.a.Seek(k)
	}
	if c.b != nil {
		c.kb, c.vb = c.b.Seek(k)
	}
	return c.pick()
}

// Next moves to the next key of either part.
func (c *SplitCursor) Next() ([]byte, []byte) {
	if !c.positioned {
		return nil, nil
	}
	if c.fromA || c.fromBoth {
		c.ka, c.va = c.a.Next()
	}
	if !c.fromA || c.fromBoth {
		c.kb, c.vb = c.b.Next()
	}
	return c.pick()
}

func (c *SplitCursor) pick() ([]byte, []byte) {
	c.positioned = true
	c.fromBoth = false
	switch {
	case c.ka == nil && c.kb == nil:
		c.positioned = false
		return nil, nil
	case c.kb == nil:
		c.fromA = true
		return c.ka, c.va
	case c.ka == nil:
		c.fromA = false
		return c.kb, c.vb
	}
	switch cmp := bytes.Compare(c.ka, c.kb); {
	case cmp < 0:
		c.fromA = true
		return c.ka, c.va
	case cmp > 0:
		c.fromA = false
		return c.kb, c.vb
	default:
		c.fromA, c.fromBoth = true, true
		return c.ka, c.va
	}
}
