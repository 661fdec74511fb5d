package store

import (
	"bytes"
	"slices"

	"github.com/oklog/ulid/v2"
	"switchboard/store/kv"
)

// threadWalk merges the three parts of a thread index (messages under the conversation's id,
// comments under "c" + id, activity entries under "a" + id), one cursor each, by item id: ULIDs,
// so the merge is the thread in time order. Forward walks oldest first from just after an id;
// backward walks newest first from just before one. Both a window of the thread (Thread) and
// what an open thread has not shown yet (ThreadAfter) read through it, so each reads only the
// items it returns.
type threadWalk struct {
	heads   []*threadCursor
	forward bool
}

// newThreadWalk starts a walk of a conversation's thread at from (an item id, exclusive; nil:
// from the start when forward, from the newest item when backward).
func newThreadWalk(idx *kv.Bucket, workspaceID, conversationID string, forward bool, from []byte) *threadWalk {
	w := &threadWalk{forward: forward}
	for _, part := range []struct {
		term string
		kind byte
	}{{conversationID, 'm'}, {"c" + conversationID, 'c'}, {entryTerm(conversationID), 'a'}} {
		w.heads = append(w.heads, newThreadCursor(idx, idxPrefix(workspaceID, part.term), part.kind, forward, from))
	}
	return w
}

// peek returns the next item's kind and id without moving past it; a nil id at the end.
func (w *threadWalk) peek() (byte, []byte) {
	if h := w.head(); h != nil {
		return h.kind, h.id
	}
	return 0, nil
}

// advance moves past the item peek returned.
func (w *threadWalk) advance() {
	if h := w.head(); h != nil {
		h.step()
	}
}

// head is the cursor whose item comes next: the lowest id forward, the highest backward.
func (w *threadWalk) head() *threadCursor {
	var best *threadCursor
	for _, h := range w.heads {
		if h.id == nil {
			continue
		}
		if best == nil {
			best = h
			continue
		}
		if c := bytes.Compare(h.id, best.id); (w.forward && c < 0) || (!w.forward && c > 0) {
			best = h
		}
	}
	return best
}

// threadCursor walks one part of a thread index; id is its current item's id (nil at the end).
// Keys of the part are its prefix and a 16-byte ULID; a longer or shorter key under the same
// prefix belongs to another term and is skipped.
type threadCursor struct {
	c       *kv.Cursor
	p       []byte
	kind    byte
	forward bool
	from    []byte
	id      []byte
}

func newThreadCursor(b *kv.Bucket, p []byte, kind byte, forward bool, from []byte) *threadCursor {
	t := &threadCursor{c: b.Cursor(), p: p, kind: kind, forward: forward, from: from}
	if forward {
		k, _ := t.c.Seek(append(slices.Clone(p), from...))
		t.set(k)
		return t
	}
	start := nextPrefix(p)
	if from != nil {
		start = append(slices.Clone(p), from...)
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

func (t *threadCursor) step() {
	var k []byte
	if t.forward {
		k, _ = t.c.Next()
	} else {
		k, _ = t.c.Prev()
	}
	t.set(k)
}

// set moves from k to the first key of the part in the walk's direction that is an item (and,
// forward, after from), or to the end.
func (t *threadCursor) set(k []byte) {
	for k != nil && bytes.HasPrefix(k, t.p) && (len(k) != len(t.p)+16 || t.forward && bytes.Compare(k[len(t.p):], t.from) <= 0) {
		if t.forward {
			k, _ = t.c.Next()
		} else {
			k, _ = t.c.Prev()
		}
	}
	if k == nil || !bytes.HasPrefix(k, t.p) {
		t.id = nil
		return
	}
	t.id = k[len(t.p):]
}

// loadThreadItem reads the item of the given kind and id; false when the index names an item
// that is gone.
func loadThreadItem(tx *kv.Tx, workspaceID string, kind byte, rawID []byte) (ThreadItem, bool, error) {
	id := ulid.ULID(rawID).String()
	key := wsKey(workspaceID, id)
	it := ThreadItem{ID: id}
	var ok bool
	var err error
	switch kind {
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
	return it, ok, err
}
