package store

import (
	"bytes"
	"encoding/binary"
	"math/bits"
	"strings"
	"switchboard/internal/textfold"
	"unicode"
	"unicode/utf8"

	bolt "go.etcd.io/bbolt"
)

// The message-word index lets the inbox search what was said. Two buckets hold one nested
// bucket per workspace (keyed by its 16 id bytes):
//
//	idx_message_words  word | 0x00 | first num(4) → the chunk's other nums, delta+uvarint
//	idx_message_slots  num/msgSlotBlock (4) → msgSlotBlock slots of conversation id(16)
//
// A message with words gets a small dense num from the slots bucket's sequence (kept in the
// record as WordNum), so its postings encode in a byte or two each, like the contact postings
// (search_index.go, whose chunk functions this reuses). The slots map a num back to its
// conversation, so a search turns matching messages into conversations without reading them.
// A message's words, postings and slot are written in the transaction that stores it
// (putMessage) and deleted with it (deleteMessageRecord).

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

// indexMessage gives m a num and writes its postings and slot, when its text has words. It
// runs before m's record is written (the record keeps the num).
func indexMessage(tx *wtx, m *Message) error { return indexMessageWith(tx, m, nil) }

// indexMessageWith is indexMessage writing into buf, when not nil: the slot into its block in
// place, the postings at buf's flush.
func indexMessageWith(tx *wtx, m *Message, buf *msgIndexBuf) error {
	if m.WordNum != 0 {
		return nil // indexed already (a rewrite of a stored message)
	}
	words := MessageWords(m.Text)
	if len(words) == 0 {
		return nil
	}
	ws := idKey(m.WorkspaceID)
	slots, err := wsBucketW(tx.Tx, bMsgSlots, ws, fillAppend)
	if err != nil {
		return err
	}
	seq, err := slots.NextSequence()
	if err != nil {
		return err
	}
	if seq > 1<<32-1 {
		return nil // beyond what a num holds: the message is stored, not indexed
	}
	num := uint32(seq)
	if buf != nil {
		err = buf.putSlot(slots, num, idKey(m.ConversationID))
	} else {
		err = putMsgSlot(slots, num, idKey(m.ConversationID))
	}
	if err != nil {
		return err
	}
	m.WordNum = num
	tx.wordBuf().add(ws, words, num) // written just before the commit (flushWords)
	return nil
}

// msgIndexBuf holds the slot blocks of the messages stored in one transaction (a broadcast's
// fan-out chunk: thousands of copies), so that each new slot is written into its block in place
// instead of copying the block per message; a num always maps to its conversation at once. (The
// copies' word postings go through the transaction's word buffer, message_words_buf.go.)
type msgIndexBuf struct {
	blocks map[uint32][]byte
}

func newMsgIndexBuf() *msgIndexBuf { return &msgIndexBuf{blocks: map[uint32][]byte{}} }

// putSlot is putMsgSlot writing into the block buf already holds for this transaction.
func (buf *msgIndexBuf) putSlot(b *bolt.Bucket, num uint32, conv []byte) error {
	blk := num / msgSlotBlock
	return putInBlock(b, buf.blocks, blk, binary.BigEndian.AppendUint32(nil, blk), 16*msgSlotBlock, 16*int(num%msgSlotBlock), conv)
}

// unindexMessage removes the postings and slot of the message stored at key (workspace|id).
func unindexMessage(tx *wtx, key []byte) error {
	v := tx.Bucket(bMessages).Get(key)
	if v == nil {
		return nil
	}
	var m struct {
		Text    string `json:"text"`
		WordNum uint32 `json:"wordNum"`
	}
	if err := jsonUnmarshal(v, &m); err != nil || m.WordNum == 0 {
		return err
	}
	ws := key[:16]
	if tx.words != nil {
		tx.words.remove(ws, MessageWords(m.Text), m.WordNum)
	}
	if terms := wsBucket(tx.Tx, bMsgWords, ws); terms != nil {
		for _, w := range MessageWords(m.Text) {
			if _, err := removePosting(terms, w, m.WordNum); err != nil {
				return err
			}
		}
	}
	if slots := wsBucket(tx.Tx, bMsgSlots, ws); slots != nil {
		return putMsgSlot(slots, m.WordNum, make([]byte, 16))
	}
	return nil
}

