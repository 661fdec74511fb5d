// Command bench measures Switchboard from outside, the way a user meets it (`make bench`): it
// builds the binary, imports generated contacts with `switchboard admin import-contacts`,
// starts `switchboard serve` on a free loopback port and measures over HTTP, beside the
// baselines the targets of DESIGN §9 are stated against (raw bbolt DB.Batch puts, a bare
// net/http JSON handler) and an SQLite FTS5 index of the same contacts.
//
// It is a module of its own so that the SQLite driver never enters the server's go.mod.
//
//	go run . -repo ..          # 1,000,000 contacts
//	go run . -repo .. -short   # 100,000 contacts, shorter rate runs
package main

import (
	"bytes"
	"context"
	"database/sql"
	"encoding/binary"
	"encoding/csv"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"math/rand/v2"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	bolt "go.etcd.io/bbolt"
	_ "modernc.org/sqlite"

	"switchboard/internal/benchgen"
)

type config struct {
	repo     string
	n        int
	rateDur  time.Duration
	keep     string
	sqlite   bool
	fromNum  string
	searches int
}

func main() {
	var c config
	short := flag.Bool("short", false, "100,000 contacts and shorter rate runs")
	flag.StringVar(&c.repo, "repo", "..", "the Switchboard source tree to build")
	flag.IntVar(&c.n, "n", 0, "contacts to import (default 1,000,000; 100,000 with -short)")
	flag.DurationVar(&c.rateDur, "rate-time", 0, "how long each rate is measured (default 5s; 2s with -short)")
	flag.StringVar(&c.keep, "keep", "", "work in this directory and keep it (default: a temporary one, removed)")
	flag.BoolVar(&c.sqlite, "sqlite", true, "also load and query SQLite FTS5")
	bareAddr := flag.String("serve-bare", "", "internal: serve the bare net/http baseline on this address")
	flag.Parse()
	if *bareAddr != "" {
		// The baseline runs in a process of its own, like the server it is compared with.
		if err := http.ListenAndServe(*bareAddr, http.HandlerFunc(bareHandler)); err != nil {
			fmt.Fprintln(os.Stderr, "bench: bare server:", err)
			os.Exit(1)
		}
		return
	}
	if c.n == 0 {
		c.n = 1_000_000
		if *short {
			c.n = 100_000
		}
	}
	if c.rateDur == 0 {
		c.rateDur = 5 * time.Second
		if *short {
			c.rateDur = 2 * time.Second
		}
	}
	c.fromNum = "+12025550100"
	if err := run(c); err != nil {
		fmt.Fprintln(os.Stderr, "bench:", err)
		os.Exit(1)
	}
}

func logf(format string, args ...any) {
	fmt.Fprintf(os.Stderr, "bench: "+format+"\n", args...)
}

