package store

import (
	"bytes"

	"switchboard/store/internal/index"
)

// The inbox search's message-word index (index.Engine.IndexMessage): a message with words gets
// a num, kept in its record as WordNum, and its postings and slot are written in the transaction
// that stores it (putMessage) and deleted with it (deleteMessageRecord).

// indexMessage gives m a num and writes its postings and slot, when its text has words. It
// runs before m's record is written (the record keeps the num).
func indexMessage(tx *wtx, m *Message) error { return indexMessageWith(tx, m, nil) }

// indexMessageWith is indexMessage writing the slot into blocks, when not nil, in place.
func indexMessageWith(tx *wtx, m *Message, blocks *index.MsgBlocks) error {
	if m.WordNum != 0 {
		return nil // indexed already (a rewrite of a stored message)
	}
	words := index.MessageWords(m.Text)
	if len(words) == 0 {
		return nil
	}
	num, err := tx.idx.IndexMessage(tx.Tx, idKey(m.WorkspaceID), idKey(m.ConversationID), words, blocks, tx.wordBuf())
	if err != nil {
		return err
	}
	m.WordNum = num
	return nil
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
	return tx.idx.UnindexMessage(tx.Tx, key[:16], index.MessageWords(m.Text), m.WordNum, tx.words)
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
