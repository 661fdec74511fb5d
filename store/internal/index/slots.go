package index

import (
	"bytes"
	"encoding/binary"
	"errors"

	"switchboard/store/kv"
)

const (
	// numBlock is how many nums one key of the Nums bucket holds: ranking candidates reads
	// their blocks in order, so fewer, bigger blocks mean fewer cursor steps. A block is a
	// leaf of its own spanning two 4 KB pages: 291 slots of 28 bytes, its 4-byte key and the
	// page and element headers (32 bytes) make 8,184 bytes, where 256 slots left 12 % of
	// the pages empty (files before schema 16; ReblockNums).
	numBlock = 291
	// oldNumBlock is numBlock of files before schema 16.
	oldNumBlock = 256
	// RankLen is the bytes of the sort key kept as a contact's rank: the flag, a first name of up
	// to 9 letters and the start of the last name.
	RankLen = 12
	// slotLen is one num's slot in a block: id, then rank.
	slotLen = 16 + RankLen
	// ChunkMax is the most bytes of deltas one postings chunk holds: a few hundred nums of a
	// common term per key, so that a search reads a common term in few cursor steps while a new
	// contact rewrites only a short value per term.
	ChunkMax = 384
)

// NumKey is the Nums key of block n.
func NumKey(n uint32) []byte { return binary.BigEndian.AppendUint32(nil, n) }

// RankOf is the rank of a sort key: its first RankLen bytes, zero-padded (0x00 sorts first, so
// a shorter key still ranks before the keys it prefixes, and rank(a) < rank(b) means a < b).
func RankOf(sortKey []byte) [RankLen]byte {
	var r [RankLen]byte
	copy(r[:], sortKey)
	return r
}

// putSlot writes num's id and rank into its block.
func putSlot(b *kv.Bucket, num uint32, id [16]byte, rank [RankLen]byte) error {
	k := NumKey(num / numBlock)
	old := b.Get(k)
	v := make([]byte, max(len(old), slotLen*int(num%numBlock+1)))
	copy(v, old)
	i := slotLen * int(num%numBlock)
	copy(v[i:], id[:])
	copy(v[i+16:], rank[:])
	return b.Put(k, v)
}

// SlotReader reads slots of nums, one block fetch per block; ascending nums step the cursor.
type SlotReader struct {
	c     *kv.Cursor
	block uint32
	v     []byte
	at    []byte // the cursor's key, nil past the end
	valid bool
}

// NewSlotReader reads the slots of Nums bucket b.
func NewSlotReader(b *kv.Bucket) *SlotReader { return &SlotReader{c: b.Cursor()} }

// Slot returns num's id and rank; ok is false for a num with no contact.
func (r *SlotReader) Slot(num uint32) (id [16]byte, rank [RankLen]byte, ok bool) {
	blk := num / numBlock
	if !r.valid || r.block != blk {
		var k, v []byte
		if r.valid && r.at != nil && blk > r.block && blk-r.block <= 4 {
			// Ascending nums mostly need the next block or one soon after: stepping there is
			// cheaper than a seek from the root.
			for k, v = r.c.Next(); k != nil && binary.BigEndian.Uint32(k) < blk; k, v = r.c.Next() {
			}
		} else {
			k, v = r.c.Seek(NumKey(blk))
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

// ReblockNums rewrites Nums bucket b, written with blocks of 256 slots (files before schema
// 16), into blocks of numBlock: every slot keeps its num, id and rank; the bucket's sequence is
// kept. A block with no contact in it is not written. A bucket already in blocks of numBlock
// is left as it is: an upgrade from schema 1 writes its nums with this binary's blocks before
// this step runs. The last block tells which: it ends at the slot of the bucket's sequence,
// the last num given.
func ReblockNums(b *kv.Bucket) error {
	k, v := b.Cursor().Last()
	if k == nil || len(k) != 4 || len(v) < slotLen {
		return nil // no contact yet, or nothing a block layout could be read from
	}
	last := uint64(len(v)/slotLen - 1)
	if uint64(u32(k))*numBlock+last == b.Sequence() {
		return nil // already in blocks of numBlock (also when one block holds every num)
	}
	return reblock(b, oldNumBlock, numBlock)
}

// UnblockNums is ReblockNums backwards: b as a file before schema 16 held it (for the tests of
// the upgrade).
func UnblockNums(b *kv.Bucket) error { return reblock(b, numBlock, oldNumBlock) }

// errBadBlock reports a Nums entry that is not a block.
var errBadBlock = errors.New("store: corrupt contact num block")

func reblock(b *kv.Bucket, from, to int) error {
	var flat []byte // every slot by num
	var keys [][]byte
	c := b.Cursor()
	for k, v := c.First(); k != nil; k, v = c.Next() {
		if len(k) != 4 || v == nil || len(v) > from*slotLen || len(v)%slotLen != 0 {
			return errBadBlock
		}
		start := int(u32(k)) * from * slotLen
		if end := start + len(v); end > len(flat) {
			flat = append(flat, make([]byte, end-len(flat))...)
		}
		copy(flat[start:], v)
		keys = append(keys, bytes.Clone(k))
	}
	for _, k := range keys {
		if err := b.Delete(k); err != nil {
			return err
		}
	}
	size := to * slotLen
	for start := 0; start < len(flat); start += size {
		v := flat[start:min(start+size, len(flat))]
		empty := true
		for i := 0; i+16 <= len(v) && empty; i += slotLen {
			empty = [16]byte(v[i:i+16]) == [16]byte{}
		}
		if empty {
			continue
		}
		if err := b.Put(NumKey(uint32(start/size)), v); err != nil {
			return err
		}
	}
	return nil
}
