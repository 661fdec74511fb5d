package index

import (
	"container/list"
	"sync"

	"switchboard/store/kv"
)

// The contacts list's set filters (a group, opted out, has a conversation) are bitsets of nums
// built from an index, one lookup per member: at a million contacts a 100,000-member set costs
// more than a page may. So each built set is kept in memory and used again by later reads, and
// a write that changes it patches it (SetWriter) rather than dropping it.
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

// SetKind is what a kept set holds: a group's members (settled by contact), or the contacts
// whose phone is opted out or has a conversation (settled by phone).
type SetKind byte

// The kinds of kept sets.
const (
	SetGroup SetKind = iota + 1
	SetOptedOut
	SetConversation
)

// SetKey names a kept set.
type SetKey struct {
	WS    string // the workspace's 16 id bytes, as a string
	Kind  SetKind
	Group string // the group's id, for SetGroup
}

// Members is what settling a kept set asks of the store's records and indexes, each as write
// transaction tx leaves them: the num of a stored contact, whether a contact is in a group,
// whether a phone is in a set of phones (opted out, with a conversation).
type Members struct {
	Num      func(tx *kv.Tx, ws []byte, id [16]byte) (uint32, bool)
	InGroup  func(tx *kv.Tx, ws []byte, group string, id [16]byte) bool
	HasPhone func(tx *kv.Tx, ws []byte, kind SetKind, phone string) bool
}

type setEntry struct {
	key   SetKey
	set   Set
	built int // the id of the snapshot it was built from (or patched to)
	size  int // bytes
}

// entrySize is the memory an entry holds: its bitset.
func entrySize(s Set) int { return cap(s) * 8 }

type setCache struct {
	mu      sync.Mutex
	changed map[SetKey]int // set -> id of the last write transaction that changed what it is built from
	entries map[SetKey]*list.Element
	lru     list.List // of *setEntry, most recently used first
	bytes   int
	cur     *txPatch // the changes of the latest write transaction (SetWriter)
	// epoch is the file the sets were built from (kv.Tx.Epoch); floor the id of the first
	// snapshot a set must be built from to be used (ForgetSets).
	epoch uint64
	floor int
}

// newSetCache returns an empty cache; an engine keeps one for its database.
func newSetCache() *setCache {
	return &setCache{changed: map[SetKey]int{}, entries: map[SetKey]*list.Element{}}
}

// get returns the kept set of k when it is exact for the read transaction tx.
func (c *setCache) get(tx *kv.Tx, k SetKey) (Set, bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	el, ok := c.entries[k]
	if !ok {
		return nil, false
	}
	e := el.Value.(*setEntry)
	if tx.Epoch() != c.epoch || e.built < c.floor || e.built > tx.ID() || c.changed[k] > e.built {
		return nil, false
	}
	c.lru.MoveToFront(el)
	return e.set, true
}

// put keeps s, built from the read transaction tx, unless a write has changed its workspace
// since that snapshot or a set of a later snapshot is already kept. It reports whether s is
// kept (then it is shared and must not be recycled).
func (c *setCache) put(tx *kv.Tx, k SetKey, s Set) bool {
	size := entrySize(s)
	if size > setCacheBytes/4 {
		return false
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	built := tx.ID()
	if tx.Epoch() != c.epoch || built < c.floor || c.changed[k] > built {
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

// KeptSet is the kept set of k when it is exact for the read transaction tx: the set a list
// read in tx would use instead of building it.
func (e *Engine) KeptSet(tx *kv.Tx, k SetKey) (Set, bool) { return e.sets.get(tx, k) }

// KeepSet keeps s, the set of k built from the read transaction tx, as a list read does, unless
// a write has changed it since that snapshot or a set of a later snapshot is kept; it reports
// whether s is kept (then it is shared and must not be recycled).
func (e *Engine) KeepSet(tx *kv.Tx, k SetKey, s Set) bool { return e.sets.put(tx, k, s) }

// ForgetSets makes every set and rank table kept so far unusable from the snapshot id of file
// epoch on: a write the sets' writer did not see (applied from another node's write set)
// committed there. A new epoch (another file) forgets everything the caches hold.
func (e *Engine) ForgetSets(epoch uint64, id int) {
	e.ranks.forget(epoch, id)
	c := e.sets
	c.mu.Lock()
	defer c.mu.Unlock()
	if epoch != c.epoch {
		c.changed = map[SetKey]int{}
		c.entries = map[SetKey]*list.Element{}
		c.lru.Init()
		c.bytes = 0
		c.cur = nil
		c.epoch, c.floor = epoch, id
		return
	}
	c.floor = max(c.floor, id)
}