func run(c config) error {
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
	logf("generating %d contacts", c.n)
	if err := benchgen.WriteCSV(csvPath, c.n, 1, false); err != nil {
		return err
	}
	csvInfo, err := os.Stat(csvPath)
	if err != nil {
		return err
	}
	data := filepath.Join(dir, "data")
	_ = os.RemoveAll(data)
	admin := func(args ...string) (string, error) {
		cmd := exec.Command(bin, append([]string{"admin", args[0], "-data", data}, args[1:]...)...)
		var out, errb bytes.Buffer
		cmd.Stdout, cmd.Stderr = &out, &errb
		if err := cmd.Run(); err != nil {
			return "", fmt.Errorf("admin %s: %w: %s", args[0], err, errb.String())
		}
		return strings.TrimSpace(out.String()), nil
	}
	user, err := admin("create-user", "--email", "bench@example.com", "--name", "Bench")
	if err != nil {
		return err
	}
	ws, err := admin("create-workspace", "--name", "Bench")
	if err != nil {
		return err
	}
	if _, err := admin("add-member", "--workspace", ws, "--user", user); err != nil {
		return err
	}
	if _, err := admin("add-number", "--workspace", ws, "--phone", c.fromNum); err != nil {
		return err
	}
	token, err := admin("create-token", "--user", user)
	if err != nil {
		return err
	}
	logf("importing %s (%d MB) with admin import-contacts", csvPath, csvInfo.Size()>>20)
	start := time.Now()
	out, err := admin("import-contacts", "--workspace", ws, csvPath)
	if err != nil {
		return err
	}
	importTime := time.Since(start)
	if !strings.HasPrefix(out, fmt.Sprintf("imported %d,", c.n)) {
		return fmt.Errorf("import: %s", out)
	}
	dbInfo, err := os.Stat(filepath.Join(data, "switchboard.db"))
	if err != nil {
		return err
	}
	r := &report{cores: runtime.NumCPU(), n: c.n}
	r.row("import", fmt.Sprintf("%.0f rows/s (%s for %d rows)", float64(c.n)/importTime.Seconds(), importTime.Round(time.Second), c.n), "", "≥ 10,000 rows/s")
	r.row("database file ÷ contacts", fmt.Sprintf("%.0f B (%d MB file, CSV %d MB)", float64(dbInfo.Size())/float64(c.n), dbInfo.Size()>>20, csvInfo.Size()>>20), "", "≤ 512 B")

	// The server.
	addr, err := freeAddr()
	if err != nil {
		return err
	}
	logFile, err := os.Create(filepath.Join(dir, "serve.log"))
	if err != nil {
		return err
	}
	defer logFile.Close()
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	serve := exec.CommandContext(ctx, bin, "serve", "-addr", addr, "-data", data, "-rate-limit", "0", "-base-url", "http://"+addr)
	serve.Stdout, serve.Stderr = logFile, logFile
	serve.Cancel = func() error { return serve.Process.Signal(os.Interrupt) }
	serve.WaitDelay = 10 * time.Second
	if err := serve.Start(); err != nil {
		return err
	}
	defer func() { cancel(); _ = serve.Wait() }()
	base := "http://" + addr
	if err := waitReady(base + "/readyz"); err != nil {
		return err
	}
	api := &apiClient{http: newClient(), base: base + "/v1/integrations/developer/zapier/", token: token, ws: ws}

	// Search.
	kinds := searchKinds(c.n)
	logf("searching over HTTP: %d query kinds", len(kinds))
	var slowest []timed
	results := map[string][]time.Duration{}
	r.note("load average before the searches: " + loadAvg())
	// One pass unmeasured (the server's first minutes: its page cache and heap warm up), then
	// every query kind twice.
	for pass := range 3 {
		for _, k := range kinds {
			for _, q := range k.queries {
				t0 := time.Now()
				if _, err := api.search(q); err != nil {
					return err
				}
				d := time.Since(t0)
				if pass > 0 {
					results[k.name] = append(results[k.name], d)
					slowest = append(slowest, timed{k.name + " " + q, d})
				}
			}
		}
	}
	r.note("load average after the searches: " + loadAvg())
	for _, k := range kinds {
		p50, p99, maxd := percentiles(results[k.name])
		r.row("search "+k.name+" ("+k.example+")", fmt.Sprintf("p50 %s p99 %s max %s (%d searches)", ms(p50), ms(p99), ms(maxd), len(results[k.name])), "", "p99 ≤ 10 ms")
	}
	slices.SortFunc(slowest, func(a, b timed) int { return int(b.d - a.d) })
	for _, s := range slowest[:min(8, len(slowest))] {
		r.note(fmt.Sprintf("slow search: %-32q %s", s.what, ms(s.d)))
	}

	// send-message, durable, to new and existing recipients, at concurrency 32, against raw
	// bbolt DB.Batch puts of 600-byte values at the same concurrency on the same disk.
	const sendConc = 32
	text := "Your order #12345 has shipped and will arrive on Tuesday. Reply STOP to opt out."
	rawBefore, err := boltBatchRate(dir, sendConc, c.rateDur)
	if err != nil {
		return err
	}
	var newSeq atomic.Uint64
	newRate, err := rateFor(sendConc, c.rateDur, func() error {
		to := fmt.Sprintf("+4470%08d", newSeq.Add(1))
		return api.post("send-message-action", map[string]any{"from": c.fromNum, "to": to, "text": text}, http.StatusAccepted)
	})
	if err != nil {
		return fmt.Errorf("send-message to new recipients: %w", err)
	}
	existing := existingPhones(2000)
	var exSeq atomic.Uint64
	exRate, err := rateFor(sendConc, c.rateDur, func() error {
		to := existing[exSeq.Add(1)%uint64(len(existing))]
		return api.post("send-message-action", map[string]any{"from": c.fromNum, "to": to, "text": text}, http.StatusAccepted)
	})
	if err != nil {
		return fmt.Errorf("send-message to existing recipients: %w", err)
	}
	rawAfter, err := boltBatchRate(dir, sendConc, c.rateDur)
	if err != nil {
		return err
	}
	raw := (rawBefore + rawAfter) / 2
	r.row("raw bbolt DB.Batch 600-byte puts, concurrency 32", fmt.Sprintf("%.0f puts/s", raw), "", "baseline")
	r.row("send-message, new recipients", fmt.Sprintf("%.0f msgs/s = %.2f× raw", newRate, newRate/raw), "", "≥ 0.7×")
	r.row("send-message, existing recipients", fmt.Sprintf("%.0f msgs/s = %.2f× raw", exRate, exRate/raw), "", "≥ 0.7×")

	// create-conversation on an existing pair against a bare net/http JSON handler, same
	// client, concurrency 16.
	const convConc = 16
	pair := map[string]any{"from": c.fromNum, "to": existing[0]}
	if err := api.post("create-conversation-action", pair, 0); err != nil {
		return err
	}
	bareURL, stopBare, err := startBare()
	if err != nil {
		return err
	}
	defer stopBare()
	bare := &apiClient{http: api.http, base: bareURL + "/", token: token, ws: ws}
	bareFn := func() error { return bare.post("x", pair, http.StatusOK) }
	bareBefore, err := rateFor(convConc, c.rateDur/2, bareFn)
	if err != nil {
		return err
	}
	convRate, err := rateFor(convConc, c.rateDur, func() error { return api.post("create-conversation-action", pair, http.StatusOK) })
	if err != nil {
		return fmt.Errorf("create-conversation: %w", err)
	}
	bareAfter, err := rateFor(convConc, c.rateDur/2, bareFn)
	if err != nil {
		return err
	}
	bareRate := (bareBefore + bareAfter) / 2
	r.row("create-conversation, existing pair", fmt.Sprintf("%.0f req/s = %.2f× bare net/http (%.0f req/s)", convRate, convRate/bareRate, bareRate), "", "≥ 0.5×")

	cancel()
	_ = serve.Wait()

	if c.sqlite {
		logf("loading SQLite FTS5")
		if err := sqliteSide(r, dir, csvPath, c.n, kinds); err != nil {
			return fmt.Errorf("sqlite: %w", err)
		}
	}
	r.print(os.Stdout)
	return nil
}

