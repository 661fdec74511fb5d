package index

import (
	"encoding/binary"
	"fmt"
	"math/rand/v2"
	"path/filepath"
	"runtime"
	"slices"
	"testing"
	"testing/synctest"
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

var (
	keptNums  = []byte("nums")
	keptTerms = Split{Main: []byte("terms"), Recent: []byte("terms-recent")}
	keptOrder = Split{Main: []byte("order"), Recent: []byte("order-recent")}
)

func newKeptFixture(t *testing.T) *keptFixture {
	// Mapped large enough from the start: a write that grows the mapping waits for every read
	// transaction, and the test writes while one is open.
	db, err := bolt.Open(filepath.Join(t.TempDir(), "kept.db"), 0o600, &bolt.Options{InitialMmapSize: 64 << 20})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	f := &keptFixture{t: t, db: db, k: newRankKeeper(keptNums, keptTerms, keptOrder), clock: time.Unix(1e9, 0)}
	f.k.now = func() time.Time { return f.clock }
	f.k.view = func(fn func(tx *kv.Tx) error) error {
		return db.View(func(tx *bolt.Tx) error { return fn(kv.Wrap(tx, f.epoch, nil)) })
	}
	t.Cleanup(f.k.close)
	return f
}

func testRank(name string) [RankLen]byte { return RankOf(append([]byte{1}, name...)) }

// update runs fn in a write transaction of the fixture's file, with ws's Nums bucket and both
// parts of its postings.
func (f *keptFixture) update(ws string, fn func(tx *kv.Tx, nums, main, recent *kv.Bucket) error) {
	f.t.Helper()
	err := f.db.Update(func(btx *bolt.Tx) error {
		tx := kv.Wrap(btx, f.epoch, nil)
		for _, top := range [][]byte{keptOrder.Main, keptOrder.Recent} {
			if _, err := tx.CreateBucketIfNotExists(top); err != nil {
				return err
			}
		}
		var bs [3]*kv.Bucket
		for i, top := range [][]byte{keptNums, keptTerms.Main, keptTerms.Recent} {
			if _, err := tx.CreateBucketIfNotExists(top); err != nil {
				return err
			}
			b, err := WsBucketW(tx, top, []byte(ws), 0)
			if err != nil {
				return err
			}
			bs[i] = b
		}
		return fn(tx, bs[0], bs[1], bs[2])
	})
	if err != nil {
		f.t.Fatal(err)
	}
}

// put writes the slots of nums in ws with rank name+num, marking them as the engine's writes do.
func (f *keptFixture) put(ws string, name string, nums ...uint32) {
	f.t.Helper()
	f.update(ws, func(tx *kv.Tx, b, _, _ *kv.Bucket) error {
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
}

// view returns the view of ws's table a read transaction gets now (building one when asked
// and none answers, and waiting for that build), and the transaction's id.
func (f *keptFixture) view(ws string, maxNum uint32, want int) (v *rankView, id int) {
	err := f.db.View(func(btx *bolt.Tx) error {
		tx := kv.Wrap(btx, f.epoch, nil)
		v, id = f.k.get(tx, []byte(ws), maxNum, want, 4096), tx.ID()
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
		if v := f.k.get(old, []byte("ws1"), 3001, 0, 4096); v != nil {
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

	// A budget that three tables fit: a fourth evicts the least recently used.
	f.put("ws3", "cat", 1, 2000)
	f.put("ws4", "dan", 1, 2000)
	// The fixture's tables hold ranks, ids and places by num (32 bytes a num; no order, no
	// prefixes): three fit in 2 × 50 bytes a num, four do not.
	f.k.perNum = 50
	f.k.budget = 2 * 2001 * f.k.perNum
	f.view("ws2", 2000, keepRanksFrom)
	f.view("ws3", 2000, keepRanksFrom)
	f.view("ws1", 2000, 0) // used after ws2
	f.view("ws3", 2000, 0)
	f.view("ws4", 2000, keepRanksFrom)
	for ws, want := range map[string]bool{"ws1": true, "ws2": false, "ws3": true, "ws4": true} {
		if _, ok := f.tableBuilt(ws); ok != want {
			t.Errorf("%s kept: %v, want %v", ws, ok, want)
		}
	}
	// A table that could take more than half the budget is not built.
	f.k.budget = 2001 * RankLen
	f.k.forget(f.epoch+1, 0)
	f.epoch++
	f.view("ws1", 2000, keepRanksFrom)
	if _, ok := f.tableBuilt("ws1"); ok {
		t.Error("a table of more than half the budget was built")
	}
}

// TestKeptPrefixMatchesThePostings: a kept prefix's set, with the chunks of the nums it does
// not decide (ranges written since its snapshot, nums made after it), adds exactly what decoding
// every term of the prefix adds, round after round of writes to both parts of the postings.
func TestKeptPrefixMatchesThePostings(t *testing.T) {
	f := newKeptFixture(t)
	r := rand.New(rand.NewPCG(5, 8))
	terms := []string{"tmar", "tmaria", "tmark", "tmartin", "tmary", "tmo", "tmaz", "tlmar"}
	const ws = "ws1"
	seq := uint32(0)
	// write runs one write transaction over ws's slots and postings.
	write := func(fn func(tx *kv.Tx, nums, main, recent *kv.Bucket)) {
		t.Helper()
		f.update(ws, func(tx *kv.Tx, nums, main, recent *kv.Bucket) error {
			fn(tx, nums, main, recent)
			return nums.SetSequence(uint64(seq))
		})
	}
	// add makes nums from..to contacts, each in a few random terms; the recent part takes
	// some terms' nums (as an import writes them).
	add := func(from, to uint32) {
		write(func(tx *kv.Tx, nums, main, recent *kv.Bucket) {
			byTerm := map[string][]uint32{}
			for n := from; n <= to; n++ {
				f.k.mark(tx, []byte(ws), n)
				if err := putSlot(nums, n, [16]byte{1, byte(n >> 8), byte(n)}, testRank("x")); err != nil {
					t.Fatal(err)
				}
				for _, term := range terms {
					if r.IntN(3) == 0 {
						byTerm[term] = append(byTerm[term], n)
					}
				}
				seq = max(seq, n)
			}
			for term, ns := range byTerm {
				if r.IntN(4) == 0 {
					if err := AppendPostings(recent, term, ns); err != nil {
						t.Fatal(err)
					}
					continue
				}
				for _, n := range ns {
					if err := addPosting(main, term, n); err != nil {
						t.Fatal(err)
					}
				}
			}
		})
	}
	add(1, 6000)
	check := func(round int) {
		t.Helper()
		err := f.db.View(func(btx *bolt.Tx) error {
			tx := kv.Wrap(btx, f.epoch, nil)
			v := f.k.get(tx, []byte(ws), seq, 0, 1)
			if v == nil {
				t.Fatalf("round %d: no table", round)
			}
			x := ReadSplit(tx, keptTerms, []byte(ws))
			for _, p := range []string{"tmar", "tma"} {
				got, want := NewSet(seq), NewSet(seq)
				n, ok, err := x.keptPrefix(got, v, p, seq)
				if err != nil || ok != (p == "tmar") {
					t.Fatalf("round %d: keptPrefix(%q) = %v, %v", round, p, ok, err)
				}
				all, err := x.AddPostings(want, p, false)
				if err != nil {
					t.Fatal(err)
				}
				if !ok {
					continue
				}
				if !slices.Equal(got, want) {
					t.Fatalf("round %d: the kept %q and its postings differ (%d and %d nums)", round, p, got.Count(), want.Count())
				}
				// Nothing is undecided at first; later rounds' edits leave more ranges to the
				// postings (no rebuild here), until every one is.
				if round == 0 && n != 0 || round == 1 && n >= all {
					t.Errorf("round %d: the kept %q decoded %d of its %d entries", round, p, n, all)
				}
			}
			return nil
		})
		if err != nil {
			t.Fatal(err)
		}
	}
	// Build with a low floor: "tmar" (every tmar… term) is kept, "tma" is not (a prefix of
	// keptPrefixLen bytes only).
	err := f.db.View(func(btx *bolt.Tx) error {
		f.k.get(kv.Wrap(btx, f.epoch, nil), []byte(ws), seq, keepRanksFrom, 1)
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	f.k.wg.Wait()
	check(0)
	for round := 1; round <= 8; round++ {
		// Edits in one or two ranges: nums leave and join terms of the prefix.
		write(func(tx *kv.Tx, nums, main, recent *kv.Bucket) {
			for range 1 + r.IntN(2) {
				base := uint32(r.IntN(5)) << rankRangeShift
				for range 20 {
					n := base + uint32(r.IntN(1<<rankRangeShift)) + 1
					f.k.mark(tx, []byte(ws), n)
					term := terms[r.IntN(len(terms))]
					if r.IntN(2) == 0 {
						if _, err := removePosting(main, term, n); err != nil {
							t.Fatal(err)
						}
					} else if err := addPosting(main, term, n); err != nil {
						t.Fatal(err)
					}
				}
			}
		})
		add(seq+1, seq+uint32(1+r.IntN(300))) // new contacts past the table
		check(round)
	}
}

// TestAnswerIDsOrdersEqualKeysByID: of candidates with equal full sort keys (two Mary Davises),
// the answer keeps the smallest ids, whatever their nums, when the ids were not read yet (their
// ranks came from a kept table).
func TestAnswerIDsOrdersEqualKeysByID(t *testing.T) {
	f := newKeptFixture(t)
	f.put("ws1", "mary", 1, 2, 3, 4, 5, 6)
	f.update("ws1", func(_ *kv.Tx, b, _, _ *kv.Bucket) error {
		for n := uint32(1); n <= 6; n++ { // ids descend as nums ascend
			if err := putSlot(b, n, [16]byte{byte(20 - n)}, testRank("mary")); err != nil {
				return err
			}
		}
		return nil
	})
	err := f.db.View(func(btx *bolt.Tx) error {
		tx := kv.Wrap(btx, f.epoch, nil)
		s := &searcher{tx: tx, num: WsBucket(tx, keptNums, []byte("ws1"))}
		key := []byte("\x01mary\x00davis\x00")
		var batch []hit
		for n := uint32(1); n <= 6; n++ {
			batch = append(batch, hit{num: n, sort: key})
		}
		batch = append(batch, hit{num: 7, sort: []byte("\x01zed\x00")})
		got := s.answerIDs(batch, 2)
		sortHits(got)
		if len(got) < 2 || got[0].id != [16]byte{14} || got[1].id != [16]byte{15} {
			t.Errorf("the first 2 of six equal keys: %v, want the ids 14 and 15 (nums 6 and 5)", got)
		}
		for _, h := range got {
			if h.num == 7 {
				t.Error("a candidate past the answer and its equals had its id read")
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
}

// TestKeptOrderOrdersEqualKeysByID: a query the kept order answers ("mar", a kept prefix) gets,
// of 7,167 Mary Davises and Mary Evanses whose ids descend as their nums ascend, the Davises
// with the 100 smallest ids, ascending, as a search ranking them does (the order index holds
// equal keys by num); and once a contact made after the table (in a range of its own) sorts
// before them all, that contact and then the first 99 places of the table.
func TestKeptOrderOrdersEqualKeysByID(t *testing.T) {
	f := newKeptFixture(t)
	const n = 7<<rankRangeShift - 1 // the new contact, n+1, starts a range
	ws := []byte("ws1")
	davis, evans := []byte("\x01mary\x00davis\x00"), []byte("\x01mary\x00evans\x00")
	idOf := func(num uint32) [16]byte { return [16]byte{1, byte((n + 10 - num) >> 8), byte(n + 10 - num)} }
	put := func(tx *kv.Tx, nums, main *kv.Bucket, num uint32, key []byte) error {
		order, err := WsBucketW(tx, keptOrder.Main, ws, 0)
		if err != nil {
			return err
		}
		f.k.mark(tx, ws, num)
		if err := putSlot(nums, num, idOf(num), RankOf(key)); err != nil {
			return err
		}
		if err := order.Put(binary.BigEndian.AppendUint32(slices.Clone(key), num), nil); err != nil {
			return err
		}
		if uint64(num) > nums.Sequence() {
			if err := nums.SetSequence(uint64(num)); err != nil {
				return err
			}
		}
		return addPosting(main, "tmary", num)
	}
	f.update("ws1", func(tx *kv.Tx, b, main, _ *kv.Bucket) error {
		for num := uint32(1); num <= n; num++ {
			key := davis
			if num%2 == 1 {
				key = evans
			}
			if err := put(tx, b, main, num, key); err != nil {
				return err
			}
		}
		return nil
	})
	if v, _ := f.view("ws1", n, keepRanksFrom); v != nil {
		t.Fatal("a table before any was built")
	}
	search := func(maxNum uint32) (got [][16]byte) {
		t.Helper()
		err := f.db.View(func(btx *bolt.Tx) error {
			tx := kv.Wrap(btx, f.epoch, nil)
			s := &searcher{tx: tx, ws: ws, num: WsBucket(tx, keptNums, ws), terms: ReadSplit(tx, keptTerms, ws),
				order: ReadSplit(tx, keptOrder, ws), q: Query{Text: []string{"mar"}}, b: &Bounds{KeptPrefixMin: 4096},
				text: func(id [16]byte) (Text, bool) { // the records the ties past the index's walk read
					switch num := n + 10 - (uint32(id[1])<<8 | uint32(id[2])); {
					case num > n:
						return Text{First: "Mar", Last: "Aaron"}, true
					case num%2 == 1:
						return Text{First: "Mary", Last: "Evans"}, true
					default:
						return Text{First: "Mary", Last: "Davis"}, true
					}
				}}
			s.kept = f.k.get(tx, ws, maxNum, 0, 4096)
			if s.kept == nil || s.kept.placed["tmar"] == nil {
				t.Fatal("no kept order with the prefix mar")
			}
			var ok bool
			var err error
			if got, ok, err = s.inKeptOrder(maxNum, SearchLimit); err != nil || !ok {
				t.Fatalf("the kept order did not answer: %v", err)
			}
			return nil
		})
		if err != nil {
			t.Fatal(err)
		}
		return got
	}
	var want [][16]byte
	for num := uint32(n - 1); len(want) < SearchLimit; num -= 2 { // the Davises: even nums
		want = append(want, idOf(num))
	}
	if got := search(n); !slices.Equal(got, want) {
		t.Errorf("got %d ids starting %x, want the Davises' %d smallest ascending, starting %x", len(got), got[:min(2, len(got))], len(want), want[:2])
	}
	f.update("ws1", func(tx *kv.Tx, b, main, _ *kv.Bucket) error {
		return put(tx, b, main, n+1, []byte("\x01mar\x00aaron\x00"))
	})
	want = append([][16]byte{idOf(n + 1)}, want[:SearchLimit-1]...)
	if got := search(n + 1); !slices.Equal(got, want) {
		t.Errorf("with a contact made after the table: got %d ids starting %x, want %d starting %x", len(got), got[:min(2, len(got))], len(want), want[:2])
	}
}

// TestKeptRanksDroppedWhenIdle: a table no search uses for keptIdle is dropped (a server at rest
// gives its memory back); one used meanwhile is kept keptIdle from that use.
func TestKeptRanksDroppedWhenIdle(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		f := newKeptFixture(t)
		f.k.now = time.Now // the bubble's clock
		defer f.k.close()
		f.put("ws1", "ann", 1, 2000)
		f.put("ws2", "bob", 1, 2000)
		f.view("ws1", 2000, keepRanksFrom)
		f.view("ws2", 2000, keepRanksFrom)
		time.Sleep(keptIdle / 2)
		f.view("ws1", 2000, 0) // used
		time.Sleep(keptIdle/2 + time.Second)
		synctest.Wait()
		_, kept1 := f.tableBuilt("ws1")
		_, kept2 := f.tableBuilt("ws2")
		if !kept1 || kept2 {
			t.Fatalf("after %v: ws1 (used %v ago) kept %v, ws2 (unused) kept %v; want true, false", keptIdle, keptIdle/2, kept1, kept2)
		}
		time.Sleep(keptIdle / 2)
		synctest.Wait()
		if _, ok := f.tableBuilt("ws1"); ok {
			t.Fatalf("ws1 kept %v after its last use", keptIdle)
		}
		if f.k.bytes != 0 {
			t.Errorf("%d bytes counted with no table kept", f.k.bytes)
		}
	})
}

// TestKeptRanksNotKeptAfterClose: a build still running when the engine closes keeps no table
// and arms no idle timer: nothing of the store outlives its Close.
func TestKeptRanksNotKeptAfterClose(t *testing.T) {
	f := newKeptFixture(t)
	f.put("ws1", "ann", 1, 2000)
	view := f.k.view
	started, finish := make(chan struct{}), make(chan struct{})
	f.k.view = func(fn func(tx *kv.Tx) error) error {
		close(started)
		<-finish
		return view(fn)
	}
	err := f.db.View(func(btx *bolt.Tx) error {
		f.k.get(kv.Wrap(btx, f.epoch, nil), []byte("ws1"), 2000, keepRanksFrom, 4096)
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	<-started
	done := make(chan struct{})
	go func() { f.k.close(); close(done) }()
	for closing := false; !closing; { // close has stopped new builds and waits for this one
		f.k.mu.Lock()
		closing = f.k.closed
		f.k.mu.Unlock()
		runtime.Gosched()
	}
	close(finish)
	<-done
	if _, ok := f.tableBuilt("ws1"); ok || f.k.idle != nil {
		t.Errorf("after close: table kept %v, idle timer armed %v", ok, f.k.idle != nil)
	}
}
