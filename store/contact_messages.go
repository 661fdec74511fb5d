package store

import (
	"bytes"
	"container/heap"

	"github.com/oklog/ulid/v2"
	"switchboard/store/kv"
)

// ContactMessages returns a page of the messages of every conversation phone is in — its 1:1
// conversations and, whole, the group conversations it is a member of — newest first: at most
// limit, older than the message before (an id, "" for the newest), and the id to pass for the
// next page ("" on the last).
//
// The page is a merge of one newest-first scan per conversation: each scan stops at the page's
// end, so a page reads at most limit+1 message keys plus one per conversation, however long the
// threads are, and decodes only the messages it returns.
func (s *Store) ContactMessages(workspaceID, phone, before string, limit int) ([]Message, string, error) {
	return s.ContactMessagesFor(workspaceID, phone, before, limit, "")
}

// ContactMessagesFor is ContactMessages without the conversations of numbers viewer may not see.
func (s *Store) ContactMessagesFor(workspaceID, phone, before string, limit int, viewer string) ([]Message, string, error) {
	out := []Message{}
	next := ""
	if limit < 1 {
		return out, next, nil
	}
	err := s.view(func(tx *kv.Tx) error {
		if _, ok := ParseID(workspaceID); !ok {
			return nil
		}
		var bound []byte
		if before != "" {
			u, err := ulid.ParseStrict(before)
			if err != nil {
				return nil // a cursor that is no message id: nothing before it
			}
			bound = u[:]
		}
		idx := tx.Bucket(bConvMessages)
		hidden, err := s.hiddenFrom(tx, workspaceID, viewer)
		if err != nil {
			return err
		}
		var h threadHeads
		for _, convID := range phoneConversationIDs(tx, workspaceID, phone) {
			if hidden != nil {
				var c Conversation
				if ok, err := getJSON(tx.Bucket(bConversations), wsKey(workspaceID, convID), &c); err != nil || !ok || hidden[c.OutboundChannelID] {
					if err != nil {
						return err
					}
					continue
				}
			}
			t := &threadScan{c: idx.Cursor(), p: idxPrefix(workspaceID, convID)}
			if t.start(bound) {
				h = append(h, t)
			}
		}
		heap.Init(&h)
		var ids [][]byte
		for h.Len() > 0 && len(ids) <= limit {
			t := h[0]
			ids = append(ids, t.id)
			if t.step() {
				heap.Fix(&h, 0)
			} else {
				heap.Pop(&h)
			}
		}
		if len(ids) > limit {
			ids = ids[:limit]
			next = ulid.ULID(ids[limit-1]).String()
		}
		msgs := tx.Bucket(bMessages)
		for _, id := range ids {
			var m Message
			ok, err := getJSON(msgs, append(idKey(workspaceID), id...), &m)
			if err != nil {
				return err
			}
			if ok {
				out = append(out, m)
			}
		}
		return nil
	})
	return out, next, err
}

// threadScan walks one conversation's message keys (workspace | 0 | conversation | 0 | message
// id) newest first; id is the message id it stands on, copied out of the transaction's memory.
type threadScan struct {
	c  *kv.Cursor
	p  []byte
	id []byte
}

// start stands on the newest message older than bound (nil: the newest of all); false when
// there is none.
func (t *threadScan) start(bound []byte) bool {
	var k []byte
	if bound != nil {
		k, _ = t.c.Seek(append(bytes.Clone(t.p), bound...))
	} else {
		k, _ = t.c.Seek(nextPrefix(t.p))
	}
	// The first key at or after the seek is not before the bound: the one before it may be.
	if k == nil {
		k, _ = t.c.Last()
	} else {
		k, _ = t.c.Prev()
	}
	return t.settle(k)
}

// step moves to the next older message; false when the thread has no more.
func (t *threadScan) step() bool {
	k, _ := t.c.Prev()
	return t.settle(k)
}

// settle stands on k or the first message key older than it within the thread; other keys of
// the thread's prefix (none today) are passed over.
func (t *threadScan) settle(k []byte) bool {
	for ; k != nil && bytes.HasPrefix(k, t.p); k, _ = t.c.Prev() {
		if len(k) == len(t.p)+16 {
			t.id = bytes.Clone(k[len(t.p):])
			return true
		}
	}
	return false
}

// threadHeads is a max-heap of thread scans by the id they stand on: ids are ULIDs, whose byte
// order is their time order, so the top is the newest message not yet taken.
type threadHeads []*threadScan

func (h threadHeads) Len() int           { return len(h) }
func (h threadHeads) Less(i, j int) bool { return bytes.Compare(h[i].id, h[j].id) > 0 }
func (h threadHeads) Swap(i, j int)      { h[i], h[j] = h[j], h[i] }
func (h *threadHeads) Push(x any)        { *h = append(*h, x.(*threadScan)) }
func (h *threadHeads) Pop() any {
	old := *h
	t := old[len(old)-1]
	*h = old[:len(old)-1]
	return t
}
