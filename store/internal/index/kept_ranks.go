package index

import (
	"encoding/binary"
	"sync"
	"time"

	"switchboard/store/kv"
)

// Kept ranks: a copy in memory of a workspace's num slots' ranks, so that ordering a search's
// candidates reads an array instead of a num block per candidate. At a million contacts the
// blocks are 28 MB of the file; a search's candidates fall in blocks far apart, and each cold
// block costs its page's first touch and a seek from the bucket's root: 400–700 ns a candidate
// measured under the benchmark's load ('mar wil': 1,585 candidates, 0.67 ms of its 1.5). The
// array is RankLen bytes a num (12 MB at a million), read with no seek and no page touched; the
// ids beside them (16 bytes a num) spare the answer its slots.
//
// The rule that keeps it exact is the kept sets' (sets.go): every write of a slot records its
// write transaction's id against the slot's range of nums (1 << rankRangeShift) before it
// commits. A table built from snapshot b answers for a read of snapshot r ≥ b every num whose
// range no write has recorded an id above b for; the others, and nums beyond the table (made
// after b), are read from their blocks as before. The ids are recorded whether or not a table is
// kept, so that one built while a write is in flight still sees it; they are one integer per
// range, 8 bytes per 1,024 contacts.
//
// A table is built on its own goroutine, in its own read transaction, when a search ranks at
// least keepRanksFrom candidates of a workspace that has none that answers (or one whose stale
// ranges or new nums exceed an eighth of it); the search itself goes on reading blocks. Builds
// run one at a time, and a workspace's next build waits ten times as long as its last took, so
// that a stream of writes read from another node (which forgets the tables, ForgetSets) costs at
// most a tenth of a core. Tables no search has used for keptIdle are dropped, so that a server
// at rest holds none. Tables are evicted least recently used beyond keptRanksBytes, and a
// table that could take more than half of it (ranks, ids, places both ways and keptPrefixesMax
// sets twice: 52 bytes a num, over 1.29 million contacts) is not built.

// rankRangeShift: a write marks 1 << rankRangeShift nums (1,024) as changed.
const rankRangeShift = 10

// keepRanksFrom is the fewest candidates a search ranks before it wants its workspace's ranks
// kept: below it, reading the blocks costs less than ~0.1 ms.
const keepRanksFrom = 256

// keptIdle is how long a table no search uses is kept: a server at rest gives its memory back.
const keptIdle = 10 * time.Minute

// keptRanksBytes is the most memory the kept rank tables of one store use (a million contacts'
// ranks are 12 MB, their ids 16 MB, their places 8 MB, their common prefixes 7 MB by num and 7 MB
// by place).
const keptRanksBytes = 128 << 20

// rankTable is one workspace's ranks by num as of snapshot built (a zero rank: no contact), its
// common prefixes' sets (kept_prefixes.go), and its contacts in display order with the same
// sets by place in it (kept_order.go).
type rankTable struct {
	built    int
	ranks    [][RankLen]byte
	prefixes map[string]Set // term prefix ("t" and keptPrefixLen bytes) → the nums of its terms
	ids      [][16]byte     // by num (zero: no contact)
	order    []uint32       // place in display order → num
	place    []uint32       // num → place (noPlace: no contact)
	placed   map[string]Set // term prefix → the places of its terms' nums
	used     uint64         // the keeper's clock at its last use
	usedAt   time.Time      // when it was last used (now)
}

func (t *rankTable) size() int {
	n := len(t.ranks)*RankLen + len(t.ids)*16 + len(t.order)*4 + len(t.place)*4
	for _, s := range t.prefixes {
		n += entrySize(s)
	}
	for _, s := range t.placed {
		n += entrySize(s)
	}
	return n
}

// keptBytesPerNum is the most a table takes per num: its rank, its id, its place both ways and
// a bit in each kept prefix's two sets.
const keptBytesPerNum = RankLen + 16 + 8 + 2*keptPrefixesMax/8

type rankKeeper struct {
	mu      sync.Mutex
	terms   Split            // the postings, whose common prefixes are kept with the ranks
	order   Split            // the display order
	marks   map[string][]int // workspace → per range of nums, the id of the last write to a slot there
	tables  map[string]*rankTable
	bytes   int
	clock   uint64
	epoch   uint64 // the file the tables were built from (kv.Tx.Epoch)
	floor   int    // the first snapshot id a table must be built from to answer (ForgetSets)
	next    map[string]time.Time
	budget  int              // keptRanksBytes (tests lower it)
	perNum  int              // keptBytesPerNum (tests' tables, of ranks only, take RankLen)
	now     func() time.Time // the clock of the builds' spacing (tests set it)
	running bool
	closed  bool
	held    bool        // no build starts (HoldRankBuilds)
	idle    *time.Timer // runs dropIdle while tables are kept
	wg      sync.WaitGroup
	view    func(fn func(tx *kv.Tx) error) error // a read transaction of the store's file
	nums    []byte                               // the Nums bucket
}

