package cli

import (
	"switchboard/internal/testutil"

	"io"
	"net/http"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	offsite "switchboard/backup"
)

// The acceptance drill through the binary: a server backs up every second into a directory,
// data written through the API is in the newest backup, which `restore latest` puts into a new
// data directory where a second server finds it.
func TestBackupScheduleAndRestoreThroughTheBinary(t *testing.T) {
	if testing.Short() {
		t.Skip("runs the binary")
	}
	f := newFixture(t)
	dir := t.TempDir()
	url := "file://" + dir
	addr := "127.0.0.1:" + testutil.FreePort(t)
	srv := startServer(t, addr, nil, "-addr", addr, "-data", f.data, "-log-requests=false", "-rate-limit", "0",
		"-backup-url", url, "-backup-every", "1s", "-backup-keep", "3")
	if !strings.Contains(srv.stdout.String(), "backups:         every 1s to "+url) {
		t.Errorf("the banner does not name the backups:\n%s", srv.stdout)
	}
	var contact struct{ ID string }
	apiOK(t, srv.base, f.token, "create-contact-action", map[string]any{"developerProvider": "zapier", "id": f.ws,
		"firstName": "Bea", "lastName": "Backup", "phone": "+12025550111"}, http.StatusCreated, &contact)
	written := time.Now()

	// Wait for a backup that started after the write (names carry whole seconds of the start).
	var newest string
	deadline := time.Now().Add(20 * time.Second)
	for newest == "" {
		for _, name := range backupNames(t, dir) {
			if tm, _ := offsite.ParseName(name); tm.After(written) {
				newest = name
			}
		}
		if time.Now().After(deadline) {
			t.Fatalf("no backup after the write within 20 s; files %q; server log:\n%s", backupNames(t, dir), srv.stderr)
		}
		time.Sleep(100 * time.Millisecond)
	}
	// Retention holds the directory at three backups once more have been made.
	for len(backupNames(t, dir)) < 3 && time.Now().Before(deadline) {
		time.Sleep(100 * time.Millisecond)
	}
	if n := len(backupNames(t, dir)); n > 4 { // a fourth may exist between its write and the pruning
		t.Errorf("%d backups with -backup-keep 3", n)
	}
	res, err := http.Get(srv.base + "/metrics")
	if err != nil {
		t.Fatal(err)
	}
	metrics, _ := io.ReadAll(res.Body)
	res.Body.Close()
	for _, want := range []string{`switchboard_backup_failures_total 0`, `switchboard_backup_bytes `, `switchboard_backup_last_success_timestamp_seconds 1`} {
		if !strings.Contains(string(metrics), want) {
			t.Errorf("/metrics lacks %q", want)
		}
	}

	// The server holds its database: restore refuses, even with --force, and changes nothing.
	fails(t, "stop the server", "restore", "-data", f.data, "--force", "-backup-url", url, "latest")

	// A new machine: restore the newest backup into an empty data directory.
	data2 := filepath.Join(t.TempDir(), "data")
	r := sb(t, nil, "restore", "-data", data2, "-backup-url", url, "latest")
	if r.code != 0 {
		t.Fatalf("restore latest: exit %d: %s", r.code, r.stderr)
	}
	if !regexp.MustCompile(`^restored .*switchboard-\d{8}T\d{6}Z\.db\.gz \(taken \d{4}-\d\d-\d\d \d\d:\d\d:\d\d UTC, \d+ bytes stored, \d+ bytes of database\) to `).MatchString(r.stdout) {
		t.Errorf("restore printed %q, want the name, time and size", r.stdout)
	}
	addr2 := "127.0.0.1:" + testutil.FreePort(t)
	srv2 := startServer(t, addr2, nil, "-addr", addr2, "-data", data2, "-log-requests=false")
	var found []struct{ ID, FirstName string }
	apiOK(t, srv2.base, f.token, "find-contact-action", map[string]any{"developerProvider": "zapier", "id": f.ws, "searchText": "Bea"},
		http.StatusOK, &found)
	if len(found) != 1 || found[0].ID != contact.ID {
		t.Errorf("the restored server finds %+v, want the contact %s written before the backup", found, contact.ID)
	}
	if code := srv2.stop(t); code != 0 {
		t.Errorf("second server exit %d", code)
	}
	if code := srv.stop(t); code != 0 {
		t.Errorf("server exit %d", code)
	}
}

