package store

import (
	"bytes"
	"encoding/binary"
	"errors"
	"slices"

	bolt "go.etcd.io/bbolt"
)

// The contact buckets hold one nested bucket per workspace, keyed by the workspace's 16 id
// bytes, so that no key inside repeats them (at a million contacts, 16 repeated bytes a key
// would be a large part of the file):
//
//	contact_records       id(16) → record (contact_record.go)
//	idx_contact_by_phone  phone → num(4)
//	idx_contact_by_email  fnv32(lower(email)) | num(4) → empty
//	idx_contact_names     sort key | num(4) → empty: every contact in display order
//	idx_contact_nums      num/numBlock (4) → numBlock slots of id(16) | rank(rankLen)
//	idx_contact_postings  term | 0x00 | first num(4) → the chunk's other nums, delta+uvarint
//
// The phone, email, names and postings buckets each have a recent part beside them, written by
// imports and read with them (contact_index_split.go).
//
// A contact's num is a small dense number given when it is created (the nums bucket's
// sequence): postings of nums differ by a few hundred and encode in one or two bytes each,
// where 16-byte ids would take 16. The nums bucket maps a num back to its id and to its rank,
// the first rankLen bytes of its sort key, so a search orders candidates without reading them.

const (
	// numBlock is how many nums one key of idx_contact_nums holds: ranking candidates reads
	// their blocks in order, so fewer, bigger blocks mean fewer cursor steps (7 KB each).
	numBlock = 256
	// rankLen is the bytes of the sort key kept as a contact's rank: the flag, a first name of up
	// to 9 letters and the start of the last name.
	rankLen = 12
	// slotLen is one num's slot in a block: id, then rank.
	slotLen = 16 + rankLen
	// chunkMax is the most bytes of deltas one postings chunk holds: a few hundred nums of a
	// common term per key, so that a search reads a common term in few cursor steps while a new
	// contact rewrites only a short value per term.
	chunkMax = 384
)

// Fill factors: the records and the nums blocks grow at their end (ULIDs and nums ascend), so
// their pages are filled before they split; the others take keys all over their range.
var (
	fillAppend   = 0.95
	fillPostings = 0.9
)

var errBadChunk = errors.New("store: corrupt postings chunk")

// wsBucket returns workspace ws's bucket in top, nil when it has none yet (nothing written).
func wsBucket(tx *bolt.Tx, top, ws []byte) *bolt.Bucket {
	return tx.Bucket(top).Bucket(ws)
}

// wsBucketW returns workspace ws's bucket in top for writing, creating it.
func wsBucketW(tx *bolt.Tx, top, ws []byte, fill float64) (*bolt.Bucket, error) {
	b, err := tx.Bucket(top).CreateBucketIfNotExists(ws)
	if err != nil {
		return nil, err
	}
	if fill > 0 {
		b.FillPercent = fill
	}
	return b, nil
}

func numKey(n uint32) []byte { return binary.BigEndian.AppendUint32(nil, n) }

// rankOf is the rank of a sort key: its first rankLen bytes, zero-padded (0x00 sorts first, so
// a shorter key still ranks before the keys it prefixes, and rank(a) < rank(b) means a < b).
func rankOf(sortKey []byte) [rankLen]byte {
	var r [rankLen]byte
	copy(r[:], sortKey)
	return r
}

// putSlot writes num's id and rank into its block.
func putSlot(b *bolt.Bucket, num uint32, id [16]byte, rank [rankLen]byte) error {
	k := numKey(num / numBlock)
	old := b.Get(k)
	v := make([]byte, max(len(old), slotLen*int(num%numBlock+1)))
	copy(v, old)
	i := slotLen * int(num%numBlock)
	copy(v[i:], id[:])
	copy(v[i+16:], rank[:])
	return b.Put(k, v)
}

// slotReader reads slots of nums, one block fetch per block; ascending nums step the cursor.
type slotReader struct {
	c     *bolt.Cursor
	block uint32
	v     []byte
	at    []byte // the cursor's key, nil past the end
	valid bool
}

func newSlotReader(b *bolt.Bucket) *slotReader { return &slotReader{c: b.Cursor()} }

// slot returns num's id and rank; ok is false for a num with no contact.
func (r *slotReader) slot(num uint32) (id [16]byte, rank [rankLen]byte, ok bool) {
	blk := num / numBlock
	if !r.valid || r.block != blk {
		var k, v []byte
		if r.valid && r.at != nil && blk > r.block && blk-r.block <= 4 {
			// Ascending nums mostly need the next block or one soon after: stepping there is
			// cheaper than a seek from the root.
			for k, v = r.c.Next(); k != nil && binary.BigEndian.Uint32(k) < blk; k, v = r.c.Next() {
			}
		} else {
			k, v = r.c.Seek(numKey(blk))
		}
		r.block, r.valid, r.v, r.at = blk, true, nil, k
		if k != nil && binary.BigEndian.Uint32(k) == blk {
			r.v = v
		}
	}
	i := slotLen * int(num%numBlock)
	if i+slotLen > len(r.v) {
		return id, rank, false
	}
	copy(id[:], r.v[i:i+16])
	copy(rank[:], r.v[i+16:i+slotLen])
	return id, rank, id != [16]byte{}
}

