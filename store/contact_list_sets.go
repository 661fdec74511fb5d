package store

import (
	"container/list"
	"sync"

	bolt "go.etcd.io/bbolt"
)

// The contacts list's set filters (a group, opted out, has a conversation) are bitsets of nums
// built from an index, one lookup per member: at a million contacts a 100,000-member set costs
// more than a page may. So each built set is kept in memory and used again by later reads, and
// a write that changes it patches it (contact_list_patch.go) rather than dropping it.
//
// The rule that keeps a kept set exact: every write to what the sets are built from (group
// memberships, the opt-out phone index, the conversation address index, the contact phone
// index) touches the set inside its write transaction, before it commits, recording that
// transaction's id as the set's last change. A write transaction's id is the id of the snapshot
// it commits, and a read transaction sees every commit whose id is at most its own. A set built
// from (or patched to) snapshot b is therefore exact for a read of snapshot r ≥ b when no write
// recorded an id in (b, r]: that is, when the set's last recorded id is ≤ b. Recording before
// the commit (not after it) means a reader can never see a committed change that was not yet
// recorded; a write rolled back after recording takes its ids back (setsRolledBack), or, when
// that cannot be proven safe, only costs a rebuild.
//
// Memory is bounded: the kept sets are evicted least recently used beyond setCacheBytes (a set
// is one bit per num, 125 KB at a million contacts, so the budget holds ~130 such sets), and
// the recorded ids are one integer per set ever written to (a workspace's two, one per group).

// setCacheBytes is the most memory the kept sets of one store use.
const setCacheBytes = 16 << 20

type setKind byte

const (
	setGroup setKind = iota + 1
	setOptedOut
	setConversation
)

type setKey struct {
	ws    string // idKey of the workspace, as a string
	kind  setKind
	group string // for setGroup
}

type setEntry struct {
	key   setKey
	set   numSet
	built int // the id of the snapshot it was built from (or patched to)
	size  int // bytes
}

// entrySize is the memory an entry holds: its bitset.
func entrySize(s numSet) int { return cap(s) * 8 }

type setCache struct {
	mu      sync.Mutex
	changed map[setKey]int // set -> id of the last write transaction that changed what it is built from
	entries map[setKey]*list.Element
	lru     list.List // of *setEntry, most recently used first
	bytes   int
	cur     *txPatch // the changes of the latest write transaction (contact_list_patch.go)
}

// newSetCache returns an empty cache; a store keeps one for its database.
func newSetCache() *setCache {
	return &setCache{changed: map[setKey]int{}, entries: map[setKey]*list.Element{}}
}

// get returns the kept set of k when it is exact for the read transaction tx.
func (c *setCache) get(tx *bolt.Tx, k setKey) (numSet, bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	el, ok := c.entries[k]
	if !ok {
		return nil, false
	}
	e := el.Value.(*setEntry)
	if e.built > tx.ID() || c.changed[k] > e.built {
		return nil, false
	}
	c.lru.MoveToFront(el)
	return e.set, true
}

// put keeps s, built from the read transaction tx, unless a write has changed its workspace
// since that snapshot or a set of a later snapshot is already kept. It reports whether s is
// kept (then it is shared and must not be recycled).
func (c *setCache) put(tx *bolt.Tx, k setKey, s numSet) bool {
	size := entrySize(s)
	if size > setCacheBytes/4 {
		return false
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	built := tx.ID()
	if c.changed[k] > built {
		return false
	}
	if el, ok := c.entries[k]; ok {
		if el.Value.(*setEntry).built >= built {
			return false
		}
		c.remove(el)
	}
	c.entries[k] = c.lru.PushFront(&setEntry{key: k, set: s, built: built, size: size})
	c.bytes += size
	for c.bytes > setCacheBytes {
		c.remove(c.lru.Back())
	}
	return true
}

func (c *setCache) remove(el *list.Element) {
	e := c.lru.Remove(el).(*setEntry)
	delete(c.entries, e.key)
	c.bytes -= e.size
}