// backupNames lists the backups in dir.
func backupNames(t testing.TB, dir string) []string {
	t.Helper()
	entries, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, e := range entries {
		if _, ok := offsite.ParseName(e.Name()); ok {
			out = append(out, e.Name())
		}
	}
	return out
}

// Bad backups and bad flags: a clear message, a non-zero exit, and the database untouched.
func TestRestoreAndBackupFlagRefusals(t *testing.T) {
	f := newFixture(t)
	db := filepath.Join(f.data, "switchboard.db")
	before, err := os.ReadFile(db)
	if err != nil {
		t.Fatal(err)
	}
	good := filepath.Join(t.TempDir(), "good.db")
	ok(t, "backup", "-data", f.data, good)
	raw, _ := os.ReadFile(good)
	truncated := filepath.Join(t.TempDir(), "truncated.db")
	if err := os.WriteFile(truncated, raw[:len(raw)/3], 0o600); err != nil {
		t.Fatal(err)
	}

	fails(t, "--force", "restore", "-data", f.data, good)
	fails(t, "no such file", "restore", "-data", f.data, "--force", filepath.Join(t.TempDir(), "missing.db.gz"))
	fails(t, "the database is truncated", "restore", "-data", f.data, "--force", truncated)
	fails(t, "-backup-url", "restore", "-data", f.data, "--force", "latest")
	fails(t, "AWS_ACCESS_KEY_ID", "restore", "-data", f.data, "--force", "s3://bucket/switchboard-20261125T174500Z.db.gz")
	fails(t, "usage", "restore", "-data", f.data)
	after, _ := os.ReadFile(db)
	if string(after) != string(before) {
		t.Error("a refused restore changed the database")
	}

	// A good one goes in with --force, the replaced database kept beside it.
	r := sb(t, nil, "restore", "-data", f.data, "--force", good)
	if r.code != 0 || !strings.Contains(r.stdout, "restored "+good) || !strings.Contains(r.stdout, "kept as") {
		t.Errorf("restore --force: exit %d, stdout %q, stderr %q", r.code, r.stdout, r.stderr)
	}

	d := "-data=" + f.data
	fails(t, "at least 1s", "serve", d, "-backup-url", "file:///tmp", "-backup-every", "500ms")
	fails(t, "invalid value", "serve", d, "-backup-url", "file:///tmp", "-backup-every", "hourly")
	fails(t, "-backup-keep", "serve", d, "-backup-url", "file:///tmp", "-backup-keep", "0")
	fails(t, "s3://BUCKET/PREFIX or file:///DIR", "serve", d, "-backup-url", "ftp://host/dir")
	fails(t, "not in the URL", "serve", d, "-backup-url", "s3://AKID:secret@bucket/p")
	r = sb(t, []string{"AWS_ACCESS_KEY_ID=", "AWS_SECRET_ACCESS_KEY="}, "serve", d, "-backup-url", "s3://bucket/p")
	if r.code == 0 || !strings.Contains(r.stderr, "AWS_ACCESS_KEY_ID") {
		t.Errorf("serve to S3 without credentials: exit %d, stderr %q", r.code, r.stderr)
	}
	r = sb(t, []string{"SWITCHBOARD_BACKUP_URL=file:///tmp", "SWITCHBOARD_BACKUP_EVERY=10ms"}, "serve", d)
	if r.code == 0 || !strings.Contains(r.stderr, "at least 1s") {
		t.Errorf("SWITCHBOARD_BACKUP_EVERY=10ms: exit %d, stderr %q", r.code, r.stderr)
	}
}
