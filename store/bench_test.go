package store

// Benchmark fixtures shared by the search, startup and import benchmarks: a deterministic
// generator of realistic contacts, a CSV writer for it, and a 1,000,000-contact database built
// once per `go test` process in a temporary directory that TestMain removes.

import (
	"fmt"
	"os"
	"path/filepath"
	"switchboard/internal/benchgen"
	"sync"
	"testing"
	"time"

	"switchboard/store/kv"
)

// TestMain removes the benchmark fixtures (gigabytes at 1M contacts) when the run ends.
func TestMain(m *testing.M) {
	code := m.Run()
	benchTmp.Lock()
	if benchTmp.dir != "" {
		os.RemoveAll(benchTmp.dir)
	}
	benchTmp.Unlock()
	os.Exit(code)
}

var benchTmp struct {
	sync.Mutex
	dir string
}

// benchDir is the process's fixture directory, made on first use.
func benchDir(tb testing.TB) string {
	benchTmp.Lock()
	defer benchTmp.Unlock()
	if benchTmp.dir == "" {
		dir, err := os.MkdirTemp("", "switchboard-bench-")
		if err != nil {
			tb.Fatal(err)
		}
		benchTmp.dir = dir
	}
	return benchTmp.dir
}

// benchProgress prints an import's progress to stderr about every 100,000 rows under -v.
func benchProgress(start time.Time) func(ImportProgress) {
	if !testing.Verbose() {
		return nil
	}
	next := 100_000
	return func(p ImportProgress) {
		if p.Rows >= next {
			next += 100_000
			fmt.Fprintf(os.Stderr, "import: %d rows in %s\n", p.Rows, time.Since(start).Round(time.Millisecond))
		}
	}
}

// benchCSV returns a cached CSV file of n generated contacts.
var benchCSVs = struct {
	sync.Mutex
	paths map[int]string
}{paths: map[int]string{}}

func benchCSV(tb testing.TB, n int) string {
	benchCSVs.Lock()
	defer benchCSVs.Unlock()
	if p, ok := benchCSVs.paths[n]; ok {
		return p
	}
	p := filepath.Join(benchDir(tb), fmt.Sprintf("contacts-%d.csv", n))
	if err := benchgen.WriteCSV(p, n, 1, true); err != nil {
		tb.Fatal(err)
	}
	benchCSVs.paths[n] = p
	return p
}

// newBenchWorkspace creates a workspace with the CSV's custom properties.
func newBenchWorkspace(tb testing.TB, s *Store) string {
	w, err := s.CreateWorkspace("Bench")
	if err != nil {
		tb.Fatal(err)
	}
	if _, err := s.AddProperty(w.ID, "plan", PropertyText); err != nil {
		tb.Fatal(err)
	}
	if _, err := s.AddProperty(w.ID, "score", PropertyNumber); err != nil {
		tb.Fatal(err)
	}
	return w.ID
}

// benchDB is a closed database file holding one workspace of generated contacts.
type benchDB struct {
	path      string
	workspace string
	contacts  int
	optOuts   int
	build     time.Duration // the import alone
	report    ImportReport
	err       error
}

const (
	bench1M        = 1_000_000
	bench1MOptOuts = 100_000 // 10% of the contacts, as in the broadcast target
)

var bench1MOnce sync.Once
var bench1MDB benchDB

// bench1MFixture builds the 1M-contact database once per process: the generated CSV goes
// through ImportContacts (so the build also measures the import), then 10% of the numbers
// get opt-outs, which Open reads into its bloom filters.
//
// SWITCHBOARD_BENCH_1M_DB=FILE keeps the database in FILE instead, built there when missing and
// reused by later runs: a convenience while working on search, valid only while the index layout
// and the generator stay the same (delete the file after changing either).
func bench1MFixture(tb testing.TB) benchDB {
	bench1MOnce.Do(func() {
		keep := os.Getenv("SWITCHBOARD_BENCH_1M_DB")
		if keep == "" {
			bench1MDB = buildBenchDB(tb, filepath.Join(benchDir(tb), "search-1m.db"), bench1M, bench1MOptOuts)
			return
		}
		if _, err := os.Stat(keep); err == nil {
			bench1MDB = reuseBenchDB(keep, bench1M, bench1MOptOuts)
			return
		}
		bench1MDB = buildBenchDB(tb, keep, bench1M, bench1MOptOuts)
	})
	if bench1MDB.err != nil {
		tb.Fatal(bench1MDB.err)
	}
	return bench1MDB
}

// reuseBenchDB describes a database file built by an earlier run: its one workspace.
func reuseBenchDB(path string, n, optOuts int) benchDB {
	db := benchDB{path: path, contacts: n, optOuts: optOuts}
	s, err := Open(path, Options{Timeout: 5 * time.Second})
	if err != nil {
		db.err = err
		return db
	}
	defer s.Close()
	ws, err := s.Workspaces()
	if err == nil && len(ws) != 1 {
		err = fmt.Errorf("%s: want one workspace, found %d", path, len(ws))
	}
	if err != nil {
		db.err = err
		return db
	}
	db.workspace = ws[0].ID
	return db
}

func buildBenchDB(tb testing.TB, path string, n, optOuts int) benchDB {
	csvPath := benchCSV(tb, n)
	db := benchDB{path: path, contacts: n, optOuts: optOuts}
	s, err := Open(db.path, Options{})
	if err != nil {
		db.err = err
		return db
	}
	defer s.Close()
	db.workspace = newBenchWorkspace(tb, s)
	f, err := os.Open(csvPath)
	if err != nil {
		db.err = err
		return db
	}
	defer f.Close()
	start := time.Now()
	db.report, db.err = s.ImportContacts(db.workspace, f, benchProgress(start))
	db.build = time.Since(start)
	if db.err == nil && db.report.Imported != n {
		db.err = fmt.Errorf("imported %d of %d rows: %+v", db.report.Imported, n, db.report.Errors)
	}
	if db.err == nil {
		db.err = addBenchOptOuts(s, db.workspace, n, optOuts)
	}
	return db
}

// addBenchOptOuts opts out the numbers of every (n/optOuts)-th generated contact. It writes the
// opt-out records and their index directly, in big transactions, as a bulk load would: the
// one-at-a-time path grows the bloom filter as it goes, which is not what is measured here.
func addBenchOptOuts(s *Store, ws string, n, optOuts int) error {
	if optOuts == 0 {
		return nil
	}
	g := benchgen.New(1)
	step := n / optOuts
	var phones []string
	for i := range n {
		c := g.Next()
		if i%step == 0 && len(phones) < optOuts {
			phones = append(phones, c.Phone)
		}
	}
	for len(phones) > 0 {
		batch := phones[:min(len(phones), 20_000)]
		phones = phones[len(batch):]
		err := rawUpdate(s.DB(), func(tx *kv.Tx) error {
			for _, p := range batch {
				o := OptOut{ID: s.NewID(), WorkspaceID: ws, Phone: p, Reason: OptOutAPI, CreatedAt: s.Now()}
				if err := tx.Bucket(bOptOutPhone).Put(idxKey(ws, p, o.ID), nil); err != nil {
					return err
				}
				if err := putJSON(tx.Bucket(bOptOuts), wsKey(ws, o.ID), o); err != nil {
					return err
				}
			}
			return nil
		})
		if err != nil {
			return err
		}
	}
	return nil
}