// ---- reporting ----

type timed struct {
	what string
	d    time.Duration
}

type report struct {
	cores int
	n     int
	rows  [][4]string
	notes []string
}

func (r *report) row(figure, measured, sqlite, target string) {
	for i := range r.rows {
		if r.rows[i][0] == figure {
			if measured != "" {
				r.rows[i][1] = measured
			}
			if sqlite != "" {
				r.rows[i][2] = sqlite
			}
			return
		}
	}
	r.rows = append(r.rows, [4]string{figure, measured, sqlite, target})
}

func (r *report) note(s string) { r.notes = append(r.notes, s) }

func (r *report) print(w io.Writer) {
	fmt.Fprintf(w, "\nSwitchboard, %d contacts, %d cores, %s\n\n", r.n, r.cores, runtime.Version())
	fmt.Fprintln(w, "| figure | measured | SQLite FTS5, same contacts and queries | target |")
	fmt.Fprintln(w, "|---|---|---|---|")
	for _, row := range r.rows {
		fmt.Fprintf(w, "| %s | %s | %s | %s |\n", row[0], row[1], row[2], row[3])
	}
	fmt.Fprintln(w)
	for _, n := range r.notes {
		fmt.Fprintln(w, n)
	}
}

func ms(d time.Duration) string { return fmt.Sprintf("%.2f ms", float64(d.Microseconds())/1000) }

