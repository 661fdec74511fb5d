package store

import (
	"slices"
)

// A group commit's transaction holds the sends of many writers, and their texts share words
// ("your", "order", "to", …): written message by message, each word's last postings chunk is
// sought and rewritten once per message. The transaction's message-word buffer collects the
// postings instead and writes them term by term just before the commit, one seek and one Put
// per word and transaction (appendPostings, as an import does for contacts). Nums ascend within
// a workspace (the slots bucket's sequence), so each word's are appended after its chunks.
//
// Every write transaction has its buffer (wtx.words), so a broadcast's fan-out chunk, thousands
// of copies of one text, writes each word once too. Nothing reads message postings inside a
// write transaction, except unindexMessage, which also takes a num out of the buffer.

// msgWordBuf is one transaction's buffered message postings: workspace → word → nums.
type msgWordBuf map[string]map[string][]uint32

// wordBuf returns tx's buffer, made on first use.
func (tx *wtx) wordBuf() msgWordBuf {
	if tx.words == nil {
		tx.words = msgWordBuf{}
	}
	return tx.words
}

// add buffers num under each of words in workspace ws.
func (b msgWordBuf) add(ws []byte, words []string, num uint32) {
	terms := b[string(ws)]
	if terms == nil {
		terms = map[string][]uint32{}
		b[string(ws)] = terms
	}
	for _, w := range words {
		terms[w] = append(terms[w], num)
	}
}

// remove takes num out of the buffered postings of words in ws (a message deleted in the
// transaction that stored it).
func (b msgWordBuf) remove(ws []byte, words []string, num uint32) {
	terms := b[string(ws)]
	if terms == nil {
		return // nothing of ws buffered
	}
	for _, w := range words {
		if terms[w] == nil {
			continue
		}
		terms[w] = slices.DeleteFunc(terms[w], func(n uint32) bool { return n == num })
	}
}

// flushWords writes tx's buffered postings, words in key order (neighbouring words share
// pages), and forgets the buffer. It runs inside tx, before the commit.
func (tx *wtx) flushWords() error {
	buf := tx.words
	tx.words = nil
	for ws, terms := range buf {
		b, err := wsBucketW(tx.Tx, bMsgWords, []byte(ws), fillPostings)
		if err != nil {
			return err
		}
		words := make([]string, 0, len(terms))
		for w, nums := range terms {
			if len(nums) > 0 {
				words = append(words, w)
			}
		}
		slices.Sort(words)
		for _, w := range words {
			if err := appendPostings(b, w, terms[w]); err != nil {
				return err
			}
		}
	}
	return nil
}
