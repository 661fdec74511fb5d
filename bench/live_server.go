package main

import (
	"bufio"
	"bytes"
	"context"
	"fmt"
	"io"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"time"
)

// ---- a `switchboard serve` of the benchmark's own, and what it costs ----

// sbServer is one running `switchboard serve` on a data directory.
type sbServer struct {
	base, data string
	cmd        *exec.Cmd
	cancel     context.CancelFunc
	log        *os.File
	stopped    bool
}

// startSB serves data on a free loopback port (no request logs, no API rate limit) and
// waits until it is ready. The live rows open hundreds of GET /events streams from one session
// on one address, to measure what a stream costs the server, not how a team spreads them:
// the per-client connection and per-session and per-user stream bounds are lifted.
func startSB(bin, data, logPath string) (*sbServer, error) {
	addr, err := freeAddr()
	if err != nil {
		return nil, err
	}
	logFile, err := os.Create(logPath)
	if err != nil {
		return nil, err
	}
	ctx, cancel := context.WithCancel(context.Background())
	cmd := exec.CommandContext(ctx, bin, "serve", "-addr", addr, "-data", data, "-rate-limit", "0",
		"-log-requests=false", "-base-url", "http://"+addr,
		"-max-conns-per-ip", "0", "-max-streams-per-session", "0", "-max-streams-per-user", "0")
	cmd.Stdout, cmd.Stderr = logFile, logFile
	cmd.Cancel = func() error { return cmd.Process.Signal(os.Interrupt) }
	cmd.WaitDelay = 30 * time.Second
	if err := cmd.Start(); err != nil {
		cancel()
		logFile.Close()
		return nil, err
	}
	s := &sbServer{base: "http://" + addr, data: data, cmd: cmd, cancel: cancel, log: logFile}
	if err := waitReady(s.base + "/readyz"); err != nil {
		s.stop()
		return nil, fmt.Errorf("%w (log: %s)", err, logPath)
	}
	return s, nil
}

// stop interrupts the server and waits for it to exit (it finishes what it holds first); once.
func (s *sbServer) stop() {
	if s.stopped {
		return
	}
	s.stopped = true
	s.cancel()
	_ = s.cmd.Wait()
	s.log.Close()
}

// rssAnon is the server's anonymous resident memory in bytes (RssAnon of /proc/PID/status):
// its heap, stacks and buffers, without the file-backed pages of the mapped database.
func (s *sbServer) rssAnon() (int64, error) {
	f, err := os.Open(fmt.Sprintf("/proc/%d/status", s.cmd.Process.Pid))
	if err != nil {
		return 0, err
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		if rest, ok := strings.CutPrefix(sc.Text(), "RssAnon:"); ok {
			kb, err := strconv.ParseInt(strings.TrimSpace(strings.TrimSuffix(strings.TrimSpace(rest), "kB")), 10, 64)
			return kb << 10, err
		}
	}
	return 0, fmt.Errorf("no RssAnon in /proc/%d/status", s.cmd.Process.Pid)
}

// peakRSS samples rssAnon every 20 ms until stop is closed and returns the highest value.
func (s *sbServer) peakRSS(stop <-chan struct{}) <-chan int64 {
	out := make(chan int64, 1)
	go func() {
		var peak int64
		t := time.NewTicker(20 * time.Millisecond)
		defer t.Stop()
		for {
			if v, err := s.rssAnon(); err == nil {
				peak = max(peak, v)
			}
			select {
			case <-stop:
				out <- peak
				return
			case <-t.C:
			}
		}
	}()
	return out
}

// metric reads one series of the server's /metrics (0 when it is not there yet).
func (s *sbServer) metric(series string) (float64, error) {
	res, err := http.Get(s.base + "/metrics")
	if err != nil {
		return 0, err
	}
	defer res.Body.Close()
	body, err := io.ReadAll(res.Body)
	if err != nil {
		return 0, err
	}
	for _, line := range strings.Split(string(body), "\n") {
		if rest, ok := strings.CutPrefix(line, series+" "); ok {
			return strconv.ParseFloat(strings.TrimSpace(rest), 64)
		}
	}
	return 0, nil
}

// waitDrained waits until the server's outbox is empty (every queued message handed to the
// carrier and its outcome recorded), up to limit.
func (s *sbServer) waitDrained(limit time.Duration) (time.Duration, error) {
	start := time.Now()
	for {
		depth, err := s.metric("switchboard_outbox_depth")
		if err != nil {
			return 0, err
		}
		if depth == 0 {
			return time.Since(start), nil
		}
		if time.Since(start) > limit {
			return 0, fmt.Errorf("the outbox still holds %.0f messages after %s", depth, limit)
		}
		time.Sleep(100 * time.Millisecond)
	}
}

// runAdmin runs `switchboard admin CMD -data DATA ARGS…` and returns its standard output: directly
// on the file when no server holds it, else (import, export, backup) through the server.
func runAdmin(bin, data string, args ...string) (string, error) {
	cmd := exec.Command(bin, append([]string{"admin", args[0], "-data", data}, args[1:]...)...)
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	if err := cmd.Run(); err != nil {
		return "", fmt.Errorf("admin %s: %w: %s", args[0], err, errb.String())
	}
	return strings.TrimSpace(out.String()), nil
}

// copyFile copies a database file that no process holds.
func copyFile(from, to string) error {
	in, err := os.Open(from)
	if err != nil {
		return err
	}
	defer in.Close()
	if err := os.MkdirAll(filepath.Dir(to), 0o755); err != nil {
		return err
	}
	out, err := os.Create(to)
	if err != nil {
		return err
	}
	if _, err := io.Copy(out, in); err != nil {
		out.Close()
		return err
	}
	return out.Close()
}

func mb(b int64) string { return fmt.Sprintf("%.1f MB", float64(b)/(1<<20)) }

// runBackup writes a hot copy of the running server's database to file with `switchboard
// backup` (the file the binary itself writes).
func runBackup(bin, data, file string) (string, error) {
	out, err := exec.Command(bin, "backup", "-data", data, file).CombinedOutput()
	return string(out), err
}
