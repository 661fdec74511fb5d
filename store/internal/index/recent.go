package index

import (
	"bytes"
	"slices"

	"switchboard/store/kv"
)

// recentWriter puts an import batch's entries into the recent part of index top of workspace
// ws and then moves the overflow into the main part.
type recentWriter struct {
	e            *Engine
	tx           *kv.Tx
	top, ws      []byte
	main, recent *kv.Bucket
}

func (e *Engine) openRecent(tx *kv.Tx, s Split, ws []byte) (*recentWriter, error) {
	main, err := WsBucketW(tx, s.Main, ws, 0)
	if err != nil {
		return nil, err
	}
	recent, err := WsBucketW(tx, s.Recent, ws, 0)
	if err != nil {
		return nil, err
	}
	return &recentWriter{e: e, tx: tx, top: s.Main, ws: ws, main: main, recent: recent}, nil
}

// index is the writer's index as readers see it.
func (w *recentWriter) index() SplitIndex { return SplitIndex{main: w.main, recent: w.recent} }

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
// most Bounds.RecentMax, at most twice the added entries just put in one call (so that one
// transaction's rewritten pages stay bounded whatever the count says): the run of keys from
// the position the last move stopped at.
func (w *recentWriter) settle(added int) error {
	n := w.toMove(w.e.Bounds.RecentMax, added)
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
// stopped (kept in Layout.Sweep), wrapping around at the end, until visit returns false or
// every entry was visited once; the next sweep starts at the entry visit refused.
func (w *recentWriter) sweep(visit func(k, v []byte) (bool, error)) error {
	sweeps := w.tx.Bucket(w.e.l.Sweep)
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

// putPostings appends each term's nums (ascending, after any the term has) to the recent part
// and returns how many it added.
func (w *recentWriter) putPostings(terms []string, nums map[string][]uint32) (int, error) {
	total := 0
	for _, t := range terms {
		if err := AppendPostings(w.recent, t, nums[t]); err != nil {
			return 0, err
		}
		total += len(nums[t])
	}
	return total, w.recent.SetSequence(w.recent.Sequence() + uint64(total))
}

// settlePostings moves whole terms from the recent part into the main one until it holds at most
// Bounds.RecentMaxPostings nums, at most twice the added nums just put in one call.
func (w *recentWriter) settlePostings(added int) error {
	n := w.toMove(w.e.Bounds.RecentMaxPostings, added)
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
		err := AppendPostings(w.main, string(term[:len(term)-1]), nums)
		nums = nums[:0]
		return err
	}
	count := 0
	err := w.sweep(func(k, v []byte) (bool, error) {
		if len(k) < 5 || k[len(k)-5] != 0 {
			return false, ErrBadChunk
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
func (x SplitIndex) removePosting(term string, num uint32) error {
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

// AddPostings adds to s the nums of every term starting with prefix (the term itself and nothing
// else when exact), from both parts of the postings, and returns how many entries it decoded.
func (x SplitIndex) AddPostings(s Set, prefix string, exact bool) (int, error) {
	n := 0
	for _, b := range [2]*kv.Bucket{x.main, x.recent} {
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
func (x SplitIndex) addMaskPostings(s Set, mask uint16, minLen int) (int, error) {
	n := 0
	for _, b := range [2]*kv.Bucket{x.main, x.recent} {
		if b == nil {
			continue
		}
		m, err := addMaskPostings(b, s, mask, minLen)
		if n += m; err != nil {
			return n, err
		}
	}
	return n, nil
}

// maskEntries is maskEntries over both parts of the postings.
func (x SplitIndex) maskEntries(mask uint16, minLen, budget int) (int, bool, error) {
	n := 0
	for _, b := range [2]*kv.Bucket{x.main, x.recent} {
		if b == nil {
			continue
		}
		m, ok, err := maskEntries(b, mask, minLen, budget-n)
		if n += m; err != nil || !ok {
			return n, false, err
		}
	}
	return n, true, nil
}
