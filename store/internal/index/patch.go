package index

import (
	"switchboard/store/kv"
)

// Patching the kept sets with a write's changes instead of dropping them, so that the first page
// after a write costs what any page costs.
//
// A write transaction says which members it may change (touch): a group's contact, a num that
// gained or lost a phone, a phone whose opt-out or conversations changed. Before it commits,
// settle reads each touched member's membership as the transaction leaves it, from the same
// indexes a build reads. Once it has committed (bbolt's commit handler, which a rolled-back
// transaction never runs), apply copies the kept set, sets the settled bits and keeps the copy
// as built from the transaction's own snapshot. The rules that keep this exact:
//   - A copy, never the set in place: a reader that already holds the set keeps the snapshot it
//     was given.
//   - A set is patched only when it is exact for the snapshot the write started from: built from
//     a snapshot at or after the last write that touched it before (prev) and before this one.
//     Commit handlers run after bbolt releases its write lock, so two writes' handlers may run
//     out of order; the later one then finds a set it cannot patch, and the set is rebuilt.
//   - The touch still records the write's id before the commit (in c.changed), so a reader that
//     begins between the commit and its handler does not use the unpatched set.
//   - A rolled-back write's recorded ids are taken back (SetWriter.RolledBack, or the next write that
//     is given the same id): it changed nothing.
//   - What a write cannot settle (more members than patchTouchLimit, a deleted group, a
//     transaction written without settle) leaves the set to be rebuilt, as before.

// patchTouchLimit is the most members one write patches in one set; a write touching more
// costs more than the rebuild it saves, so its sets are rebuilt instead.
const patchTouchLimit = 1 << 16

// The settled state of a member.
const (
	memberOut byte = iota + 1
	memberIn
)

// SetWriter is one write transaction's side of the kept sets: the store's write transaction
// holds one, tells it which members the write may change, settles it before the commit
// (Settle) and tells it of a rollback (RolledBack).
type SetWriter struct {
	e *Engine
	p *txPatch // the transaction's changes, from its first touch
}

// SetWriter returns the kept sets' side of a new write transaction.
func (e *Engine) SetWriter() SetWriter { return SetWriter{e: e} }

// txPatch is what one write transaction changes in the kept sets.
type txPatch struct {
	tx   *kv.Tx
	id   int
	prev map[SetKey]int // the last write's id that touched the set before this one
	sets map[SetKey]*setPatch
}

type setPatch struct {
	noop    bool // nothing to patch: the set is not kept, or it must be rebuilt
	settled bool
	nums    map[uint32]struct{} // touched nums
	ids     map[[16]byte]struct{}
	phones  map[string]struct{}
	convs   map[string]bool // conversation addresses created (true) or erased (false)
	ops     map[uint32]byte
}

func (sp *setPatch) touched() int { return len(sp.nums) + len(sp.ids) + len(sp.phones) }

// touch records that tx may change the set of k, and returns its patch, or nil when there is
// nothing to record (the set is not kept or cannot be patched; the id is recorded anyway).
func (w *SetWriter) touch(tx *kv.Tx, k SetKey) *setPatch {
	c := w.e.sets
	c.mu.Lock()
	defer c.mu.Unlock()
	p := c.cur
	id := tx.ID()
	if p == nil || p.tx != tx {
		if p != nil && p.id == id {
			// p's transaction was rolled back (only then is its id given again): it changed
			// nothing, so the sets it touched are as exact as before it.
			for k, prev := range p.prev {
				if c.changed[k] == id {
					c.changed[k] = prev
				}
			}
		}
		p = &txPatch{tx: tx, id: id, prev: map[SetKey]int{}, sets: map[SetKey]*setPatch{}}
		c.cur = p
		w.p = p
		tx.OnCommit(func() { c.apply(p) })
	}
	sp := p.sets[k]
	if sp == nil {
		prev := c.changed[k]
		p.prev[k] = prev
		if id > prev {
			c.changed[k] = id
		}
		sp = &setPatch{nums: map[uint32]struct{}{}, ids: map[[16]byte]struct{}{},
			phones: map[string]struct{}{}, convs: map[string]bool{}, ops: map[uint32]byte{}}
		// A set no read has kept, or one older than the last write to it, is built afresh by
		// the next read: no member of it needs settling.
		el, ok := c.entries[k]
		sp.noop = !ok || el.Value.(*setEntry).built < prev
		p.sets[k] = sp
	}
	if sp.noop {
		return nil
	}
	if sp.touched()+len(sp.ops) >= patchTouchLimit {
		sp.noop = true
		return nil
	}
	sp.settled = false
	return sp
}

// GroupMemberChanged: tx adds contact id to group of workspace ws or takes it out.
func (w *SetWriter) GroupMemberChanged(tx *kv.Tx, ws []byte, group string, id [16]byte) {
	sp := w.touch(tx, SetKey{string(ws), SetGroup, group})
	if sp == nil {
		return
	}
	// The num now if the contact is stored (a deleted contact's is gone by the settle), else
	// at the settle (a contact created later in the transaction).
	if n, ok := w.e.m.Num(tx, ws, id); ok {
		sp.nums[n] = struct{}{}
		return
	}
	sp.ids[id] = struct{}{}
}

// GroupDropped: group of workspace ws is deleted.
func (w *SetWriter) GroupDropped(tx *kv.Tx, ws []byte, group string) {
	if sp := w.touch(tx, SetKey{string(ws), SetGroup, group}); sp != nil {
		sp.noop = true
	}
}

