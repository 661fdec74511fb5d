package index

import (
	"bytes"
	"encoding/binary"
	"math/bits"
	"strings"
	"switchboard/internal/textfold"
	"unicode"
	"unicode/utf8"

	"switchboard/store/kv"
)

// The message-word index lets the inbox search what was said. Two buckets hold one nested
// bucket per workspace (keyed by its 16 id bytes):
//
//	Layout.Words  word | 0x00 | first num(4) → the chunk's other nums, delta+uvarint
//	Layout.Slots  num/msgSlotBlock (4) → msgSlotBlock slots of conversation id(16)
//
// A message with words gets a small dense num from the slots bucket's sequence (the store keeps
// it in the message's record), so its postings encode in a byte or two each, like the contact
// postings, whose chunk functions this reuses. The slots map a num back to its conversation, so
// a search turns matching messages into conversations without reading them. A message's words,
// postings and slot are written in the transaction that stores it and deleted with it.

const (
	// msgSlotBlock nums share one slots key (4 KB of conversation ids).
	msgSlotBlock = 256
	// maxWordLen is the most bytes of a word the index keeps; longer words (and query words)
	// are cut to it, at a rune boundary.
	maxWordLen = 24
	// maxMessageWords is the most distinct words of one message indexed (a 1,200-character text
	// rarely has more).
	maxMessageWords = 200
)

// MessageWords are the words of a text as the message index holds them: folded (case and
// accents), split at every character that is neither a letter nor a digit, de-duplicated,
// each cut to maxWordLen bytes.
func MessageWords(text string) []string {
	f := textfold.Fold(text)
	words := strings.FieldsFunc(f, func(r rune) bool { return !unicode.IsLetter(r) && !unicode.IsDigit(r) })
	for i, w := range words {
		words[i] = cutWord(w)
	}
	words = dedupe(words)
	if len(words) > maxMessageWords {
		words = words[:maxMessageWords]
	}
	return words
}

func cutWord(w string) string {
	if len(w) <= maxWordLen {
		return w
	}
	n := maxWordLen
	for n > 0 && !utf8.RuneStart(w[n]) {
		n--
	}
	return w[:n]
}

// IndexMessage gives a message of workspace ws in conversation conv, with words (at least one,
// as MessageWords makes them), its num, and writes its slot (into blocks when not nil: a
// fan-out's copies) and buffers its postings in wb, written by FlushWords before the commit.
// The num is 0 when the workspace has used every num: the message is then not indexed.
func (e *Engine) IndexMessage(tx *kv.Tx, ws, conv []byte, words []string, blocks *MsgBlocks, wb WordBuf) (uint32, error) {
	slots, err := WsBucketW(tx, e.l.Slots, ws, FillAppend)
	if err != nil {
		return 0, err
	}
	seq, err := slots.NextSequence()
	if err != nil {
		return 0, err
	}
	if seq > 1<<32-1 {
		return 0, nil // beyond what a num holds: the message is stored, not indexed
	}
	num := uint32(seq)
	if blocks != nil {
		err = blocks.putSlot(slots, num, conv)
	} else {
		err = putMsgSlot(slots, num, conv)
	}
	if err != nil {
		return 0, err
	}
	wb.add(ws, words, num) // written just before the commit (FlushWords)
	return num, nil
}

// MsgBlocks holds the slot blocks of the messages stored in one transaction (a broadcast's
// fan-out chunk: thousands of copies), so that each new slot is written into its block in place
// instead of copying the block per message; a num always maps to its conversation at once. (The
// copies' word postings go through the transaction's WordBuf.)
type MsgBlocks struct {
	blocks map[uint32][]byte
}

// NewMsgBlocks returns empty blocks for one write transaction.
func NewMsgBlocks() *MsgBlocks { return &MsgBlocks{blocks: map[uint32][]byte{}} }

// putSlot is putMsgSlot writing into the block buf already holds for this transaction.
func (buf *MsgBlocks) putSlot(b *kv.Bucket, num uint32, conv []byte) error {
	blk := num / msgSlotBlock
	return putInBlock(b, buf.blocks, blk, binary.BigEndian.AppendUint32(nil, blk), 16*msgSlotBlock, 16*int(num%msgSlotBlock), conv)
}

// UnindexMessage removes the postings (words, as MessageWords made them) and slot of the message
// of workspace ws with num, from the index and from wb (a message stored in this transaction).
func (e *Engine) UnindexMessage(tx *kv.Tx, ws []byte, words []string, num uint32, wb WordBuf) error {
	wb.remove(ws, words, num)
	if terms := WsBucket(tx, e.l.Words, ws); terms != nil {
		for _, w := range words {
			if _, err := removePosting(terms, w, num); err != nil {
				return err
			}
		}
	}
	if slots := WsBucket(tx, e.l.Slots, ws); slots != nil {
		return putMsgSlot(slots, num, make([]byte, 16))
	}
	return nil
}

