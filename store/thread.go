package store

import (
	"bytes"
	"slices"

	"github.com/oklog/ulid/v2"
	bolt "go.etcd.io/bbolt"
)

// A thread is read as a window: the thread index (bConvMessages) holds a conversation's
// messages under its id, its comments under "c" + id and its activity entries under "a" + id,
// each keyed by the item's ULID, so three reverse cursors merged by id walk the thread newest
// first and read only the items shown, however long the thread.

// Thread window sizes: a page shows ThreadPage items; no response carries more than ThreadMax.
const (
	ThreadPage = 50
	ThreadMax  = 100
)

// ThreadItem is one item of a thread: exactly one of Message, Comment and Entry is set.
type ThreadItem struct {
	ID      string
	Message *Message
	Comment *Comment
	Entry   *ConversationEntry
}

// ThreadQuery chooses a window of a thread.
type ThreadQuery struct {
	// Before, an item id (a window's Earlier), gives the items older than it.
	Before string
	// From, an item id, gives the items from it to the newest (at most ThreadMax: a longer run
	// gives the newest window instead, with Earlier set).
	From string
	// Limit is the window's size (default ThreadPage, at most ThreadMax); From ignores it.
	Limit int
}

// ThreadWindow is a window of a thread, oldest first.
type ThreadWindow struct {
	Items []ThreadItem
	// Earlier is the cursor of the items before the window ("" when it starts the thread).
	Earlier string
}

// Thread reads a window of a conversation's messages, comments and activity entries.
func (s *Store) Thread(workspaceID, conversationID string, q ThreadQuery) (ThreadWindow, error) {
	var w ThreadWindow
	limit := q.Limit
	if limit <= 0 {
		limit = ThreadPage
	}
	limit = min(limit, ThreadMax)
	var stop []byte // From: walk down to this id
	if q.From != "" {
		if id, ok := ParseID(q.From); ok {
			stop, limit = id[:], ThreadMax
		}
	}
	err := s.db.View(func(tx *bolt.Tx) error {
		if _, ok := ParseID(workspaceID); !ok {
			return nil
		}
		idx := tx.Bucket(bConvMessages)
		heads := []*threadCursor{
			newThreadCursor(idx, idxPrefix(workspaceID, conversationID), 'm', q.Before),
			newThreadCursor(idx, idxPrefix(workspaceID, "c"+conversationID), 'c', q.Before),
			newThreadCursor(idx, idxPrefix(workspaceID, entryTerm(conversationID)), 'a', q.Before),
		}
		type ref struct {
			kind byte
			id   []byte
		}
		var refs []ref
		for {
			var best *threadCursor
			for _, h := range heads {
				if h.id != nil && (best == nil || bytes.Compare(h.id, best.id) > 0) {
					best = h
				}
			}
			if best == nil {
				break
			}
			if stop != nil && bytes.Compare(best.id, stop) < 0 {
				break
			}
			if len(refs) == limit {
				if stop != nil {
					// More than a response may carry since From: the newest window instead.
					refs, stop, limit = refs[:ThreadPage], nil, ThreadPage
				}
				w.Earlier = ulid.ULID(refs[len(refs)-1].id).String()
				break
			}
			refs = append(refs, ref{best.kind, slices.Clone(best.id)})
			best.prev()
		}
		for i := len(refs) - 1; i >= 0; i-- {
			r := refs[i]
			id := ulid.ULID(r.id).String()
			it := ThreadItem{ID: id}
			key := wsKey(workspaceID, id)
			var ok bool
			var err error
			switch r.kind {
			case 'm':
				it.Message = &Message{}
				ok, err = getJSON(tx.Bucket(bMessages), key, it.Message)
			case 'c':
				it.Comment = &Comment{}
				ok, err = getJSON(tx.Bucket(bComments), key, it.Comment)
			default:
				it.Entry = &ConversationEntry{}
				ok, err = getJSON(tx.Bucket(bConvEntries), key, it.Entry)
			}
			if err != nil {
				return err
			}
			if ok {
				w.Items = append(w.Items, it)
			}
		}
		return nil
	})
	return w, err
}

// threadCursor walks one part of a thread index newest first; id is its current item's id
// (nil at the end).
type threadCursor struct {
	c    *bolt.Cursor
	p    []byte
	kind byte
	id   []byte
}

func newThreadCursor(b *bolt.Bucket, p []byte, kind byte, before string) *threadCursor {
	t := &threadCursor{c: b.Cursor(), p: p, kind: kind}
	start := nextPrefix(p)
	if id, ok := ParseID(before); ok {
		start = append(slices.Clone(p), id[:]...)
	}
	k, _ := t.c.Seek(start)
	if k == nil {
		k, _ = t.c.Last()
	} else {
		k, _ = t.c.Prev()
	}
	t.set(k)
	return t
}

func (t *threadCursor) prev() {
	k, _ := t.c.Prev()
	t.set(k)
}

func (t *threadCursor) set(k []byte) {
	for k != nil && bytes.HasPrefix(k, t.p) && len(k) != len(t.p)+16 {
		k, _ = t.c.Prev()
	}
	if k == nil || !bytes.HasPrefix(k, t.p) {
		t.id = nil
		return
	}
	t.id = k[len(t.p):]
}