// ---- postings ----

// decodeChunk appends the nums of a chunk whose key holds first and whose value is v.
func decodeChunk(dst []uint32, first uint32, v []byte) ([]uint32, error) {
	dst = append(dst, first)
	n := uint64(first)
	for len(v) > 0 {
		d, k := binary.Uvarint(v)
		if k <= 0 || d == 0 {
			return dst, errBadChunk
		}
		n += d
		if n > 1<<32-1 {
			return dst, errBadChunk
		}
		dst = append(dst, uint32(n))
		v = v[k:]
	}
	return dst, nil
}

// chunkLast is the last num of a chunk; ok is false when the chunk does not decode.
func chunkLast(first uint32, v []byte) (uint32, bool) {
	n := uint64(first)
	for len(v) > 0 {
		d, k := binary.Uvarint(v)
		if k <= 0 || d == 0 {
			return 0, false
		}
		n += d
		v = v[k:]
	}
	return uint32(n), n <= 1<<32-1
}

// encodeChunk is the value of a chunk of nums (ascending, distinct, at least one).
func encodeChunk(nums []uint32) []byte {
	v := make([]byte, 0, len(nums)+8)
	for i := 1; i < len(nums); i++ {
		v = binary.AppendUvarint(v, uint64(nums[i]-nums[i-1]))
	}
	return v
}

// termKey is term | 0x00 | num: the key of term's chunk starting at num (terms hold no 0x00).
func termKey(term string, num uint32) []byte {
	k := make([]byte, 0, len(term)+5)
	k = append(k, term...)
	k = append(k, 0)
	return binary.BigEndian.AppendUint32(k, num)
}

func chunkFirst(k []byte) uint32 { return binary.BigEndian.Uint32(k[len(k)-4:]) }

// isChunkOf reports whether k is a chunk key of the term whose prefix (term | 0x00) is p.
func isChunkOf(k, p []byte) bool { return len(k) == len(p)+4 && bytes.HasPrefix(k, p) }

// addPosting adds num to term's postings. New contacts have the highest num, so the common case
// appends to the term's last chunk.
func addPosting(b *bolt.Bucket, term string, num uint32) error {
	p := termKey(term, 0)
	p = p[:len(p)-4]
	c := b.Cursor()
	k, v := c.Seek(termKey(term, num))
	if k != nil && isChunkOf(k, p) && chunkFirst(k) == num {
		return nil
	}
	nextK, nextV := k, v
	if k == nil {
		k, v = c.Last()
	} else {
		k, v = c.Prev()
	}
	if k == nil || !isChunkOf(k, p) {
		// num comes before the term's chunks: it heads the next chunk, re-keyed, or a new one.
		if nextK != nil && isChunkOf(nextK, p) && len(nextV) < chunkMax {
			nv := binary.AppendUvarint(nil, uint64(chunkFirst(nextK)-num))
			nv = append(nv, nextV...)
			if err := b.Delete(bytes.Clone(nextK)); err != nil {
				return err
			}
			return b.Put(termKey(term, num), nv)
		}
		return b.Put(termKey(term, num), nil)
	}
	first := chunkFirst(k)
	if last, ok := chunkLast(first, v); ok && num > last {
		// The common case, a new contact: append one delta, decoding nothing.
		if len(v) >= chunkMax {
			return b.Put(termKey(term, num), nil)
		}
		nv := make([]byte, len(v), len(v)+binary.MaxVarintLen32)
		copy(nv, v)
		return b.Put(bytes.Clone(k), binary.AppendUvarint(nv, uint64(num-last)))
	}
	nums, err := decodeChunk(nil, first, v)
	if err != nil {
		return err
	}
	i, found := slices.BinarySearch(nums, num)
	if found {
		return nil
	}
	if i == len(nums) && len(v) >= chunkMax {
		return b.Put(termKey(term, num), nil) // after a full chunk: start the next
	}
	nums = slices.Insert(nums, i, num)
	nv := encodeChunk(nums)
	if len(nv) <= chunkMax {
		return b.Put(bytes.Clone(k), nv)
	}
	// Into the middle of a full chunk: split it in halves.
	half := len(nums) / 2
	if err := b.Put(bytes.Clone(k), encodeChunk(nums[:half])); err != nil {
		return err
	}
	return b.Put(termKey(term, nums[half]), encodeChunk(nums[half:]))
}

