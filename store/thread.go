package store

import (
	"bytes"
	"slices"

	"github.com/oklog/ulid/v2"
	"switchboard/store/kv"
)

// A thread is read as a window: the thread index (bConvMessages) holds a conversation's
// messages under its id, its comments under "c" + id and its activity entries under "a" + id,
// each keyed by the item's ULID, so three cursors merged by id (threadWalk) walk the thread newest
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
	err := s.view(func(tx *kv.Tx) error {
		if _, ok := ParseID(workspaceID); !ok {
			return nil
		}
		var before []byte
		if id, ok := ParseID(q.Before); ok {
			before = id[:]
		}
		walk := newThreadWalk(tx.Bucket(bConvMessages), workspaceID, conversationID, false, before)
		type ref struct {
			kind byte
			id   []byte
		}
		var refs []ref
		for {
			kind, id := walk.peek()
			if id == nil {
				break
			}
			if stop != nil && bytes.Compare(id, stop) < 0 {
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
			refs = append(refs, ref{kind, slices.Clone(id)})
			walk.advance()
		}
		for i := len(refs) - 1; i >= 0; i-- {
			it, ok, err := loadThreadItem(tx, workspaceID, refs[i].kind, refs[i].id)
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
