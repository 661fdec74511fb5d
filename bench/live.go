package main

import (
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"time"

	"switchboard/internal/benchgen"
)

// The live inbox and data rows (DESIGN's targets for push, inbox search, long threads, the
// mixed load, import and export through the server), measured like the rest of the benchmark:
// against the built binary, over HTTP, from another process. They run on a server of their
// own, on a copy of the contacts database given conversations and messages by the binary itself
// (a broadcast, inbound texts and sends over its own API), so that no figure depends on what the
// other rows did to the main server while it ran.

// liveEnv is what the main run hands over: the binary, the working directory, the CSV of the
// imported contacts and the data directory that holds them (no server holds it any more), the
// workspace and its sandbox number.
type liveEnv struct {
	bin, dir, csv, data string
	ws, number          string
	n                   int
	rows                string // the rows to measure, comma-separated: push,search,thread,mixed,data
}

// liveSizes are the sizes of the live rows: conversations n/10 with ten messages each (so
// 100,000 and 1,000,000 at 1,000,000 contacts), a 10,000-message thread, 200 pushed streams,
// 1,000 idle ones, and five runs of each row.
type liveSizes struct {
	conversations, broadcasts, thread int
	pushStreams, pushPosts, idle      int
	runs                              int
}

func sizesFor(n int) liveSizes {
	return liveSizes{conversations: n / 10, broadcasts: 9, thread: 10_000,
		pushStreams: 200, pushPosts: 20, idle: 1000, runs: 5}
}

// liveFixture is what the seeded database holds beyond the contacts; it is kept beside a
// cached database (its ids are that file's).
type liveFixture struct {
	N             int    `json:"n"`
	Workspace     string `json:"workspace"`
	Number        string `json:"number"`
	Email         string `json:"email"`
	Password      string `json:"password"`
	Token         string `json:"token"`
	Group         string `json:"group"`
	Conversations int    `json:"conversations"`
	Messages      int    `json:"messages"`
	ThreadConv    string `json:"threadConversation"`
	ThreadPhone   string `json:"threadPhone"`
	PushPhone     string `json:"pushPhone"`
}

// liveRows measures every live row and the import and export rows into r.
func liveRows(r *report, e liveEnv) error {
	sz := sizesFor(e.n)
	dir := filepath.Join(e.dir, "live")
	data := filepath.Join(dir, "data")
	if err := os.MkdirAll(data, 0o755); err != nil {
		return err
	}
	db := filepath.Join(data, "switchboard.db")
	fx, cached, err := liveDatabase(e, sz, db)
	if err != nil {
		return err
	}
	logf("live rows: starting the server on the seeded copy")
	srv, err := startSB(e.bin, data, filepath.Join(dir, "serve.log"))
	if err != nil {
		return err
	}
	defer srv.stop()
	if !cached {
		start := time.Now()
		if err := seedLive(srv, e, sz, &fx); err != nil {
			return fmt.Errorf("seed the inbox: %w", err)
		}
		r.note(fmt.Sprintf("live rows: seeded %d conversations and %d messages through the server in %s",
			fx.Conversations, fx.Messages, time.Since(start).Round(time.Second)))
		if err := saveLiveCache(e, srv, fx); err != nil {
			return err
		}
	}
	info, err := os.Stat(db)
	if err != nil {
		return err
	}
	r.note(fmt.Sprintf("live rows: %d contacts, %d seeded conversations and %d messages, a %d-message thread; file %d MB",
		e.n, fx.Conversations, fx.Messages, sz.thread, info.Size()>>20))
	ui, err := signIn(srv.base, fx.Email, fx.Password)
	if err != nil {
		return err
	}
	// A row that fails says so in the report and the others still run: a run at 1,000,000
	// contacts is long, and one miss must not cost every other figure.
	step := func(name string, fn func() error) {
		if !slices.Contains(strings.Split(e.rows, ","), name) {
			return
		}
		if err := fn(); err != nil {
			liveRow(r, "live row "+name+" failed", err.Error(), "")
		}
	}
	step("push", func() error { return pushRows(r, srv, fx, sz, ui) })
	step("search", func() error { return inboxSearchRows(r, srv, fx, sz, ui) })
	step("thread", func() error { return threadRow(r, srv, fx, sz, ui) })
	// Last on this server: the mixed load adds n contacts and a broadcast to the workspace.
	step("mixed", func() error { return mixedRow(r, srv, e, fx, sz, ui) })
	srv.stop()
	step("data", func() error { return dataRows(r, e, sz) })
	return nil
}

// liveRow is report.row for the live rows, also logged as it is measured, so that a run
// stopped early still shows what it measured.
func liveRow(r *report, figure, measured, target string) {
	logf("%s: %s (target %s)", figure, measured, target)
	r.row(figure, measured, "", target)
}