func newRankKeeper(nums []byte, terms, order Split) *rankKeeper {
	return &rankKeeper{terms: terms, order: order, marks: map[string][]int{}, tables: map[string]*rankTable{}, next: map[string]time.Time{}, nums: nums,
		budget: keptRanksBytes, perNum: keptBytesPerNum, now: time.Now}
}

// mark records that write transaction tx writes num's slot in workspace ws.
func (k *rankKeeper) mark(tx *kv.Tx, ws []byte, num uint32) {
	r := int(num >> rankRangeShift)
	id := tx.ID()
	k.mu.Lock()
	m := k.marks[string(ws)]
	if r >= len(m) {
		m = append(m, make([]int, r+1-len(m))...)
		k.marks[string(ws)] = m
	}
	m[r] = max(m[r], id)
	k.mu.Unlock()
}

// rankView is what one read transaction may take from a kept table: for the nums it decides
// (below the table's length, in a range no write has marked since the table's snapshot), their
// ranks, ids and places, and the common prefixes' sets.
type rankView struct {
	*rankTable // read only: a table is not changed once kept
	stale      []bool
	staleAt    []uint32 // the stale ranges, ascending
	uncovered  int      // how many nums the view does not decide (up to the last num given)
}

// wordsPerRange is how many words of a Set a range of nums spans.
const wordsPerRange = 1 << rankRangeShift / 64

// decides reports whether the view answers for num (v not nil).
func (v *rankView) decides(num uint32) bool {
	return int(num) < len(v.ranks) && !v.stale[num>>rankRangeShift]
}

// id returns num's id when the view answers for it; a zero id is a num with no contact.
func (v *rankView) id(num uint32) ([16]byte, bool) {
	if v == nil || !v.decides(num) {
		return [16]byte{}, false
	}
	return v.ids[num], true
}

// rank returns num's rank when the view answers for it; a zero rank is a num with no contact.
func (v *rankView) rank(num uint32) ([RankLen]byte, bool) {
	if v == nil || !v.decides(num) {
		return [RankLen]byte{}, false
	}
	return v.ranks[num], true
}

// get returns the view of ws's kept table that answers for the read transaction tx, nil when
// none does. want is how many candidates the search ranks: from keepRanksFrom, a workspace with
// no table that answers, or one mostly stale, gets one built for the searches after it.
func (k *rankKeeper) get(tx *kv.Tx, ws []byte, maxNum uint32, want int, prefixMin int) *rankView {
	k.mu.Lock()
	defer k.mu.Unlock()
	t := k.tables[string(ws)]
	if t != nil && (tx.Epoch() != k.epoch || t.built < k.floor || t.built > tx.ID()) {
		t = nil
	}
	var v *rankView
	uncovered := int(maxNum) + 1
	if t != nil {
		k.clock++
		t.used, t.usedAt = k.clock, k.now()
		v = &rankView{rankTable: t, stale: make([]bool, (len(t.ranks)>>rankRangeShift)+1)}
		uncovered = max(0, int(maxNum)+1-len(t.ranks))
		for r, id := range k.marks[string(ws)] {
			if r < len(v.stale) && id > t.built {
				v.stale[r] = true
				v.staleAt = append(v.staleAt, uint32(r))
				uncovered += 1 << rankRangeShift
			}
		}
	}
	if v != nil {
		v.uncovered = uncovered
	}
	if want >= keepRanksFrom && uncovered > int(maxNum)/8 {
		k.buildLocked(string(ws), int(maxNum)+1, prefixMin)
	}
	return v
}

// buildLocked starts building ws's table unless a build is running, the store is closing, the
// table would not fit the budget, or ws's last build was too recent.
func (k *rankKeeper) buildLocked(ws string, nums, prefixMin int) {
	if k.running || k.closed || k.held || k.view == nil || nums*k.perNum > k.budget/2 || k.now().Before(k.next[ws]) {
		return
	}
	k.running = true
	k.wg.Add(1)
	go func() {
		defer k.wg.Done()
		start := k.now()
		t, epoch, err := k.build(ws, prefixMin)
		k.mu.Lock()
		defer k.mu.Unlock()
		k.running = false
		end := k.now()
		k.next[ws] = end.Add(10 * end.Sub(start))
		if err == nil && t != nil && !k.closed {
			k.keepLocked(ws, t, epoch)
		}
	}()
}

