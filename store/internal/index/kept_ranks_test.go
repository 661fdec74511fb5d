package index

import (
	"fmt"
	"path/filepath"
	"testing"
	"time"

	bolt "go.etcd.io/bbolt"
	"switchboard/store/kv"
)

// keptFixture is a file with one Nums bucket of two workspaces and a rank keeper over it whose
// builds run in that file's read transactions, with a clock the test moves.
type keptFixture struct {
	t     *testing.T
	db    *bolt.DB
	k     *rankKeeper
	clock time.Time
	epoch uint64
}

var keptNums = []byte("nums")

func newKeptFixture(t *testing.T) *keptFixture {
	// Mapped large enough from the start: a write that grows the mapping waits for every read
	// transaction, and the test writes while one is open.
	db, err := bolt.Open(filepath.Join(t.TempDir(), "kept.db"), 0o600, &bolt.Options{InitialMmapSize: 64 << 20})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	f := &keptFixture{t: t, db: db, k: newRankKeeper(keptNums), clock: time.Unix(1e9, 0)}
	f.k.now = func() time.Time { return f.clock }
	f.k.view = func(fn func(tx *kv.Tx) error) error {
		return db.View(func(tx *bolt.Tx) error { return fn(kv.Wrap(tx, f.epoch, nil)) })
	}
	t.Cleanup(f.k.close)
	return f
}

func testRank(name string) [RankLen]byte { return RankOf(append([]byte{1}, name...)) }

// put writes the slots of nums in ws with rank name+num, marking them as the engine's writes do.
func (f *keptFixture) put(ws string, name string, nums ...uint32) {
	f.t.Helper()
	err := f.db.Update(func(btx *bolt.Tx) error {
		tx := kv.Wrap(btx, f.epoch, nil)
		top, err := tx.CreateBucketIfNotExists(keptNums)
		if err != nil {
			return err
		}
		b, err := top.CreateBucketIfNotExists([]byte(ws))
		if err != nil {
			return err
		}
		for _, n := range nums {
			if uint64(n) > b.Sequence() {
				if err := b.SetSequence(uint64(n)); err != nil {
					return err
				}
			}
			f.k.mark(tx, []byte(ws), n)
			if err := putSlot(b, n, [16]byte{1, byte(n >> 8), byte(n)}, testRank(fmt.Sprintf("%s%05d", name, n))); err != nil {
				return err
			}
		}
		return nil
	})
	if err != nil {
		f.t.Fatal(err)
	}
}

// view returns the view of ws's table a read transaction gets now (building one when asked
// and none answers, and waiting for that build), and the transaction's id.
func (f *keptFixture) view(ws string, maxNum uint32, want int) (v *rankView, id int) {
	err := f.db.View(func(btx *bolt.Tx) error {
		tx := kv.Wrap(btx, f.epoch, nil)
		v, id = f.k.get(tx, []byte(ws), maxNum, want), tx.ID()
		return nil
	})
	if err != nil {
		f.t.Fatal(err)
	}
	f.k.wg.Wait()
	return v, id
}

