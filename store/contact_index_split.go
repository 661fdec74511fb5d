package store

import (
	"bytes"
	"slices"

	bolt "go.etcd.io/bbolt"
)

// The phone, e-mail and name-order indexes take keys all over their range, and every one of
// the 10,000 phone-digit terms of the postings gets new nums in every import batch: at a
// million contacts a batch of 8,192 new contacts landed on some 20,000 pages, and bbolt reads,
// copies and rewrites every page it touches, whole. That rewriting was most of an import's
// time. So each of the four is kept in two parts:
//
//   - its main bucket, where every write other than an import's goes, and
//   - a recent part (a bucket of its own, same keys and values), where an import batch puts
//     its new contacts' entries. The recent part holds at most recentMax entries (the postings
//     recentMaxPostings nums); a batch that takes it past that moves as many from it into the
//     main bucket, the next keys in key order from where the last move stopped (wrapping at
//     the end). A move takes a run of neighbouring keys, so it lands on a sixteenth of the main
//     bucket's pages, and the recent part is small: a batch rewrites about half the pages it
//     did (a 1,000,000-row import: 78 s → 48 s).
//
// An entry is in one part, never both (a phone is looked up in both before it is given to a
// contact; a posting is added once). Readers see the two as one index: splitIndex's Get looks
// in both, its cursor merges them in key order, and the postings of both parts go into one set.

// recentMax is how many entries the recent part of an index holds at most: sixteen batches.
var recentMax = 16 * ImportBatchSize

// recentOf names the recent part of each split index.
var recentOf = map[string][]byte{
	string(bContactPhone): bContactPhoneRecent,
	string(bContactEmail): bContactEmailRecent,
	string(bContactOrder): bContactOrderRecent,
	string(bContactTerms): bContactTermsRecent,
}

// splitIndex is a workspace's index in its two parts; either may be nil (nothing written yet).
type splitIndex struct{ main, recent *bolt.Bucket }

// readSplit returns workspace ws's index top (bContactPhone, bContactEmail or bContactOrder).
func readSplit(tx *bolt.Tx, top, ws []byte) splitIndex {
	return splitIndex{main: wsBucket(tx, top, ws), recent: wsBucket(tx, recentOf[string(top)], ws)}
}

// exists reports whether anything was ever written to the index.
func (x splitIndex) exists() bool { return x.main != nil || x.recent != nil }