func putMsgSlot(b *bolt.Bucket, num uint32, conv []byte) error {
	k := binary.BigEndian.AppendUint32(nil, num/msgSlotBlock)
	old := b.Get(k)
	v := make([]byte, max(len(old), 16*int(num%msgSlotBlock+1)))
	copy(v, old)
	copy(v[16*int(num%msgSlotBlock):], conv)
	return b.Put(k, v)
}

// msgSlotReader maps nums (read in ascending order) to conversation ids, a block at a time.
type msgSlotReader struct {
	c     *bolt.Cursor
	block uint32
	v     []byte
	valid bool
}

func (r *msgSlotReader) conv(num uint32) ([16]byte, bool) {
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

// messageMatches returns the conversations having a message in which every query word (as
// MessageWords makes them) is a prefix of a word, as a set of conversation ids, and how many
// postings entries it decoded; nil when there are no words.
func messageMatches(tx *bolt.Tx, ws []byte, words []string) (map[[16]byte]struct{}, int, error) {
	if len(words) == 0 {
		return nil, 0, nil
	}
	out := map[[16]byte]struct{}{}
	slots := wsBucket(tx, bMsgSlots, ws)
	cands, decoded, err := messageNums(tx, ws, words)
	if cands == nil || err != nil {
		return out, decoded, err
	}
	defer putNumSet(cands)
	r := &msgSlotReader{c: slots.Cursor()}
	var last [16]byte
	for i, word := range cands {
		for word != 0 {
			b := uint32(bits.TrailingZeros64(word))
			word &= word - 1
			// Neighbouring nums are often one conversation's messages: skip the map then.
			if id, ok := r.conv(uint32(i)*64 + b); ok && id != last {
				out[id], last = struct{}{}, id
			}
		}
	}
	return out, decoded, nil
}

// messageNums returns the nums of the messages in which every one of words (at least one) is
// a prefix of a word, from the postings, and how many entries it decoded; nil when the
// workspace has no index. The caller puts the set back (putNumSet).
func messageNums(tx *bolt.Tx, ws []byte, words []string) (numSet, int, error) {
	terms, slots := wsBucket(tx, bMsgWords, ws), wsBucket(tx, bMsgSlots, ws)
	if terms == nil || slots == nil {
		return nil, 0, nil
	}
	seq := slots.Sequence()
	if seq > 1<<32-1 {
		seq = 1<<32 - 1
	}
	maxNum := uint32(seq)
	var cands numSet
	decoded := 0
	for _, w := range words {
		set := getNumSet(maxNum)
		n, err := addPostingsN(terms, set, w, false)
		decoded += n
		if err != nil {
			putNumSet(set)
			if cands != nil {
				putNumSet(cands)
			}
			return nil, decoded, err
		}
		if cands == nil {
			cands = set
		} else {
			cands.and(set)
			putNumSet(set)
		}
	}
	return cands, decoded, nil
}

// indexMessageWordBatches is the migration step that indexes the words of messages stored
// before the index existed, migrateBatch messages per transaction. It is resumable: a message
// indexed already (WordNum set) is skipped, so a crash between two batches loses nothing.
func indexMessageWordBatches(s *Store) error {
	var from []byte
	for {
		var next []byte
		err := s.updateNow(func(tx *wtx) error {
			next = nil
			msgs := tx.Bucket(bMessages)
			type pending struct {
				key []byte
				m   Message
			}
			var todo []pending
			c := msgs.Cursor()
			k, v := c.First()
			if from != nil {
				k, v = c.Seek(from)
			}
			for n := 0; k != nil; k, v = c.Next() {
				if n == wordMigrateBatch {
					next = bytes.Clone(k)
					break
				}
				n++
				var m Message
				if err := jsonUnmarshal(v, &m); err != nil {
					return err
				}
				if m.WordNum == 0 && m.Text != "" {
					todo = append(todo, pending{bytes.Clone(k), m})
				}
			}
			for _, p := range todo {
				if err := indexMessage(tx, &p.m); err != nil {
					return err
				}
				if p.m.WordNum != 0 {
					if err := putJSON(msgs, p.key, p.m); err != nil {
						return err
					}
				}
			}
			return nil
		})
		if err != nil || next == nil {
			return err
		}
		from = next
	}
}

// wordMigrateBatch is how many messages one transaction of the word-index migration reads.
var wordMigrateBatch = 5000
