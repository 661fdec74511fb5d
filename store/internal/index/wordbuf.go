package index

import (
	"slices"

	"switchboard/store/kv"
)

// A group commit's transaction holds the sends of many writers, and their texts share words
// ("your", "order", "to", …): written message by message, each word's last postings chunk is
// sought and rewritten once per message. The transaction's message-word buffer collects the
// postings instead and writes them term by term just before the commit, one seek and one Put
// per word and transaction (AppendPostings, as an import does for contacts). Nums ascend within
// a workspace (the slots bucket's sequence), so each word's are appended after its chunks.
//
// Every write transaction of the store has its buffer, so a broadcast's fan-out chunk,
// thousands of copies of one text, writes each word once too. Nothing reads message postings
// inside a write transaction, except UnindexMessage, which also takes a num out of the buffer.

// WordBuf is one transaction's buffered message postings: workspace → word → nums.
type WordBuf map[string]map[string][]uint32

// add buffers num under each of words in workspace ws.
func (b WordBuf) add(ws []byte, words []string, num uint32) {
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
func (b WordBuf) remove(ws []byte, words []string, num uint32) {
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

// FlushWords writes the postings buf holds, words in key order (neighbouring words share
// pages). It runs inside tx, before the commit.
func (e *Engine) FlushWords(tx *kv.Tx, buf WordBuf) error {
	for ws, terms := range buf {
		b, err := WsBucketW(tx, e.l.Words, []byte(ws), FillPostings)
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
			if err := AppendPostings(b, w, terms[w]); err != nil {
				return err
			}
		}
	}
	return nil
}