func putMsgSlot(b *kv.Bucket, num uint32, conv []byte) error {
	k := binary.BigEndian.AppendUint32(nil, num/msgSlotBlock)
	old := b.Get(k)
	v := make([]byte, max(len(old), 16*int(num%msgSlotBlock+1)))
	copy(v, old)
	copy(v[16*int(num%msgSlotBlock):], conv)
	return b.Put(k, v)
}

// MsgSlotReader maps nums (read in ascending order) to conversation ids, a block at a time.
type MsgSlotReader struct {
	c     *kv.Cursor
	block uint32
	v     []byte
	valid bool
}

// Conv is the conversation of the message with num; ok is false for a num with none.
func (r *MsgSlotReader) Conv(num uint32) ([16]byte, bool) {
	var id [16]byte
	blk := num / msgSlotBlock
	if !r.valid || r.block != blk {
		k, v := r.c.Seek(binary.BigEndian.AppendUint32(nil, blk))
		r.block, r.valid, r.v = blk, true, nil
		if k != nil && len(k) == 4 && binary.BigEndian.Uint32(k) == blk {
			r.v = v
		}
	}
	i := 16 * int(num%msgSlotBlock)
	if i+16 > len(r.v) {
		return id, false
	}
	copy(id[:], r.v[i:i+16])
	return id, id != [16]byte{}
}

// MessageMatches returns the conversations of workspace ws having a message in which every query word (as
// MessageWords makes them) is a prefix of a word, as a set of conversation ids, and how many
// postings entries it decoded; nil when there are no words.
func (e *Engine) MessageMatches(tx *kv.Tx, ws []byte, words []string) (map[[16]byte]struct{}, int, error) {
	if len(words) == 0 {
		return nil, 0, nil
	}
	out := map[[16]byte]struct{}{}
	slots := WsBucket(tx, e.l.Slots, ws)
	cands, decoded, err := e.MessageNums(tx, ws, words)
	if cands == nil || err != nil {
		return out, decoded, err
	}
	defer PutSet(cands)
	r := &MsgSlotReader{c: slots.Cursor()}
	var last [16]byte
	for i, word := range cands {
		for word != 0 {
			b := uint32(bits.TrailingZeros64(word))
			word &= word - 1
			// Neighbouring nums are often one conversation's messages: skip the map then.
			if id, ok := r.Conv(uint32(i)*64 + b); ok && id != last {
				out[id], last = struct{}{}, id
			}
		}
	}
	return out, decoded, nil
}

// MessageNums returns the nums of the messages in which every one of words (at least one) is
// a prefix of a word, from the postings, and how many entries it decoded; nil when the
// workspace has no index. The caller puts the set back (PutSet).
func (e *Engine) MessageNums(tx *kv.Tx, ws []byte, words []string) (Set, int, error) {
	terms, slots := WsBucket(tx, e.l.Words, ws), WsBucket(tx, e.l.Slots, ws)
	if terms == nil || slots == nil {
		return nil, 0, nil
	}
	seq := slots.Sequence()
	if seq > 1<<32-1 {
		seq = 1<<32 - 1
	}
	maxNum := uint32(seq)
	var cands Set
	decoded := 0
	for _, w := range words {
		set := GetSet(maxNum)
		n, err := addPostingsN(terms, set, w, false)
		decoded += n
		if err != nil {
			PutSet(set)
			if cands != nil {
				PutSet(cands)
			}
			return nil, decoded, err
		}
		if cands == nil {
			cands = set
		} else {
			cands.And(set)
			PutSet(set)
		}
	}
	return cands, decoded, nil
}

// MsgSlots reads the message slots of workspace ws; ok is false when it has none.
func (e *Engine) MsgSlots(tx *kv.Tx, ws []byte) (*MsgSlotReader, bool) {
	slots := WsBucket(tx, e.l.Slots, ws)
	if slots == nil {
		return nil, false
	}
	return &MsgSlotReader{c: slots.Cursor()}, true
}

// EstimateMessageMatches estimates how many messages match every one of words. Each word's
// postings entries are counted from its chunks' sizes (a chunk's value holds at least a byte
// per entry after its first, so bytes plus chunks bound the entries), up to 20 × limit; words
// are taken as independent, so the estimate is the messages times the product of each word's
// share of them.
func (e *Engine) EstimateMessageMatches(tx *kv.Tx, ws []byte, words []string, limit int) int {
	terms, slots := WsBucket(tx, e.l.Words, ws), WsBucket(tx, e.l.Slots, ws)
	if terms == nil || slots == nil {
		return 0
	}
	total := float64(max(slots.Sequence(), 1))
	est := total
	c := terms.Cursor()
	for _, w := range words {
		n := 0
		p := []byte(w)
		for k, v := c.Seek(p); k != nil && bytes.HasPrefix(k, p) && n < 20*limit; k, v = c.Next() {
			n += len(v) + 1
		}
		est *= min(float64(n), total) / total
	}
	return int(est)
}