// OptOutChanged: an opt-out of phone is recorded or lifted in workspace ws.
func (w *SetWriter) OptOutChanged(tx *kv.Tx, ws []byte, phone string) {
	if sp := w.touch(tx, SetKey{string(ws), SetOptedOut, ""}); sp != nil {
		sp.phones[phone] = struct{}{}
	}
}

// ConvChanged: a conversation of workspace ws with addrs is created or erased.
func (w *SetWriter) ConvChanged(tx *kv.Tx, ws []byte, addrs []string, created bool) {
	if sp := w.touch(tx, SetKey{string(ws), SetConversation, ""}); sp != nil {
		for _, a := range addrs {
			sp.phones[a] = struct{}{}
			sp.convs[a] = created
		}
	}
}

// phoneOwnerChanged: phone of workspace ws is given to or taken from num; the opt-out and
// conversation sets map phones to nums.
func (w *SetWriter) phoneOwnerChanged(tx *kv.Tx, ws []byte, phone string, num uint32) {
	for _, kind := range []SetKind{SetOptedOut, SetConversation} {
		if sp := w.touch(tx, SetKey{string(ws), kind, ""}); sp != nil {
			sp.phones[phone] = struct{}{}
			sp.nums[num] = struct{}{}
		}
	}
}

// Settle reads, before tx commits, the membership of every member tx touched. The store calls
// it at the end of each write function (a batch runs several in one transaction: each settles
// what it touched).
func (w *SetWriter) Settle(tx *kv.Tx) {
	p := w.p
	if p == nil || p.tx != tx {
		return
	}
	// Only this transaction's goroutine changes p until it commits.
	for k, sp := range p.sets {
		if !sp.noop && !sp.settled {
			sp.settle(w.e, tx, k)
		}
	}
}

func (sp *setPatch) settle(e *Engine, tx *kv.Tx, k SetKey) {
	ws := []byte(k.WS)
	nums := WsBucket(tx, e.l.Nums, ws)
	if nums == nil {
		sp.noop = true
		return
	}
	slots := NewSlotReader(nums)
	if k.Kind == SetGroup {
		for id := range sp.ids {
			n, ok := e.m.Num(tx, ws, id)
			if !ok {
				// Not stored when touched nor now: it was never a member.
				continue
			}
			sp.nums[n] = struct{}{}
		}
		clear(sp.ids)
		for n := range sp.nums {
			id, _, ok := slots.Slot(n)
			if ok && e.m.InGroup(tx, ws, k.Group, id) {
				sp.ops[n] = memberIn
			} else {
				sp.ops[n] = memberOut
			}
		}
		clear(sp.nums)
		sp.settled = true
		return
	}
	// A num has at most one phone (its contact's; the first contact indexed under a phone keeps
	// it): a touched num is out unless a touched phone it holds puts it in.
	for n := range sp.nums {
		sp.ops[n] = memberOut
	}
	clear(sp.nums)
	phones := ReadSplit(tx, e.l.Phone, ws)
	for ph := range sp.phones {
		v := phones.Get([]byte(ph))
		if len(v) != 4 {
			continue
		}
		// A conversation created in this transaction is in the set whatever the index says.
		sp.ops[u32(v)] = memberOf(e.m.HasPhone(tx, ws, k.Kind, ph) || sp.convs[ph])
	}
	clear(sp.phones)
	sp.settled = true
}

func memberOf(in bool) byte {
	if in {
		return memberIn
	}
	return memberOut
}

// apply patches the kept sets with committed transaction p's settled changes.
func (c *setCache) apply(p *txPatch) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.cur == p {
		c.cur = nil // committed: nothing to take back, and its memory is free
	}
	for k, sp := range p.sets {
		el, ok := c.entries[k]
		if !ok {
			continue
		}
		e := el.Value.(*setEntry)
		if e.built >= p.id {
			continue // built from this write's snapshot or a later one
		}
		if sp.noop || !sp.settled || e.built < p.prev[k] {
			c.remove(el) // the next read rebuilds it
			continue
		}
		words := len(e.set)
		for n := range sp.ops {
			words = max(words, int(n/64)+1)
		}
		s := make(Set, words)
		copy(s, e.set)
		for n, op := range sp.ops {
			if op == memberIn {
				s.Add(n)
			} else if int(n/64) < len(s) {
				s[n/64] &^= 1 << (n % 64)
			}
		}
		size := entrySize(s)
		c.bytes += size - e.size
		el.Value = &setEntry{key: k, set: s, built: p.id, size: size}
	}
	for c.bytes > setCacheBytes {
		c.remove(c.lru.Back())
	}
}

// Committed: the writer's transaction was rolled back, but its changes were committed by
// another transaction of the same id (a replicated write runs, records its write set and rolls
// back; the write set is applied next, in a transaction that gets the id the first had). The
// sets it touched are patched as the first transaction's commit would have patched them.
func (w *SetWriter) Committed() {
	if w.p != nil {
		w.e.sets.apply(w.p)
	}
}

// RolledBack: tx, the writer's transaction, was rolled back. Unless a later write has touched
// the sets since, the ids it recorded are taken back, so that the sets it touched serve the next
// read as they did before it (it changed nothing).
func (w *SetWriter) RolledBack() {
	if w.p == nil {
		return
	}
	c := w.e.sets
	c.mu.Lock()
	defer c.mu.Unlock()
	p := c.cur
	if p != w.p {
		return
	}
	for k, prev := range p.prev {
		if c.changed[k] == p.id {
			c.changed[k] = prev
		}
	}
	c.cur = nil
}