// appendPostings adds nums (ascending) to term's postings: appended to its last chunk and new
// chunks when they all come after it, else one by one.
func appendPostings(b *bolt.Bucket, term string, nums []uint32) error {
	p := termKey(term, 0)
	p = p[:len(p)-4]
	c := b.Cursor()
	k, v := c.Seek(termKey(term, nums[0]))
	if k != nil && isChunkOf(k, p) {
		// A chunk at or after the first num: not an append.
		for _, n := range nums {
			if err := addPosting(b, term, n); err != nil {
				return err
			}
		}
		return nil
	}
	if k == nil {
		k, v = c.Last()
	} else {
		k, v = c.Prev()
	}
	var key, val []byte
	last := uint32(0)
	if k != nil && isChunkOf(k, p) {
		l, ok := chunkLast(chunkFirst(k), v)
		if !ok {
			return errBadChunk
		}
		key, val, last = bytes.Clone(k), bytes.Clone(v), l
	}
	for _, n := range nums {
		switch {
		case key != nil && n <= last:
			return errBadChunk // nums must ascend past the term's postings
		case key == nil || len(val) >= chunkMax:
			if key != nil {
				if err := b.Put(key, val); err != nil {
					return err
				}
			}
			key, val = termKey(term, n), nil
		default:
			val = binary.AppendUvarint(val, uint64(n-last))
		}
		last = n
	}
	return b.Put(key, val)
}

// removePosting removes num from term's postings and reports whether it was there.
func removePosting(b *bolt.Bucket, term string, num uint32) (bool, error) {
	p := termKey(term, 0)
	p = p[:len(p)-4]
	c := b.Cursor()
	k, v := c.Seek(termKey(term, num))
	if k == nil || !isChunkOf(k, p) || chunkFirst(k) != num {
		if k == nil {
			k, v = c.Last()
		} else {
			k, v = c.Prev()
		}
	}
	if k == nil || !isChunkOf(k, p) {
		return false, nil
	}
	nums, err := decodeChunk(nil, chunkFirst(k), v)
	if err != nil {
		return false, err
	}
	i, found := slices.BinarySearch(nums, num)
	if !found {
		return false, nil
	}
	nums = slices.Delete(nums, i, i+1)
	key := bytes.Clone(k)
	if i == 0 {
		if err := b.Delete(key); err != nil || len(nums) == 0 {
			return err == nil, err
		}
		key = termKey(term, nums[0])
	}
	return true, b.Put(key, encodeChunk(nums))
}

// ---- candidate sets ----

// addPostings adds to s the nums of every term starting with prefix (the term itself and
// nothing else when exact): decoded straight into the bitset, with no list in between.
func addPostings(b *bolt.Bucket, s numSet, prefix string, exact bool) error {
	_, err := addPostingsN(b, s, prefix, exact)
	return err
}

// addPostingsN is addPostings also returning how many entries it decoded.
func addPostingsN(b *bolt.Bucket, s numSet, prefix string, exact bool) (entries int, err error) {
	p := []byte(prefix)
	if exact {
		p = append(p, 0)
	}
	c := b.Cursor()
	for k, v := c.Seek(p); k != nil && bytes.HasPrefix(k, p); k, v = c.Next() {
		if len(k) < 5 || k[len(k)-5] != 0 {
			return entries, errBadChunk
		}
		n, err := addChunk(s, chunkFirst(k), v)
		entries += n
		if err != nil {
			return entries, err
		}
	}
	return entries, nil
}

// addMaskPostings adds to s the nums of every mask term whose digits include all of mask's:
// the contacts whose phones hold every one of those digits. The mask terms are at most 1,024,
// next to each other: one pass over their chunks, decoding only those that qualify.
func addMaskPostings(b *bolt.Bucket, s numSet, mask uint16) (entries int, err error) {
	c := b.Cursor()
	for k, v := c.Seek([]byte("m")); k != nil && k[0] == 'm'; k, v = c.Next() {
		if len(k) < 6 || k[len(k)-5] != 0 {
			return entries, errBadChunk
		}
		if termMask(k[1:len(k)-5])&mask != mask {
			continue
		}
		n, err := addChunk(s, chunkFirst(k), v)
		entries += n
		if err != nil {
			return entries, err
		}
	}
	return entries, nil
}

// addChunk adds the nums of the chunk starting at first with deltas v to s, decoded straight
// into the bitset, and returns how many it decoded.
func addChunk(s numSet, first uint32, v []byte) (entries int, err error) {
	n := uint64(first)
	s.add(first)
	entries++
	for i := 0; i < len(v); {
		// Most deltas of a common term are one byte: decoded inline, the rest by Uvarint.
		if b := v[i]; b < 0x80 && b > 0 {
			n += uint64(b)
			i++
		} else {
			d, w := binary.Uvarint(v[i:])
			if w <= 0 || d == 0 {
				return entries, errBadChunk
			}
			n += d
			i += w
		}
		if n > 1<<32-1 {
			return entries, errBadChunk
		}
		s.add(uint32(n))
		entries++
	}
	return entries, nil
}