func percentiles(ds []time.Duration) (p50, p99, maxd time.Duration) {
	if len(ds) == 0 {
		return 0, 0, 0
	}
	s := slices.Clone(ds)
	slices.Sort(s)
	at := func(p float64) time.Duration { return s[min(len(s)-1, int(p*float64(len(s))))] }
	return at(0.50), at(0.99), s[len(s)-1]
}

// ---- queries ----

type kind struct {
	name, example string
	queries       []string
}

// searchKinds are the query kinds of DESIGN §9 and the issue, drawn from the generated
// contacts so that they match what is there (and from nothing, for no match).
func searchKinds(n int) []kind {
	g := benchgen.New(7)
	r := rand.New(rand.NewPCG(7, 7))
	var k3, k12, two, digits, email, emailDigit []string
	seen := map[string]bool{}
	add := func(list *[]string, q string) {
		if !seen[q] {
			seen[q] = true
			*list = append(*list, q)
		}
	}
	for _, q := range []string{"mat", "joh", "mar", "jen", "gar", "rob", "sar", "wil", "lop", "ngu", "mül", "kat"} {
		add(&k3, q)
	}
	for _, q := range []string{"a", "e", "j", "m", "s", "z", "jo", "ma", "an", "da", "el", "li", "ro", "sa", "ch", "ke"} {
		add(&k12, q)
	}
	for range 400 {
		c := g.Next()
		first, last := benchgen.EmailPart(c.First), benchgen.EmailPart(c.Last)
		if len(first) >= 3 && len(k3) < 150 {
			add(&k3, first[:3])
		}
		if len(last) >= 3 && len(k3) < 150 {
			add(&k3, last[:3])
		}
		if len(first) >= 3 && len(last) >= 3 && len(two) < 150 {
			add(&two, first[:3]+" "+last[:3])
		}
		if len(digits) < 150 {
			add(&digits, fmt.Sprintf("%04d", r.IntN(10_000)))
		}
		if len(email) < 150 {
			add(&email, first+"."+last[:min(2, len(last))])
		}
		if len(emailDigit) < 150 {
			// first.last+N as typed up to the first digit of N: the digit word is common.
			add(&emailDigit, first+"."+last+"+"+fmt.Sprint(1+r.IntN(9)))
		}
	}
	add(&two, "mat gar")
	add(&emailDigit, "lisa.king+4")
	return []kind{
		{"3-letter prefix", "Mat", k3},
		{"1–2-letter prefix", "a, Jo", k12},
		{"two word prefixes", "mat gar", two},
		{"4 phone digits", "0147", digits},
		{"e-mail prefix", "lisa.ki", email},
		{"e-mail prefix ending in a digit", "lisa.king+4", emailDigit},
		{"no match", "zzqxv", []string{"zzqxv", "qqq", "xylophonist", "zz top", "9999999999999", "kkk jjj"}},
	}
}

// existingPhones are the phones of the first n imported contacts.
func existingPhones(n int) []string {
	g := benchgen.New(1)
	out := make([]string, n)
	for i := range out {
		out[i] = g.Next().Phone
	}
	return out
}

// ---- HTTP ----

func freeAddr() (string, error) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return "", err
	}
	defer l.Close()
	return l.Addr().String(), nil
}

