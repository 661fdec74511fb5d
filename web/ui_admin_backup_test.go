package web

import (
	"context"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"switchboard/backup"
)

// /admin/backup lists the scheduled backups at -backup-url beside the download, and shows a
// failing backup until one succeeds again.
func TestUIAdminBackupListsScheduledBackups(t *testing.T) {
	e := newUIEnv(t)
	su := e.signIn(t, e.superuser(t))
	res, body := e.send(t, su, "GET", "/admin/backup", nil)
	wantStatus(t, "GET /admin/backup without -backup-url", res, body, http.StatusOK, `data-testid="backup-download"`, "Off.")

	dir := filepath.Join(t.TempDir(), "offsite")
	target, err := backup.Open(backup.Config{URL: "file://" + dir})
	if err != nil {
		t.Fatal(err)
	}
	now := time.Date(2026, 11, 25, 17, 45, 0, 0, time.UTC)
	sched := backup.NewScheduler(e.st, target, backup.Options{Keep: 5, Now: func() time.Time { return now }})
	e.srv.Close()
	e.srv = httptest.NewServer(New(e.st, Config{Sessions: e.sess, Backups: sched, BackupRestore: "switchboard restore -data DIR -backup-url file://" + dir + " latest"}))
	t.Cleanup(e.srv.Close)

	// The directory is missing: the backup fails and the page says so.
	if _, err := sched.BackupNow(context.Background()); err == nil {
		t.Fatal("a backup into a missing directory succeeded")
	}
	res, body = e.send(t, su, "GET", "/admin/backup", nil)
	wantStatus(t, "GET /admin/backup after a failure", res, body, http.StatusOK, `data-testid="backup-download"`,
		`data-testid="backup-failure"`, "does not exist", `data-testid="backup-list-error"`, "file://"+dir)

	if err := os.Mkdir(dir, 0o750); err != nil {
		t.Fatal(err)
	}
	for range 2 {
		now = now.Add(time.Hour)
		if _, err := sched.BackupNow(context.Background()); err != nil {
			t.Fatal(err)
		}
	}
	res, body = e.send(t, su, "GET", "/admin/backup", nil)
	wantStatus(t, "GET /admin/backup after two backups", res, body, http.StatusOK, `data-testid="backup-list"`,
		"switchboard-20261125T194500Z.db.gz", "switchboard-20261125T184500Z.db.gz", `data-testid="backup-past-failure"`,
		"switchboard restore -data DIR -backup-url file://"+dir+" latest")
	if strings.Count(body, `data-testid="backup-row"`) != 2 || strings.Contains(body, `data-testid="backup-failure"`) {
		t.Errorf("the page should list two backups and no current failure:\n%s", body)
	}
	if strings.Index(body, "T194500Z") > strings.Index(body, "T184500Z") {
		t.Error("the newest backup is not listed first")
	}
	if !strings.Contains(body, " B</td>") && !strings.Contains(body, " kB</td>") {
		t.Error("the backups' sizes are not shown")
	}
}

func TestHumanBytes(t *testing.T) {
	for n, want := range map[int64]string{0: "0 B", 999: "999 B", 1000: "1.0 kB", 1536000: "1.5 MB", 2_000_000_000: "2.0 GB"} {
		if got := humanBytes(n); got != want {
			t.Errorf("humanBytes(%d) = %q, want %q", n, got, want)
		}
	}
}
