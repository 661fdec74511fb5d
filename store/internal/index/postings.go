package index

import (
	"bytes"
	"encoding/binary"
	"errors"
	"slices"

	"switchboard/store/kv"
)

// ErrBadChunk reports a postings chunk that does not decode.
var ErrBadChunk = errors.New("store: corrupt postings chunk")

// decodeChunk appends the nums of a chunk whose key holds first and whose value is v.
func decodeChunk(dst []uint32, first uint32, v []byte) ([]uint32, error) {
	dst = append(dst, first)
	n := uint64(first)
	for len(v) > 0 {
		d, k := binary.Uvarint(v)
		if k <= 0 || d == 0 {
			return dst, ErrBadChunk
		}
		n += d
		if n > 1<<32-1 {
			return dst, ErrBadChunk
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
func addPosting(b *kv.Bucket, term string, num uint32) error {
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
		if nextK != nil && isChunkOf(nextK, p) && len(nextV) < ChunkMax {
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
		if len(v) >= ChunkMax {
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
	if i == len(nums) && len(v) >= ChunkMax {
		return b.Put(termKey(term, num), nil) // after a full chunk: start the next
	}
	nums = slices.Insert(nums, i, num)
	nv := encodeChunk(nums)
	if len(nv) <= ChunkMax {
		return b.Put(bytes.Clone(k), nv)
	}
	// Into the middle of a full chunk: split it in halves.
	half := len(nums) / 2
	if err := b.Put(bytes.Clone(k), encodeChunk(nums[:half])); err != nil {
		return err
	}
	return b.Put(termKey(term, nums[half]), encodeChunk(nums[half:]))
}

// AppendPostings adds nums (ascending) to term's postings: appended to its last chunk and new
// chunks when they all come after it, else one by one.
func AppendPostings(b *kv.Bucket, term string, nums []uint32) error {
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
			return ErrBadChunk
		}
		key, val, last = bytes.Clone(k), bytes.Clone(v), l
	}
	for _, n := range nums {
		switch {
		case key != nil && n <= last:
			return ErrBadChunk // nums must ascend past the term's postings
		case key == nil || len(val) >= ChunkMax:
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
func removePosting(b *kv.Bucket, term string, num uint32) (bool, error) {
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
func addPostings(b *kv.Bucket, s Set, prefix string, exact bool) error {
	_, err := addPostingsN(b, s, prefix, exact)
	return err
}

// addPostingsN is addPostings also returning how many entries it decoded.
func addPostingsN(b *kv.Bucket, s Set, prefix string, exact bool) (entries int, err error) {
	p := []byte(prefix)
	if exact {
		p = append(p, 0)
	}
	c := b.Cursor()
	for k, v := c.Seek(p); k != nil && bytes.HasPrefix(k, p); k, v = c.Next() {
		if len(k) < 5 || k[len(k)-5] != 0 {
			return entries, ErrBadChunk
		}
		n, err := addChunk(s, chunkFirst(k), v)
		entries += n
		if err != nil {
			return entries, err
		}
	}
	return entries, nil
}

// addMaskPostings adds to s the nums of every mask term whose digits include all of mask's and
// whose phones have at least minLen digits: the contacts whose phones hold every one of those
// digits and are long enough. The mask terms are at most 1,024 a length, next to each other in
// order of length: one pass from the first of minLen digits, decoding only the chunks that
// qualify.
func addMaskPostings(b *kv.Bucket, s Set, mask uint16, minLen int) (entries int, err error) {
	err = maskChunks(b, mask, minLen, func(k, v []byte) bool {
		var n int
		n, err = addChunk(s, chunkFirst(k), v)
		entries += n
		return err == nil
	})
	return entries, err
}

// maskEntries estimates the entries addMaskPostings would decode (a chunk's first num and a
// byte a delta, most deltas of a mask term being one byte) without decoding any, giving up with
// ok false once they pass budget.
func maskEntries(b *kv.Bucket, mask uint16, minLen, budget int) (n int, ok bool, err error) {
	err = maskChunks(b, mask, minLen, func(_, v []byte) bool {
		n += 1 + len(v)
		return n <= budget
	})
	return n, n <= budget, err
}

// maskChunks calls f with each chunk of the mask terms that qualify for mask and minLen, in key
// order, until f returns false.
func maskChunks(b *kv.Bucket, mask uint16, minLen int, f func(k, v []byte) bool) error {
	c := b.Cursor()
	for k, v := c.Seek(maskPrefix(minLen)); k != nil && k[0] == 'l'; k, v = c.Next() {
		if len(k) < 9 || k[len(k)-5] != 0 {
			return ErrBadChunk
		}
		if termMask(k[3:len(k)-5])&mask != mask {
			continue
		}
		if !f(k, v) {
			return nil
		}
	}
	return nil
}

// addChunk adds the nums of the chunk starting at first with deltas v to s, decoded straight
// into the bitset, and returns how many it decoded.
func addChunk(s Set, first uint32, v []byte) (entries int, err error) {
	n := uint64(first)
	s.Add(first)
	entries++
	for i := 0; i < len(v); {
		// Most deltas are one byte (a common term's) or two (a rarer term's, up to 16,383):
		// decoded inline, the rest by Uvarint.
		if b := v[i]; b < 0x80 && b > 0 {
			n += uint64(b)
			i++
		} else if i+1 < len(v) && b >= 0x80 && v[i+1] < 0x80 && v[i+1] > 0 {
			n += uint64(b&0x7f) | uint64(v[i+1])<<7
			i += 2
		} else {
			d, w := binary.Uvarint(v[i:])
			if w <= 0 || d == 0 {
				return entries, ErrBadChunk
			}
			n += d
			i += w
		}
		if n > 1<<32-1 {
			return entries, ErrBadChunk
		}
		s.Add(uint32(n))
		entries++
	}
	return entries, nil
}

// ChunkNums is the nums of the postings chunk with key k (term | 0x00 | first num) and value v.
func ChunkNums(k, v []byte) ([]uint32, error) {
	if len(k) < 5 {
		return nil, ErrBadChunk
	}
	return decodeChunk(nil, chunkFirst(k), v)
}