func TestKeptRanksAnswerOnlyForUnchangedSlots(t *testing.T) {
	f := newKeptFixture(t)
	nums := make([]uint32, 3000)
	for i := range nums {
		nums[i] = uint32(i + 1)
	}
	f.put("ws1", "ann", nums...)

	if v, _ := f.view("ws1", 3000, keepRanksFrom-1); v != nil {
		t.Fatal("a table without a build")
	}
	if v, _ := f.view("ws1", 3000, keepRanksFrom-1); v != nil {
		t.Fatal("a search ranking fewer than keepRanksFrom candidates built a table")
	}
	f.view("ws1", 3000, keepRanksFrom) // builds
	v, _ := f.view("ws1", 3000, keepRanksFrom)
	if v == nil {
		t.Fatal("no table after a search ranking keepRanksFrom candidates")
	}
	for _, n := range []uint32{1, 1500, 3000} {
		if r, ok := v.rank(n); !ok || r != testRank(fmt.Sprintf("ann%05d", n)) {
			t.Errorf("rank(%d) = %q, %v", n, r, ok)
		}
	}
	if r, ok := v.rank(0); !ok || r != ([RankLen]byte{}) {
		t.Errorf("num 0 (no contact) = %q, %v; want a zero rank", r, ok)
	}

	// A write to num 5 makes its range (nums 0–1,023) answer from the blocks, one to num 3001
	// (beyond the table, made after the build) the range of 2,048–3,071; the others still answer.
	f.put("ws1", "bob", 5, 3001)
	v, _ = f.view("ws1", 3001, 0)
	if v == nil {
		t.Fatal("one write dropped the whole table")
	}
	for n, want := range map[uint32]bool{5: false, 6: false, 1023: false, 1024: true, 2047: true, 2999: false, 3001: false} {
		if _, ok := v.rank(n); ok != want {
			t.Errorf("after a write to num 5: rank(%d) answers %v, want %v", n, ok, want)
		}
	}

	// A read of a snapshot older than the table's gets no view.
	err := f.db.View(func(btx *bolt.Tx) error {
		old := kv.Wrap(btx, f.epoch, nil)
		f.put("ws1", "cat", 2500)
		f.clock = f.clock.Add(time.Hour)
		f.view("ws1", 3001, keepRanksFrom) // most of it is not stale: no rebuild
		f.put("ws1", "dan", 1, 1100, 2100, 3001)
		f.view("ws1", 3001, keepRanksFrom) // four of four ranges stale: rebuilt
		built, _ := f.tableBuilt("ws1")
		if built <= old.ID() {
			t.Fatalf("the table was not rebuilt (built %d, old read %d)", built, old.ID())
		}
		if v := f.k.get(old, []byte("ws1"), 3001, 0); v != nil {
			t.Error("a read older than the table got a view of it")
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	v, _ = f.view("ws1", 3001, 0)
	if r, ok := v.rank(2500); !ok || r != testRank("cat02500") {
		t.Errorf("rebuilt table: rank(2500) = %q, %v", r, ok)
	}

	// A write the keeper did not see (another node's, ForgetSets) makes the table unusable from
	// its snapshot on; another file drops it.
	_, id := f.view("ws1", 3001, 0)
	f.k.forget(f.epoch, id+1)
	if v, _ := f.view("ws1", 3001, 0); v != nil {
		t.Error("a table built before the forgotten snapshot still answers")
	}
	f.clock = f.clock.Add(time.Hour)
	f.put("ws1", "eve", 7)
	f.view("ws1", 3001, keepRanksFrom) // rebuilt past the floor
	if v, _ := f.view("ws1", 3001, 0); v == nil {
		t.Error("no table after a rebuild past the forgotten snapshot")
	}
	f.k.forget(f.epoch+1, 0)
	if _, ok := f.tableBuilt("ws1"); ok {
		t.Error("another file's epoch kept the table")
	}
}

func (f *keptFixture) tableBuilt(ws string) (int, bool) {
	f.k.mu.Lock()
	defer f.k.mu.Unlock()
	if t := f.k.tables[ws]; t != nil {
		return t.built, true
	}
	return 0, false
}

func TestKeptRanksBuildsAreSpacedAndBudgeted(t *testing.T) {
	f := newKeptFixture(t)
	f.put("ws1", "ann", 1, 2000)
	f.put("ws2", "bob", 1, 2000)
	f.clock = f.clock.Add(time.Second)
	f.view("ws1", 2000, keepRanksFrom)
	first, ok := f.tableBuilt("ws1")
	if !ok {
		t.Fatal("no table")
	}
	// The build took no time on the test's clock: the next may follow at once. One that took a
	// second waits ten.
	f.k.now = func() time.Time { f.clock = f.clock.Add(500 * time.Millisecond); return f.clock }
	f.put("ws1", "cat", 1, 1500)
	f.view("ws1", 2000, keepRanksFrom)
	second, _ := f.tableBuilt("ws1")
	if second <= first {
		t.Fatal("a stale table was not rebuilt")
	}
	f.put("ws1", "dan", 1, 1500)
	f.view("ws1", 2000, keepRanksFrom)
	if again, _ := f.tableBuilt("ws1"); again != second {
		t.Error("rebuilt within ten times the last build's time")
	}
	f.k.now = func() time.Time { return f.clock }
	f.clock = f.clock.Add(5 * time.Second)
	f.view("ws1", 2000, keepRanksFrom)
	if again, _ := f.tableBuilt("ws1"); again == second {
		t.Error("not rebuilt after ten times the last build's time")
	}

	// A budget of two tables: a third evicts the least recently used.
	f.put("ws3", "cat", 1, 2000)
	f.k.budget = 2 * 2001 * RankLen
	f.view("ws2", 2000, keepRanksFrom)
	f.view("ws1", 2000, 0) // used after ws2
	f.view("ws3", 2000, keepRanksFrom)
	for ws, want := range map[string]bool{"ws1": true, "ws2": false, "ws3": true} {
		if _, ok := f.tableBuilt(ws); ok != want {
			t.Errorf("%s kept: %v, want %v", ws, ok, want)
		}
	}
	// A table of more than half the budget is not built.
	f.k.budget = 2001 * RankLen
	f.k.forget(f.epoch+1, 0)
	f.epoch++
	f.view("ws1", 2000, keepRanksFrom)
	if _, ok := f.tableBuilt("ws1"); ok {
		t.Error("a table of more than half the budget was built")
	}
}