func waitReady(url string) error {
	deadline := time.Now().Add(60 * time.Second)
	for time.Now().Before(deadline) {
		res, err := http.Get(url)
		if err == nil {
			res.Body.Close()
			if res.StatusCode == http.StatusOK {
				return nil
			}
		}
		time.Sleep(50 * time.Millisecond)
	}
	return errors.New("the server did not become ready in 60 s")
}

func newClient() *http.Client {
	return &http.Client{Timeout: 30 * time.Second,
		Transport: &http.Transport{MaxIdleConns: 256, MaxIdleConnsPerHost: 256}}
}

type apiClient struct {
	http            *http.Client
	base, token, ws string
}

func (a *apiClient) do(action string, body map[string]any) (int, []byte, error) {
	full := map[string]any{"id": a.ws, "developerProvider": "zapier"} // body is shared by goroutines
	for k, v := range body {
		full[k] = v
	}
	data, err := json.Marshal(full)
	if err != nil {
		return 0, nil, err
	}
	req, err := http.NewRequest(http.MethodPost, a.base+action, bytes.NewReader(data))
	if err != nil {
		return 0, nil, err
	}
	req.Header.Set("Authorization", "Bearer "+a.token)
	req.Header.Set("Content-Type", "application/json")
	res, err := a.http.Do(req)
	if err != nil {
		return 0, nil, err
	}
	defer res.Body.Close()
	out, err := io.ReadAll(res.Body)
	return res.StatusCode, out, err
}

// post calls action and wants status (any 2xx when 0).
func (a *apiClient) post(action string, body map[string]any, want int) error {
	status, out, err := a.do(action, body)
	if err != nil {
		return err
	}
	if (want == 0 && status/100 != 2) || (want != 0 && status != want) {
		return fmt.Errorf("%s: status %d: %s", action, status, out)
	}
	return nil
}

func (a *apiClient) search(q string) (int, error) {
	status, out, err := a.do("find-contact-action", map[string]any{"searchText": q})
	if err != nil {
		return 0, err
	}
	if status != http.StatusOK {
		return 0, fmt.Errorf("search %q: status %d: %s", q, status, out)
	}
	var res []json.RawMessage
	if err := json.Unmarshal(out, &res); err != nil {
		return 0, err
	}
	return len(res), nil
}

// bareHandler is the baseline: a plain net/http handler that decodes a JSON body and answers a
// conversation-shaped JSON object, with nothing else.
func bareHandler(w http.ResponseWriter, r *http.Request) {
	var in map[string]any
	if err := json.NewDecoder(http.MaxBytesReader(w, r.Body, 1<<20)).Decode(&in); err != nil {
		http.Error(w, "bad json", http.StatusBadRequest)
		return
	}
	out := map[string]any{"from": in["from"], "id": "01J00000000000000000000000", "to": in["to"], "workspaceId": in["id"]}
	w.Header().Set("Content-Type", "application/json; charset=utf-8")
	_ = json.NewEncoder(w).Encode(out)
}

