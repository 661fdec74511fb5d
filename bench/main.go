// Command bench measures Switchboard from outside, the way a user meets it (`make bench`): it
// builds the binary, imports generated contacts with `switchboard admin import-contacts`,
// starts `switchboard serve` on a free loopback port and measures over HTTP, beside the
// baselines the performance targets are stated against (raw bbolt DB.Batch puts, a bare
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
	"flag"
	"fmt"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"sync/atomic"
	"time"

	_ "modernc.org/sqlite"

	"switchboard/internal/benchgen"
)

type config struct {
	repo     string
	n        int
	rateDur  time.Duration
	keep     string
	sqlite   bool
	live     bool
	liveOnly bool
	liveSet  string
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
	flag.BoolVar(&c.live, "live", true, "also measure the live inbox, the mixed load, import and export through the server (live*.go)")
	flag.BoolVar(&c.liveOnly, "live-only", false, "only the live rows, on the seeded database SWITCHBOARD_BENCH_1M_DB keeps")
	flag.StringVar(&c.liveSet, "live-rows", "push,search,thread,mixed,data", "which live rows to measure")
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
	run := run
	if c.liveOnly {
		run = runLiveOnly
	}
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
	// A second member, whose requests the hammer row times while the first token hammers.
	other, err := admin("create-user", "--email", "other@example.com", "--name", "Other")
	if err != nil {
		return err
	}
	if _, err := admin("add-member", "--workspace", ws, "--user", other); err != nil {
		return err
	}
	otherToken, err := admin("create-token", "--user", other)
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
	r.note("load average at the start: " + loadAvg())
	r.row("import", fmt.Sprintf("%.0f rows/s (%s for %d rows)", float64(c.n)/importTime.Seconds(), importTime.Round(time.Second), c.n), "", "≥ 10,000 rows/s")
	bytesPerContact := fmt.Sprintf("%.0f B (%d MB file, CSV %d MB)", float64(dbInfo.Size())/float64(c.n), dbInfo.Size()>>20, csvInfo.Size()>>20)
	r.row("database file ÷ contacts", bytesPerContact, "", "≤ 512 B (§8), ≤ 400 B (§29)")

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
	// The load comes from one address here: the per-client connection bound is lifted, like
	// the per-token rate limit, so that the rows measure the server.
	serve := exec.CommandContext(ctx, bin, "serve", "-addr", addr, "-data", data, "-rate-limit", "0", "-base-url", "http://"+addr,
		"-max-conns-per-ip", "0")
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
	kinds := append(searchKinds(c.n), adversarialKinds()...)
	logf("searching over HTTP: %d query kinds", len(kinds))
	var slowest []timed
	const searchRuns = 3
	results := map[string][][]time.Duration{} // kind → run → durations
	r.note("load average before the searches: " + loadAvg())
	// One pass unmeasured (the server's first minutes: its page cache and heap warm up), then
	// every query kind searchRuns times; the worst run's p99 is what the target is held to.
	for pass := range searchRuns + 1 {
		for _, k := range kinds {
			if pass > 0 && len(results[k.name]) < pass {
				results[k.name] = append(results[k.name], nil)
			}
			for _, q := range k.queries {
				t0 := time.Now()
				if _, err := api.search(q); err != nil {
					return err
				}
				d := time.Since(t0)
				if pass > 0 {
					results[k.name][pass-1] = append(results[k.name][pass-1], d)
					slowest = append(slowest, timed{k.name + " \x00" + q, d})
				}
			}
		}
	}
	r.note("load average after the searches: " + loadAvg())
	ours := map[string]kindFigures{}
	for _, s := range slowest {
		name, q, _ := strings.Cut(s.what, " \x00")
		if f := ours[name]; s.d > f.max {
			ours[name] = kindFigures{max: s.d, slowest: q}
		}
	}
	for _, k := range kinds {
		var worstP50, worstP99, worstMax time.Duration
		var all []string
		for _, run := range results[k.name] {
			p50, p99, maxd := percentiles(run)
			worstP50, worstP99, worstMax = max(worstP50, p50), max(worstP99, p99), max(worstMax, maxd)
			all = append(all, ms(p99))
		}
		f := ours[k.name]
		f.p99 = worstP99
		ours[k.name] = f
		target := "p99 ≤ 10 ms"
		if strings.HasPrefix(k.name, "adversarial") {
			target = "p99 ≤ 10 ms, max ≤ 50 ms"
		}
		r.row("search "+k.name+" ("+k.example+")", fmt.Sprintf("worst of %d runs: p50 %s p99 %s max %s (p99 per run: %s; %d queries)",
			len(results[k.name]), ms(worstP50), ms(worstP99), ms(worstMax), strings.Join(all, ", "), len(k.queries)), "", target)
	}
	slices.SortFunc(slowest, func(a, b timed) int { return int(b.d - a.d) })
	for _, s := range slowest[:min(8, len(slowest))] {
		name, q, _ := strings.Cut(s.what, " \x00")
		r.note(fmt.Sprintf("slow search: %-32q %s", name+" "+q, ms(s.d)))
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
	// The sends leave their copies to the dispatcher: let it finish first, so that the raw puts
	// after them and the create-conversation row measure themselves, not themselves beside the
	// dispatch of the sends' backlog.
	drained, err := (&sbServer{base: base}).waitDrained(3 * time.Minute)
	if err != nil {
		return err
	}
	r.note(fmt.Sprintf("the sends' backlog was dispatched %s after the last send", drained.Round(100*time.Millisecond)))
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
	// Three runs, each the bare handler before and after create-conversation (averaged, so that
	// a change of the machine's load falls on both); the worst run's ratio is the figure.
	conv, worstRatio := "", 0.0
	var ratios []string
	for run := range 3 {
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
		ratio := convRate / bareRate
		ratios = append(ratios, fmt.Sprintf("%.2f×", ratio))
		if run == 0 || ratio < worstRatio {
			worstRatio = ratio
			conv = fmt.Sprintf("%.0f req/s = %.2f× bare net/http (%.0f req/s)", convRate, ratio, bareRate)
		}
	}
	conv += " worst of 3 runs: " + strings.Join(ratios, ", ") + "; load " + loadAvg()
	r.row("create-conversation, existing pair", conv, "", "≥ 0.5× (§9), ≥ 0.6× (§29)")

	cancel()
	_ = serve.Wait()

	var worst []string
	for _, k := range adversarialKinds() {
		worst = append(worst, k.queries...)
	}
	logf("one token hammering the costliest searches, another user timed")
	if err := hammerRow(r, bin, data, token, otherToken, ws, c.fromNum, existing[1], worst, kinds[0].queries, 2*c.rateDur); err != nil {
		return fmt.Errorf("hammer: %w", err)
	}

	if c.live {
		if err := liveRows(r, liveEnv{bin: bin, dir: dir, csv: csvPath, data: data, ws: ws, number: c.fromNum, n: c.n, rows: c.liveSet}); err != nil {
			return fmt.Errorf("live rows: %w", err)
		}
	}
	lite := map[string]kindFigures{}
	liteBytes := ""
	if c.sqlite {
		logf("loading SQLite FTS5")
		if lite, liteBytes, err = sqliteSide(r, dir, csvPath, c.n, kinds); err != nil {
			return fmt.Errorf("sqlite: %w", err)
		}
	}
	r.focusRows(ours, lite, conv, bytesPerContact, liteBytes)
	r.print(os.Stdout)
	return nil
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