// build reads ws's slots into a table, with the sets of the prefixes of at least prefixMin
// postings entries, in a read transaction of its own.
func (k *rankKeeper) build(ws string, prefixMin int) (t *rankTable, epoch uint64, err error) {
	err = k.view(func(tx *kv.Tx) error {
		b := WsBucket(tx, k.nums, []byte(ws))
		if b == nil {
			return nil
		}
		epoch = tx.Epoch()
		t = &rankTable{built: tx.ID(), ranks: make([][RankLen]byte, b.Sequence()+1)}
		ids := make([][16]byte, len(t.ranks))
		c := b.Cursor()
		for key, v := c.First(); key != nil; key, v = c.Next() {
			if len(key) != 4 || v == nil || len(v)%slotLen != 0 {
				return errBadBlock
			}
			num := uint64(binary.BigEndian.Uint32(key)) * numBlock
			for i := 0; i+slotLen <= len(v); i, num = i+slotLen, num+1 {
				if num < uint64(len(t.ranks)) && [16]byte(v[i:i+16]) != [16]byte{} {
					t.ranks[num] = [RankLen]byte(v[i+16 : i+slotLen])
					ids[num] = [16]byte(v[i : i+16])
				}
			}
		}
		t.prefixes, err = commonPrefixes(ReadSplit(tx, k.terms, []byte(ws)), uint32(b.Sequence()), prefixMin)
		if err != nil {
			return err
		}
		t.ids = ids
		t.order = displayOrder(ReadSplit(tx, k.order, []byte(ws)), ids)
		t.place = placesOf(t.order, len(t.ranks))
		t.placed = placeSets(t.prefixes, t.order, t.place)
		return nil
	})
	return t, epoch, err
}

// keepLocked keeps t, built from a snapshot of file epoch, as ws's table unless it no longer
// answers (the file was replaced, or forgotten past it) or a later one is kept.
func (k *rankKeeper) keepLocked(ws string, t *rankTable, epoch uint64) {
	if epoch != k.epoch || t.built < k.floor {
		return
	}
	if old := k.tables[ws]; old != nil {
		if old.built >= t.built {
			return
		}
		k.bytes -= old.size()
		delete(k.tables, ws)
	}
	for k.bytes+t.size() > k.budget && len(k.tables) > 0 {
		var lru string
		for w, o := range k.tables {
			if lru == "" || o.used < k.tables[lru].used {
				lru = w
			}
		}
		k.bytes -= k.tables[lru].size()
		delete(k.tables, lru)
	}
	k.clock++
	t.used, t.usedAt = k.clock, k.now()
	k.tables[ws] = t
	k.bytes += t.size()
	if k.idle == nil {
		k.idle = time.AfterFunc(keptIdle, k.dropIdle)
	}
}

// dropIdle drops the tables no search has used for keptIdle, and checks again when the next
// one would be.
func (k *rankKeeper) dropIdle() {
	k.mu.Lock()
	defer k.mu.Unlock()
	now := k.now()
	var next time.Time
	for ws, t := range k.tables {
		if until := t.usedAt.Add(keptIdle); !now.Before(until) {
			k.bytes -= t.size()
			delete(k.tables, ws)
		} else if next.IsZero() || until.Before(next) {
			next = until
		}
	}
	if next.IsZero() || k.closed {
		k.idle = nil
		return
	}
	k.idle.Reset(next.Sub(now))
}

// forget makes the tables built before snapshot id of file epoch unusable (ForgetSets); a new
// epoch drops every table and mark.
func (k *rankKeeper) forget(epoch uint64, id int) {
	k.mu.Lock()
	defer k.mu.Unlock()
	if epoch != k.epoch {
		k.tables, k.marks, k.bytes = map[string]*rankTable{}, map[string][]int{}, 0
		k.epoch, k.floor = epoch, id
		return
	}
	k.floor = max(k.floor, id)
}

// close stops new builds and waits for the one running.
func (k *rankKeeper) close() {
	k.mu.Lock()
	k.closed = true
	if k.idle != nil {
		k.idle.Stop()
		k.idle = nil
	}
	k.mu.Unlock()
	k.wg.Wait()
}

// SetView gives the engine the store's read transactions, in which it builds its kept rank
// tables; without it no table is built.
func (e *Engine) SetView(view func(fn func(tx *kv.Tx) error) error) {
	e.ranks.mu.Lock()
	e.ranks.view = view
	e.ranks.mu.Unlock()
}

// KeptRanks waits for the rank table being built, if any, and reports whether ws has a kept
// table and the snapshot it was built from (for the store's tests).
func (e *Engine) KeptRanks(ws []byte) (built int, ok bool) {
	e.ranks.wg.Wait()
	e.ranks.mu.Lock()
	defer e.ranks.mu.Unlock()
	if t := e.ranks.tables[string(ws)]; t != nil {
		return t.built, true
	}
	return 0, false
}

// HoldRankBuilds stops kept rank tables from being built (hold true) or lets them be again, at
// once (the builds' spacing lifted), so that the store's tests search a table gone stale and
// then have it rebuilt.
func (e *Engine) HoldRankBuilds(hold bool) {
	e.ranks.mu.Lock()
	e.ranks.held = hold
	if !hold {
		clear(e.ranks.next)
	}
	e.ranks.mu.Unlock()
	e.ranks.wg.Wait() // a build started before
}

// Close waits for the engine's background work (a rank table being built) and starts no more.
func (e *Engine) Close() { e.ranks.close() }