// startBare starts this program again as the bare baseline server, in its own process as the
// Switchboard server is, and returns its URL and a function that stops it.
func startBare() (string, func(), error) {
	addr, err := freeAddr()
	if err != nil {
		return "", nil, err
	}
	self, err := os.Executable()
	if err != nil {
		return "", nil, err
	}
	cmd := exec.Command(self, "-serve-bare", addr)
	cmd.Stderr = os.Stderr
	if err := cmd.Start(); err != nil {
		return "", nil, err
	}
	stop := func() { _ = cmd.Process.Kill(); _ = cmd.Wait() }
	deadline := time.Now().Add(10 * time.Second)
	for {
		c, err := net.Dial("tcp", addr)
		if err == nil {
			c.Close()
			return "http://" + addr, stop, nil
		}
		if time.Now().After(deadline) {
			stop()
			return "", nil, fmt.Errorf("bare server: %w", err)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// rateFor calls fn from n goroutines for about d and returns the calls per second.
func rateFor(n int, d time.Duration, fn func() error) (float64, error) {
	var count atomic.Int64
	var wg sync.WaitGroup
	var failed atomic.Pointer[error]
	start := time.Now()
	stop := start.Add(d)
	for range n {
		wg.Go(func() {
			for time.Now().Before(stop) && failed.Load() == nil {
				if err := fn(); err != nil {
					failed.CompareAndSwap(nil, &err)
					return
				}
				count.Add(1)
			}
		})
	}
	wg.Wait()
	if p := failed.Load(); p != nil {
		return 0, *p
	}
	return float64(count.Load()) / time.Since(start).Seconds(), nil
}

// boltBatchRate is raw bbolt: concurrent DB.Batch puts of 600-byte values in a fresh file in
// dir, for about d.
func boltBatchRate(dir string, concurrency int, d time.Duration) (float64, error) {
	path := filepath.Join(dir, "raw-bolt.db")
	_ = os.Remove(path)
	defer os.Remove(path)
	db, err := bolt.Open(path, 0o600, nil)
	if err != nil {
		return 0, err
	}
	defer db.Close()
	bucket := []byte("b")
	if err := db.Update(func(tx *bolt.Tx) error { _, err := tx.CreateBucket(bucket); return err }); err != nil {
		return 0, err
	}
	value := bytes.Repeat([]byte("v"), 600)
	var seq atomic.Uint64
	return rateFor(concurrency, d, func() error {
		k := binary.BigEndian.AppendUint64(nil, seq.Add(1))
		return db.Batch(func(tx *bolt.Tx) error { return tx.Bucket(bucket).Put(k, value) })
	})
}

// ---- SQLite FTS5 ----

// sqliteSide loads the same CSV into SQLite: a contacts table and a contentless FTS5 index of
// the names, company, e-mail and every 4-digit run of the phone (prefix indexes 2–4), then runs
// the same queries in the same order (first name, last name, id; at most 100).
func sqliteSide(r *report, dir, csvPath string, n int, kinds []kind) error {
	path := filepath.Join(dir, "fts.sqlite")
	_ = os.Remove(path)
	defer os.Remove(path)
	db, err := sql.Open("sqlite", path)
	if err != nil {
		return err
	}
	defer db.Close()
	db.SetMaxOpenConns(1)
	for _, stmt := range []string{
		`PRAGMA journal_mode=WAL`,
		`PRAGMA synchronous=NORMAL`,
		`CREATE TABLE contacts (id INTEGER PRIMARY KEY, first TEXT, last TEXT, phone TEXT, email TEXT, company TEXT, sortkey TEXT)`,
		`CREATE INDEX contacts_order ON contacts (sortkey, id)`,
		`CREATE VIRTUAL TABLE fts USING fts5 (first, last, company, email, grams, content='', prefix='2 3 4', tokenize='unicode61 remove_diacritics 2')`,
	} {
		if _, err := db.Exec(stmt); err != nil {
			return fmt.Errorf("%s: %w", stmt, err)
		}
	}
	f, err := os.Open(csvPath)
	if err != nil {
		return err
	}
	defer f.Close()
	rows, err := readCSV(f)
	if err != nil {
		return err
	}
	start := time.Now()
	tx, err := db.Begin()
	if err != nil {
		return err
	}
	ins, err := tx.Prepare(`INSERT INTO contacts (id, first, last, phone, email, company, sortkey) VALUES (?, ?, ?, ?, ?, ?, ?)`)
	if err != nil {
		return err
	}
	insFTS, err := tx.Prepare(`INSERT INTO fts (rowid, first, last, company, email, grams) VALUES (?, ?, ?, ?, ?, ?)`)
	if err != nil {
		return err
	}
	for i, row := range rows {
		id := i + 1
		first, last, phone, email, company := row[0], row[1], row[2], row[3], row[4]
		sortkey := strings.ToLower(benchgen.EmailPart(first)) + "\x01" + strings.ToLower(benchgen.EmailPart(last))
		if _, err := ins.Exec(id, first, last, phone, email, company, sortkey); err != nil {
			return err
		}
		if _, err := insFTS.Exec(id, first, last, company, email, grams(phone)); err != nil {
			return err
		}
	}
	if err := tx.Commit(); err != nil {
		return err
	}
	load := time.Since(start)
	if _, err := db.Exec(`PRAGMA wal_checkpoint(TRUNCATE)`); err != nil {
		return err
	}
	info, err := os.Stat(path)
	if err != nil {
		return err
	}
	r.row("import", "", fmt.Sprintf("%.0f rows/s load", float64(n)/load.Seconds()), "")
	r.row("database file ÷ contacts", "", fmt.Sprintf("%.0f B", float64(info.Size())/float64(n)), "")
	q, err := db.Prepare(`SELECT c.id, c.first, c.last, c.phone, c.email, c.company FROM fts JOIN contacts c ON c.id = fts.rowid
		WHERE fts MATCH ? ORDER BY c.sortkey, c.id LIMIT 100`)
	if err != nil {
		return err
	}
	for _, k := range kinds {
		var ds []time.Duration
		for range 2 {
			for _, text := range k.queries {
				m := ftsQuery(text)
				t0 := time.Now()
				if m != "" {
					rs, err := q.Query(m)
					if err != nil {
						return fmt.Errorf("%q: %w", m, err)
					}
					for rs.Next() {
						var id int
						var a, b, c, d, e string
						if err := rs.Scan(&id, &a, &b, &c, &d, &e); err != nil {
							return err
						}
					}
					rs.Close()
				}
				ds = append(ds, time.Since(t0))
			}
		}
		p50, p99, _ := percentiles(ds)
		r.row("search "+k.name+" ("+k.example+")", "", fmt.Sprintf("p50 %s p99 %s (in process)", ms(p50), ms(p99)), "")
	}
	return nil
}

// grams is every 4-digit run of a phone's digits, as FTS5 tokens.
func grams(phone string) string {
	d := strings.Map(func(r rune) rune {
		if r >= '0' && r <= '9' {
			return r
		}
		return -1
	}, phone)
	var g []string
	for i := 0; i+4 <= len(d); i++ {
		g = append(g, "g"+d[i:i+4])
	}
	return strings.Join(g, " ")
}

// ftsQuery turns a search text into an FTS5 query with Switchboard's word rules: text words are
// prefixes of a word of the names, company or e-mail; a 4-digit word is a gram of the phone.
func ftsQuery(text string) string {
	var parts []string
	for _, piece := range strings.Fields(text) {
		digits := strings.Map(func(r rune) rune {
			if strings.ContainsRune("+-().", r) {
				return -1
			}
			return r
		}, piece)
		if digits != "" && strings.Trim(digits, "0123456789") == "" {
			if len(digits) >= 4 {
				parts = append(parts, `grams:"g`+digits[:4]+`"`)
			}
			continue
		}
		for _, w := range strings.FieldsFunc(strings.ToLower(piece), func(r rune) bool { return strings.ContainsRune(" @._-+'&/", r) }) {
			parts = append(parts, `{first last company email}:"`+strings.ReplaceAll(w, `"`, `""`)+`"*`)
		}
	}
	return strings.Join(parts, " AND ")
}

// readCSV reads the generated file's rows without its header.
func readCSV(r io.Reader) ([][]string, error) {
	cr := csv.NewReader(r)
	all, err := cr.ReadAll()
	if err != nil {
		return nil, err
	}
	if len(all) == 0 {
		return nil, errors.New("empty CSV")
	}
	return all[1:], nil
}

// loadAvg is the machine's load average (Linux), to read the figures against: the benchmark
// shares its cores with whatever else runs.
func loadAvg() string {
	data, err := os.ReadFile("/proc/loadavg")
	if err != nil {
		return "unknown"
	}
	f := strings.Fields(string(data))
	if len(f) < 3 {
		return "unknown"
	}
	return strings.Join(f[:3], " ")
}
