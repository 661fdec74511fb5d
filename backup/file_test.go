package backup_test

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"testing/synctest"
	"time"

	"github.com/prometheus/client_golang/prometheus"

	"switchboard/backup"
)

// The schedule runs on the real timers inside a synctest bubble, whose clock starts at
// 2000-01-01 00:00:00 UTC and moves only when every goroutine waits.
func TestScheduleBacksUpEveryIntervalAndRetriesAFailure(t *testing.T) {
	s, _ := newStore(t, "Acme")
	root := t.TempDir()
	dir := filepath.Join(root, "offsite")
	synctest.Test(t, func(t *testing.T) {
		reg := prometheus.NewRegistry()
		target, err := backup.Open(backup.Config{URL: "file://" + dir})
		if err != nil {
			t.Fatal(err)
		}
		sched := backup.NewScheduler(s, target, backup.Options{Keep: 3, Registry: reg})
		stop := sched.Start(time.Hour)
		defer stop()

		// The directory does not exist yet (the volume is not mounted): the first backup, due at
		// once since there is none, fails and is counted.
		synctest.Wait()
		if got := metric(t, reg, "switchboard_backup_failures_total"); got != 1 {
			t.Fatalf("failures after a backup into a missing directory: %v, want 1", got)
		}
		if st := sched.Status(); !st.Failing() || !strings.Contains(st.LastError, "does not exist") {
			t.Errorf("status: %+v", st)
		}
		if err := os.Mkdir(dir, 0o750); err != nil {
			t.Fatal(err)
		}
		// Retried at the next tick, an hour later, then every hour; the newest three are kept.
		time.Sleep(4*time.Hour + time.Second)
		synctest.Wait()
		want := []string{
			"switchboard-20000101T020000Z.db.gz", "switchboard-20000101T030000Z.db.gz", "switchboard-20000101T040000Z.db.gz",
		}
		if got := backupFiles(t, dir); !slices.Equal(got, want) {
			t.Errorf("backups after four hours: %q, want %q", got, want)
		}
		if got := metric(t, reg, "switchboard_backup_failures_total"); got != 1 {
			t.Errorf("failures: %v, want 1", got)
		}
		if got := metric(t, reg, "switchboard_backup_last_success_timestamp_seconds"); got != float64(time.Date(2000, 1, 1, 4, 0, 0, 0, time.UTC).Unix()) {
			t.Errorf("last success %v, want 04:00", got)
		}
		stop()

		// A server started again 30 minutes after the newest backup makes the next one 30
		// minutes later, not at once, and reports the newest one's time until then.
		time.Sleep(30 * time.Minute)
		reg2 := prometheus.NewRegistry()
		sched2 := backup.NewScheduler(s, target, backup.Options{Keep: 3, Registry: reg2})
		stop2 := sched2.Start(time.Hour)
		defer stop2()
		synctest.Wait()
		if got := metric(t, reg2, "switchboard_backup_last_success_timestamp_seconds"); got != float64(time.Date(2000, 1, 1, 4, 0, 0, 0, time.UTC).Unix()) {
			t.Errorf("last success at start %v, want the newest backup's 04:00", got)
		}
		if got := backupFiles(t, dir); got[len(got)-1] != want[2] {
			t.Errorf("a backup was made at start: %q", got)
		}
		time.Sleep(30 * time.Minute)
		synctest.Wait()
		if got := backupFiles(t, dir); got[len(got)-1] != "switchboard-20000101T050000Z.db.gz" {
			t.Errorf("backups an hour after the newest: %q, want one at 05:00", got)
		}
	})
}

// backupFiles lists the backups in dir, oldest first, and checks each one's .sha256 file.
func backupFiles(t *testing.T, dir string) []string {
	t.Helper()
	entries, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, e := range entries {
		name := e.Name()
		if strings.HasSuffix(name, ".sha256") {
			if _, err := os.Stat(filepath.Join(dir, strings.TrimSuffix(name, ".sha256"))); err != nil {
				t.Errorf("%s is left without its backup", name)
			}
			continue
		}
		if _, ok := backup.ParseName(name); !ok {
			t.Errorf("unexpected file %s in the backup directory", name)
			continue
		}
		data, err := os.ReadFile(filepath.Join(dir, name))
		if err != nil {
			t.Fatal(err)
		}
		recorded, err := os.ReadFile(filepath.Join(dir, name+".sha256"))
		if err != nil {
			t.Errorf("%s has no .sha256 file", name)
		}
		sum := sha256.Sum256(data)
		if want := hex.EncodeToString(sum[:]) + "  " + name + "\n"; string(recorded) != want {
			t.Errorf("%s.sha256 holds %q, want %q (the sha256sum format)", name, recorded, want)
		}
		out = append(out, name)
	}
	return out
}

func TestRetentionLeavesOtherFilesAlone(t *testing.T) {
	s, _ := newStore(t, "Acme")
	dir := t.TempDir()
	for _, other := range []string{"notes.txt", "switchboard-latest.db.gz"} {
		if err := os.WriteFile(filepath.Join(dir, other), []byte("keep me"), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	target, err := backup.Open(backup.Config{URL: "file://" + dir})
	if err != nil {
		t.Fatal(err)
	}
	clk := newClock()
	sched := backup.NewScheduler(s, target, backup.Options{Keep: 1, Now: clk.Now})
	for range 3 {
		if _, err := sched.BackupNow(context.Background()); err != nil {
			t.Fatal(err)
		}
		clk.Advance(time.Minute)
	}
	entries, _ := os.ReadDir(dir)
	var names []string
	for _, e := range entries {
		names = append(names, e.Name())
	}
	want := []string{"notes.txt", "switchboard-20261125T174700Z.db.gz", "switchboard-20261125T174700Z.db.gz.sha256", "switchboard-latest.db.gz"}
	if !slices.Equal(names, want) {
		t.Errorf("directory after three backups with keep 1: %q, want %q", names, want)
	}
}

// endless is a database copy that never ends; it cancels the backup once it has started.
type endless struct{ cancel func() }

func (e endless) Backup(w io.Writer, _ func(int64)) (int64, error) {
	buf := make([]byte, 32<<10)
	for n := int64(0); ; n += int64(len(buf)) {
		if _, err := w.Write(buf); err != nil {
			return n, err
		}
		if n > 1<<20 {
			e.cancel()
		}
	}
}

// A backup cut short by shutdown leaves nothing behind and is not counted as a failure.
func TestBackupCancelledByShutdownLeavesNothing(t *testing.T) {
	dir := t.TempDir()
	target, err := backup.Open(backup.Config{URL: "file://" + dir})
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	reg := prometheus.NewRegistry()
	sched := backup.NewScheduler(endless{cancel}, target, backup.Options{Registry: reg, Now: newClock().Now})
	if _, err := sched.BackupNow(ctx); !errors.Is(err, context.Canceled) {
		t.Fatalf("backup cancelled midway: %v, want context.Canceled", err)
	}
	if got := metric(t, reg, "switchboard_backup_failures_total"); got != 0 {
		t.Errorf("failures %v after a cancelled backup, want 0", got)
	}
	if entries, _ := os.ReadDir(dir); len(entries) != 0 {
		t.Errorf("a cancelled backup left %d files behind", len(entries))
	}
}
