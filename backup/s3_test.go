package backup_test

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"io"
	"log/slog"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/minio/minio-go/v7"
	"github.com/prometheus/client_golang/prometheus"

	"switchboard/backup"
)

func TestS3BackupsAreNamedCheckedAndPruned(t *testing.T) {
	s3 := newFakeS3(t, "backups")
	s, _ := newStore(t, "Acme")
	target, err := backup.Open(s3.config("s3://backups/prod/switchboard"))
	if err != nil {
		t.Fatal(err)
	}
	clk, reg := newClock(), prometheus.NewRegistry()
	sched := backup.NewScheduler(s, target, backup.Options{Keep: 2, Now: clk.Now, Registry: reg})
	var last backup.Object
	for range 3 {
		if last, err = sched.BackupNow(context.Background()); err != nil {
			t.Fatalf("backup: %v", err)
		}
		clk.Advance(time.Hour)
	}

	// Only the newest two are kept, named by their UTC time under the prefix.
	want := []string{"prod/switchboard/switchboard-20261125T184500Z.db.gz", "prod/switchboard/switchboard-20261125T194500Z.db.gz"}
	if got := s3.keys(t, "backups"); !slices.Equal(got, want) {
		t.Fatalf("keys after three backups with keep 2: %q, want %q", got, want)
	}
	// The recorded checksum is the SHA-256 of the stored bytes, which are a gzip stream.
	obj, err := s3.client.GetObject(context.Background(), "backups", want[1], minio.GetObjectOptions{})
	if err != nil {
		t.Fatal(err)
	}
	body, err := io.ReadAll(obj)
	if err != nil {
		t.Fatal(err)
	}
	st, err := s3.client.StatObject(context.Background(), "backups", want[1], minio.StatObjectOptions{})
	if err != nil {
		t.Fatal(err)
	}
	sum := sha256.Sum256(body)
	if got := st.UserMetadata["Sha256"]; got != hex.EncodeToString(sum[:]) {
		t.Errorf("metadata sha256 %q, want the SHA-256 of the object %x", got, sum)
	}
	if st.ContentType != "application/gzip" {
		t.Errorf("content type %q, want application/gzip", st.ContentType)
	}
	if !bytes.HasPrefix(body, []byte{0x1f, 0x8b}) {
		t.Errorf("the object is not gzip: starts % x", body[:2])
	}
	if last.Size != int64(len(body)) || last.SHA256 != hex.EncodeToString(sum[:]) {
		t.Errorf("BackupNow said %d bytes, sha %s; the object has %d bytes, sha %x", last.Size, last.SHA256, len(body), sum)
	}

	// The list the admin page shows: newest first, with sizes.
	list, err := sched.List(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	if len(list) != 2 || list[0].Name != "switchboard-20261125T194500Z.db.gz" || list[0].Size != int64(len(body)) ||
		!list[0].Time.Equal(time.Date(2026, 11, 25, 19, 45, 0, 0, time.UTC)) {
		t.Errorf("list: %+v", list)
	}

	// The metrics of the last success.
	if got := metric(t, reg, "switchboard_backup_last_success_timestamp_seconds"); got != float64(time.Date(2026, 11, 25, 19, 45, 0, 0, time.UTC).Unix()) {
		t.Errorf("last success %v", got)
	}
	if got := metric(t, reg, "switchboard_backup_bytes"); got != float64(len(body)) {
		t.Errorf("backup bytes %v, want %d", got, len(body))
	}
	if got := metric(t, reg, "switchboard_backup_failures_total"); got != 0 {
		t.Errorf("failures %v, want 0", got)
	}
}

// A bucket that does not exist and wrong credentials fail the backup; the failure is counted,
// logged without the secret, and the next tick succeeds once the cause is gone.
func TestS3FailuresAreCountedAndRetried(t *testing.T) {
	s3 := newFakeS3(t)
	s, _ := newStore(t, "Acme")
	var logs bytes.Buffer
	logger := slog.New(slog.NewTextHandler(&logs, nil))
	clk, reg := newClock(), prometheus.NewRegistry()

	target, err := backup.Open(s3.config("s3://missing/prefix"))
	if err != nil {
		t.Fatal(err)
	}
	sched := backup.NewScheduler(s, target, backup.Options{Now: clk.Now, Registry: reg, Logger: logger})
	if _, err := sched.BackupNow(context.Background()); err == nil {
		t.Fatal("backup to a bucket that does not exist succeeded")
	}
	if got := metric(t, reg, "switchboard_backup_failures_total"); got != 1 {
		t.Errorf("failures after a missing bucket: %v, want 1", got)
	}
	st := sched.Status()
	if !st.Failing() || !strings.Contains(st.LastError, "bucket") {
		t.Errorf("status after a missing bucket: %+v, want failing with a message about the bucket", st)
	}
	if got := metric(t, reg, "switchboard_backup_last_success_timestamp_seconds"); got != 0 {
		t.Errorf("last success %v before any success", got)
	}

	// The next tick, once the bucket exists, succeeds.
	s3.makeBucket(t, "missing")
	clk.Advance(time.Hour)
	if _, err := sched.BackupNow(context.Background()); err != nil {
		t.Fatalf("retry after the bucket was made: %v", err)
	}
	if st := sched.Status(); st.Failing() || st.LastName != "switchboard-20261125T184500Z.db.gz" {
		t.Errorf("status after the retry: %+v", st)
	}
	if got := metric(t, reg, "switchboard_backup_failures_total"); got != 1 {
		t.Errorf("failures after the retry: %v, want still 1", got)
	}

	// Wrong credentials.
	cfg := s3.config("s3://missing/prefix")
	cfg.AccessKey, cfg.SecretKey = "AKIDWRONG", "wrong-secret-value"
	bad, err := backup.Open(cfg)
	if err != nil {
		t.Fatal(err)
	}
	reg2 := prometheus.NewRegistry()
	sched2 := backup.NewScheduler(s, bad, backup.Options{Now: clk.Now, Registry: reg2, Logger: logger})
	_, err = sched2.BackupNow(context.Background())
	if err == nil || !strings.Contains(err.Error(), "Access Key Id") {
		t.Fatalf("backup with a wrong access key: %v, want the store's refusal", err)
	}
	if got := metric(t, reg2, "switchboard_backup_failures_total"); got != 1 {
		t.Errorf("failures after wrong credentials: %v, want 1", got)
	}
	for _, secret := range []string{testSecret, "wrong-secret-value"} {
		if strings.Contains(logs.String(), secret) || strings.Contains(err.Error(), secret) {
			t.Errorf("a secret access key was logged or shown:\n%s", logs.String())
		}
	}
	if !strings.Contains(logs.String(), "backup failed") {
		t.Errorf("log has no failure line:\n%s", logs.String())
	}
}

func TestRestoreFromS3(t *testing.T) {
	s3 := newFakeS3(t, "backups")
	s, _ := newStore(t, "Acme")
	cfg := s3.config("s3://backups/nightly")
	target, err := backup.Open(cfg)
	if err != nil {
		t.Fatal(err)
	}
	clk := newClock()
	sched := backup.NewScheduler(s, target, backup.Options{Now: clk.Now})
	if _, err := sched.BackupNow(context.Background()); err != nil {
		t.Fatal(err)
	}
	if _, err := s.CreateWorkspace("Globex"); err != nil {
		t.Fatal(err)
	}
	clk.Advance(time.Hour)
	if _, err := sched.BackupNow(context.Background()); err != nil {
		t.Fatal(err)
	}

	// latest is the newest backup: both workspaces.
	dir := t.TempDir()
	res, err := backup.Restore(context.Background(), "latest", cfg, filepath.Join(dir, "switchboard.db"), backup.RestoreOptions{})
	if err != nil {
		t.Fatalf("restore latest: %v", err)
	}
	if res.Name != "switchboard-20261125T184500Z.db.gz" || res.SHA256 == "" {
		t.Errorf("restored %+v, want the newest backup with its checksum", res)
	}
	if got := workspaceNames(t, filepath.Join(dir, "switchboard.db")); !slices.Equal(got, []string{"Acme", "Globex"}) {
		t.Errorf("workspaces after restoring latest: %q", got)
	}

	// An explicit key: the older backup, over the database just restored (with --force).
	res, err = backup.Restore(context.Background(), "s3://backups/nightly/switchboard-20261125T174500Z.db.gz", cfg,
		filepath.Join(dir, "switchboard.db"), backup.RestoreOptions{Force: true})
	if err != nil {
		t.Fatalf("restore by key: %v", err)
	}
	if got := workspaceNames(t, filepath.Join(dir, "switchboard.db")); !slices.Equal(got, []string{"Acme"}) {
		t.Errorf("workspaces after restoring the older backup: %q", got)
	}
	if res.Kept == "" || workspaceNames(t, res.Kept) == nil {
		t.Errorf("the replaced database was not kept: %+v", res)
	}

	// A key that does not exist.
	_, err = backup.Restore(context.Background(), "s3://backups/nightly/switchboard-20991125T174500Z.db.gz", cfg,
		filepath.Join(t.TempDir(), "switchboard.db"), backup.RestoreOptions{})
	if err == nil || !strings.Contains(err.Error(), "no such file") {
		t.Errorf("restore of a missing key: %v", err)
	}
}

// An object whose bytes no longer match its recorded checksum is refused, and the database in
// place stays as it was.
func TestRestoreFromS3RefusesAChecksumMismatch(t *testing.T) {
	s3 := newFakeS3(t, "backups")
	s, _ := newStore(t, "Acme")
	cfg := s3.config("s3://backups")
	target, err := backup.Open(cfg)
	if err != nil {
		t.Fatal(err)
	}
	obj, err := backup.NewScheduler(s, target, backup.Options{Now: newClock().Now}).BackupNow(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	// Record another checksum, as if the object had been altered after it was written.
	_, err = s3.client.CopyObject(context.Background(),
		minio.CopyDestOptions{Bucket: "backups", Object: obj.Name, ReplaceMetadata: true,
			UserMetadata: map[string]string{"sha256": strings.Repeat("ab", 32)}},
		minio.CopySrcOptions{Bucket: "backups", Object: obj.Name})
	if err != nil {
		t.Fatal(err)
	}
	dst := filepath.Join(t.TempDir(), "switchboard.db")
	other, _ := newStore(t, "Existing")
	if _, err := other.Backup(io.Discard, nil); err != nil {
		t.Fatal(err)
	}
	existing := copyDB(t, other, dst)
	_, err = backup.Restore(context.Background(), "latest", cfg, dst, backup.RestoreOptions{Force: true})
	if err == nil || !strings.Contains(err.Error(), "checksum mismatch") {
		t.Fatalf("restore of an object with a wrong checksum: %v, want a checksum mismatch", err)
	}
	assertUntouched(t, dst, existing)
}