// Get returns the value of k in either part, nil when neither holds it.
func (x splitIndex) Get(k []byte) []byte {
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
func (x splitIndex) Delete(k []byte) error {
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
func (x splitIndex) Cursor() *splitCursor {
	c := &splitCursor{}
	if x.main != nil {
		c.a = x.main.Cursor()
	}
	if x.recent != nil {
		c.b = x.recent.Cursor()
	}
	return c
}

// splitCursor is a forward cursor over the two parts of a splitIndex. Keys and values are valid
// for the transaction, as a bolt cursor's are.
type splitCursor struct {
	a, b       *bolt.Cursor
	ka, va     []byte
	kb, vb     []byte
	fromA      bool // the last key returned came from a
	fromBoth   bool // ... and b held the same key (skipped: an entry is in one part)
	positioned bool
}

func (c *splitCursor) First() ([]byte, []byte) {
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
func (c *splitCursor) Seek(k []byte) ([]byte, []byte) {
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
func (c *splitCursor) Next() ([]byte, []byte) {
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

func (c *splitCursor) pick() ([]byte, []byte) {
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

// recentWriter puts an import batch's entries into the recent part of index top of workspace
// ws and then moves the overflow into the main part.
type recentWriter struct {
	tx           *bolt.Tx
	top, ws      []byte
	main, recent *bolt.Bucket
}

func openRecent(tx *bolt.Tx, top, ws []byte) (*recentWriter, error) {
	main, err := wsBucketW(tx, top, ws, 0)
	if err != nil {
		return nil, err
	}
	recent, err := wsBucketW(tx, recentOf[string(top)], ws, 0)
	if err != nil {
		return nil, err
	}
	return &recentWriter{tx: tx, top: top, ws: ws, main: main, recent: recent}, nil
}

// index is the writer's index as readers see it.
func (w *recentWriter) index() splitIndex { return splitIndex{main: w.main, recent: w.recent} }

// put adds entries to the recent part, in key order; the part's sequence counts its entries.
func (w *recentWriter) put(keys, vals [][]byte) error {
	for i, k := range keys {
		var v []byte
		if vals != nil {
			v = vals[i]
		}
		if err := w.recent.Put(k, v); err != nil {
			return err
		}
	}
	return w.recent.SetSequence(w.recent.Sequence() + uint64(len(keys)))
}

// settle moves entries from the recent part into the main one until the recent part holds at
// most recentMax, at most twice the added entries just put in one call (so that one
// transaction's rewritten pages stay bounded whatever the count says): the run of keys from
// the position the last move stopped at.
func (w *recentWriter) settle(added int) error {
	n := w.toMove(recentMax, added)
	if n <= 0 {
		return nil
	}
	var moved [][]byte
	err := w.sweep(func(k, v []byte) (bool, error) {
		if len(moved) >= n {
			return false, nil
		}
		moved = append(moved, k)
		return true, w.main.Put(k, v)
	})
	if err != nil {
		return err
	}
	return w.removeMoved(moved, uint64(len(moved)))
}

// toMove is how much the recent part holds beyond limit (its sequence counts what it holds), at
// most twice what was just added.
func (w *recentWriter) toMove(limit, added int) int {
	return min(int(min(w.recent.Sequence(), 1<<31))-limit, 2*added)
}

// sweep calls visit with the recent part's entries in key order from where the last sweep
// stopped (kept in bContactSweep), wrapping around at the end, until visit returns false or
// every entry was visited once; the next sweep starts at the entry visit refused.
func (w *recentWriter) sweep(visit func(k, v []byte) (bool, error)) error {
	sweeps := w.tx.Bucket(bContactSweep)
	posKey := append(slices.Clip(w.ws), w.top...)
	start := sweeps.Get(posKey)
	c := w.recent.Cursor()
	k, v := c.Seek(start)
	for wrapped := false; ; k, v = c.Next() {
		if k == nil {
			if wrapped || start == nil {
				break
			}
			wrapped = true
			if k, v = c.First(); k == nil {
				break
			}
		}
		if wrapped && bytes.Compare(k, start) >= 0 {
			k = nil // once round
			break
		}
		more, err := visit(k, v)
		if err != nil {
			return err
		}
		if !more {
			break
		}
	}
	if k == nil {
		return sweeps.Delete(posKey)
	}
	return sweeps.Put(posKey, bytes.Clone(k))
}

// removeMoved deletes moved keys (moved into the main part) from the recent part, which held
// count entries under them.
func (w *recentWriter) removeMoved(moved [][]byte, count uint64) error {
	for _, k := range moved {
		if err := w.recent.Delete(k); err != nil {
			return err
		}
	}
	return w.recent.SetSequence(w.recent.Sequence() - min(count, w.recent.Sequence()))
}

// ---- postings ----
//
// The postings are split too: an import batch appends its new contacts' postings to the recent
// part (every one of the 10,000 phone-digit terms gets some in every batch, which rewrote the
// last chunk of each in the main part), whose sequence counts the nums it holds. Terms move to
// the main part whole. Readers add both parts' nums to the same set, so which part holds a num
// does not matter to them.

// recentMaxPostings is how many nums the recent part of the postings holds at most: about as
// many batches as the other indexes' recent parts (a contact has 12–16 terms).
var recentMaxPostings = 14 * recentMax

// putPostings appends each term's nums (ascending, after any the term has) to the recent part
// and returns how many it added.
func (w *recentWriter) putPostings(terms []string, nums map[string][]uint32) (int, error) {
	total := 0
	for _, t := range terms {
		if err := appendPostings(w.recent, t, nums[t]); err != nil {
			return 0, err
		}
		total += len(nums[t])
	}
	return total, w.recent.SetSequence(w.recent.Sequence() + uint64(total))
}

// settlePostings moves whole terms from the recent part into the main one until it holds at most
// recentMaxPostings nums, at most twice the added nums just put in one call.
func (w *recentWriter) settlePostings(added int) error {
	n := w.toMove(recentMaxPostings, added)
	if n <= 0 {
		return nil
	}
	var moved [][]byte
	var term []byte // the term being moved, with its 0x00
	var nums []uint32
	flushTerm := func() error {
		if len(nums) == 0 {
			return nil
		}
		err := appendPostings(w.main, string(term[:len(term)-1]), nums)
		nums = nums[:0]
		return err
	}
	count := 0
	err := w.sweep(func(k, v []byte) (bool, error) {
		if len(k) < 5 || k[len(k)-5] != 0 {
			return false, errBadChunk
		}
		t := k[:len(k)-4]
		if !bytes.Equal(t, term) {
			if count >= n {
				return false, nil // a term moves whole
			}
			if err := flushTerm(); err != nil {
				return false, err
			}
			term = t
		}
		before := len(nums)
		var err error
		if nums, err = decodeChunk(nums, chunkFirst(k), v); err != nil {
			return false, err
		}
		count += len(nums) - before
		moved = append(moved, k)
		return true, nil
	})
	if err != nil {
		return err
	}
	if err := flushTerm(); err != nil {
		return err
	}
	return w.removeMoved(moved, uint64(count))
}

// removePosting removes num from term's postings in whichever part holds it.
func (x splitIndex) removePosting(term string, num uint32) error {
	if x.main != nil {
		if found, err := removePosting(x.main, term, num); found || err != nil {
			return err
		}
	}
	if x.recent != nil {
		found, err := removePosting(x.recent, term, num)
		if found && err == nil {
			return x.recent.SetSequence(x.recent.Sequence() - min(1, x.recent.Sequence()))
		}
		return err
	}
	return nil
}

// addPostingsN is addPostingsN over both parts of the postings.
func (x splitIndex) addPostingsN(s numSet, prefix string, exact bool) (int, error) {
	n := 0
	for _, b := range [2]*bolt.Bucket{x.main, x.recent} {
		if b == nil {
			continue
		}
		m, err := addPostingsN(b, s, prefix, exact)
		if n += m; err != nil {
			return n, err
		}
	}
	return n, nil
}

// addMaskPostings is addMaskPostings over both parts of the postings.
func (x splitIndex) addMaskPostings(s numSet, mask uint16) (int, error) {
	n := 0
	for _, b := range [2]*bolt.Bucket{x.main, x.recent} {
		if b == nil {
			continue
		}
		m, err := addMaskPostings(b, s, mask)
		if n += m; err != nil {
			return n, err
		}
	}
	return n, nil
}