// runLiveOnly measures the live rows alone, on the seeded database a previous run kept
// (SWITCHBOARD_BENCH_1M_DB): it builds the binary and writes the contacts' CSV (for the import
// row) and nothing else.
func runLiveOnly(c config) error {
	if db, _ := liveCachePaths(c.n); db == "" {
		return errors.New("-live-only needs SWITCHBOARD_BENCH_1M_DB and the seeded database a full run kept there")
	} else if _, err := os.Stat(db); err != nil {
		return fmt.Errorf("-live-only: %w", err)
	}
	dir := c.keep
	if dir == "" {
		var err error
		if dir, err = os.MkdirTemp("", "switchboard-bench-"); err != nil {
			return err
		}
		defer os.RemoveAll(dir)
	} else if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	bin := filepath.Join(dir, "switchboard")
	logf("building %s", bin)
	build := exec.Command("go", "build", "-o", bin, ".")
	build.Dir, build.Stdout, build.Stderr = c.repo, os.Stderr, os.Stderr
	if err := build.Run(); err != nil {
		return fmt.Errorf("go build: %w", err)
	}
	csvPath := filepath.Join(dir, "contacts.csv")
	if err := benchgen.WriteCSV(csvPath, c.n, 1, false); err != nil {
		return err
	}
	r := &report{cores: runtime.NumCPU(), n: c.n}
	if err := liveRows(r, liveEnv{bin: bin, dir: dir, csv: csvPath, number: c.fromNum, n: c.n, rows: c.liveSet}); err != nil {
		return err
	}
	r.print(os.Stdout)
	return nil
}

// liveCachePaths are where SWITCHBOARD_BENCH_1M_DB=FILE keeps the seeded database between
// runs: FILE.inbox-N.db and its fixture FILE.inbox-N.json ("" when the variable is not set).
func liveCachePaths(n int) (db, fixture string) {
	base := os.Getenv("SWITCHBOARD_BENCH_1M_DB")
	if base == "" {
		return "", ""
	}
	stem := fmt.Sprintf("%s.inbox-%d", base, n)
	return stem + ".db", stem + ".json"
}

// liveDatabase puts the database of the live rows at db: the cached seeded copy when there is
// one (cached true), else a copy of the contacts database with a signed-in member added, to be
// seeded once the server runs.
func liveDatabase(e liveEnv, sz liveSizes, db string) (fx liveFixture, cached bool, err error) {
	cacheDB, cacheFx := liveCachePaths(e.n)
	if cacheDB != "" {
		raw, err := os.ReadFile(cacheFx)
		if err == nil && json.Unmarshal(raw, &fx) == nil && fx.N == e.n && fx.Conversations == sz.conversations {
			if _, err := os.Stat(cacheDB); err == nil {
				logf("live rows: using the seeded database %s", cacheDB)
				return fx, true, copyFile(cacheDB, db)
			}
		} else if err != nil && !errors.Is(err, fs.ErrNotExist) {
			return fx, false, err
		}
	}
	logf("live rows: copying the contacts database")
	if err := copyFile(filepath.Join(e.data, "switchboard.db"), db); err != nil {
		return fx, false, err
	}
	data := filepath.Dir(db)
	fx = liveFixture{N: e.n, Workspace: e.ws, Number: e.number, Email: "agent@example.com", Password: "bench live inbox",
		ThreadPhone: "+12025550142", PushPhone: "+12025550143"}
	user, err := runAdmin(e.bin, data, "create-user", "--email", fx.Email, "--name", "Ana Agent", "--password", fx.Password)
	if err != nil {
		return fx, false, err
	}
	if _, err := runAdmin(e.bin, data, "add-member", "--workspace", fx.Workspace, "--user", user, "--role", "admin"); err != nil {
		return fx, false, err
	}
	if fx.Token, err = runAdmin(e.bin, data, "create-token", "--user", user, "--name", "live bench"); err != nil {
		return fx, false, err
	}
	return fx, false, nil
}

// saveLiveCache keeps the seeded database (a hot copy the running binary writes with
// `switchboard backup`) and its fixture, when SWITCHBOARD_BENCH_1M_DB is set.
func saveLiveCache(e liveEnv, srv *sbServer, fx liveFixture) error {
	cacheDB, cacheFx := liveCachePaths(e.n)
	if cacheDB == "" {
		return nil
	}
	logf("live rows: keeping the seeded database in %s", cacheDB)
	_ = os.Remove(cacheFx) // a fixture never describes another file than the one beside it
	if err := os.MkdirAll(filepath.Dir(cacheDB), 0o755); err != nil {
		return err
	}
	if out, err := runBackup(e.bin, srv.data, cacheDB); err != nil {
		return fmt.Errorf("backup %s: %w: %s", cacheDB, err, out)
	}
	raw, err := json.MarshalIndent(fx, "", "  ")
	if err != nil {
		return err
	}
	return os.WriteFile(cacheFx, raw, 0o644)
}
