package index

import (
	"encoding/binary"

	"switchboard/store/kv"
)

const (
	// numBlock is how many nums one key of the Nums bucket holds: ranking candidates reads
	// their blocks in order, so fewer, bigger blocks mean fewer cursor steps (7 KB each).
	numBlock = 256
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
