package backup_test

import (
	"bytes"
	"compress/gzip"
	"context"
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	bolt "go.etcd.io/bbolt"

	"switchboard/backup"
	"switchboard/store"
)

// fileBackup makes one backup of a store holding workspace "Acme" in a new directory and
// returns the directory and the backup's path.
func fileBackup(t *testing.T) (dir, path string) {
	t.Helper()
	s, _ := newStore(t, "Acme")
	dir = t.TempDir()
	target, err := backup.Open(backup.Config{URL: "file://" + dir})
	if err != nil {
		t.Fatal(err)
	}
	obj, err := backup.NewScheduler(s, target, backup.Options{Now: newClock().Now}).BackupNow(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	return dir, filepath.Join(dir, obj.Name)
}

func TestRestoreFromEachKindOfFile(t *testing.T) {
	dir, gz := fileBackup(t)
	s, _ := newStore(t, "Plain")
	plain := filepath.Join(t.TempDir(), "copy.db")
	copyDB(t, s, plain)

	for _, tc := range []struct {
		name, source string
		cfg          backup.Config
		want         string
		checksum     bool
	}{
		{"local .db.gz", gz, backup.Config{}, "Acme", true},
		{"local .db", plain, backup.Config{}, "Plain", false},
		{"file URL", "file://" + gz, backup.Config{}, "Acme", true},
		{"latest", "latest", backup.Config{URL: "file://" + dir}, "Acme", true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dst := filepath.Join(t.TempDir(), "data", "switchboard.db") // the directory is made
			res, err := backup.Restore(context.Background(), tc.source, tc.cfg, dst, backup.RestoreOptions{})
			if err != nil {
				t.Fatalf("restore %s: %v", tc.source, err)
			}
			if got := workspaceNames(t, dst); !slices.Equal(got, []string{tc.want}) {
				t.Errorf("workspaces: %q, want %q", got, tc.want)
			}
			if (res.SHA256 != "") != tc.checksum || res.DBBytes == 0 || res.Size == 0 || res.Path != dst || res.Kept != "" {
				t.Errorf("restored %+v", res)
			}
			if tc.checksum && res.Name != "switchboard-20261125T174500Z.db.gz" {
				t.Errorf("restored name %q", res.Name)
			}
			if st, err := os.Stat(dst); err != nil || st.Mode().Perm() != 0o600 {
				t.Errorf("restored file mode: %v %v, want 0600", st.Mode(), err)
			}
		})
	}
}

// Every refusal leaves the database in place as it was, and no temporary file behind.
func TestRestoreRefusesBadBackups(t *testing.T) {
	_, gz := fileBackup(t)
	good, err := os.ReadFile(gz)
	if err != nil {
		t.Fatal(err)
	}
	write := func(t *testing.T, name string, data []byte) string {
		p := filepath.Join(t.TempDir(), name)
		if err := os.WriteFile(p, data, 0o600); err != nil {
			t.Fatal(err)
		}
		return p
	}
	corrupt := slices.Clone(good)
	corrupt[len(corrupt)/2] ^= 0xff
	foreign := filepath.Join(t.TempDir(), "other.db")
	db, err := bolt.Open(foreign, 0o600, nil)
	if err != nil {
		t.Fatal(err)
	}
	if err := db.Update(func(tx *bolt.Tx) error { _, err := tx.CreateBucket([]byte("things")); return err }); err != nil {
		t.Fatal(err)
	}
	db.Close()
	var zipped bytes.Buffer
	zw := gzip.NewWriter(&zipped)
	zw.Write([]byte("not a database at all, but long enough to be read as one page header........"))
	zw.Close()
	mismatchDir := t.TempDir()
	mismatch := filepath.Join(mismatchDir, filepath.Base(gz))
	if err := os.WriteFile(mismatch, good, 0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(mismatch+".sha256", []byte(strings.Repeat("0", 64)+"  x\n"), 0o600); err != nil {
		t.Fatal(err)
	}

	for _, tc := range []struct {
		name, source, want string
	}{
		{"corrupt gzip", write(t, "c.db.gz", corrupt), "damaged"},
		{"truncated gzip", write(t, "t.db.gz", good[:len(good)-10]), "truncated"},
		{"truncated database", write(t, "t.db", mustDB(t)[:5000]), "the database is truncated"},
		{"empty file", write(t, "e.db", nil), "empty"},
		{"checksum mismatch", mismatch, "checksum mismatch"},
		{"missing file", filepath.Join(t.TempDir(), "nope.db.gz"), "no such file"},
		{"not a Switchboard database", foreign, "not a Switchboard one"},
		{"gzip of garbage", write(t, "g.db.gz", zipped.Bytes()), "does not open as a database"},
		{"unknown scheme", "ftp://host/x.db.gz", "a local file, s3://"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s, _ := newStore(t, "Existing")
			dst := filepath.Join(t.TempDir(), "switchboard.db")
			existing := copyDB(t, s, dst)
			_, err := backup.Restore(context.Background(), tc.source, backup.Config{}, dst, backup.RestoreOptions{Force: true})
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("restore %s: %v, want an error about %q", tc.source, err, tc.want)
			}
			assertUntouched(t, dst, existing)
		})
	}
}

func mustDB(t *testing.T) []byte {
	t.Helper()
	s, _ := newStore(t, "Acme")
	var buf bytes.Buffer
	if _, err := s.Backup(&buf, nil); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

func TestRestoreRefusesToReplaceWithoutForceOrWhileServed(t *testing.T) {
	_, gz := fileBackup(t)
	s, _ := newStore(t, "Existing")
	dst := filepath.Join(t.TempDir(), "switchboard.db")
	existing := copyDB(t, s, dst)

	_, err := backup.Restore(context.Background(), gz, backup.Config{}, dst, backup.RestoreOptions{})
	if !errors.Is(err, backup.ErrExists) || !strings.Contains(err.Error(), "--force") {
		t.Fatalf("restore over a database without force: %v, want a refusal naming --force", err)
	}
	assertUntouched(t, dst, existing)

	// A server holds the file: even --force refuses, at once.
	held, err := store.Open(dst, store.Options{})
	if err != nil {
		t.Fatal(err)
	}
	_, err = backup.Restore(context.Background(), gz, backup.Config{}, dst, backup.RestoreOptions{Force: true, LockTimeout: 50 * time.Millisecond})
	held.Close()
	if !errors.Is(err, backup.ErrLocked) {
		t.Fatalf("restore while a server holds the database: %v, want ErrLocked", err)
	}

	// With --force and no server, it replaces the database and keeps the old one beside it.
	existing, err = os.ReadFile(dst)
	if err != nil {
		t.Fatal(err)
	}
	res, err := backup.Restore(context.Background(), gz, backup.Config{}, dst, backup.RestoreOptions{Force: true})
	if err != nil {
		t.Fatal(err)
	}
	if got := workspaceNames(t, dst); !slices.Equal(got, []string{"Acme"}) {
		t.Errorf("workspaces after a forced restore: %q", got)
	}
	kept, err := os.ReadFile(res.Kept)
	if err != nil || !bytes.Equal(kept, existing) || !strings.HasPrefix(filepath.Base(res.Kept), "switchboard.db.before-restore-") {
		t.Errorf("the replaced database was not kept as it was: %s %v", res.Kept, err)
	}
}

func TestRestoreLatestNeedsABackupURLAndABackup(t *testing.T) {
	dst := filepath.Join(t.TempDir(), "switchboard.db")
	if _, err := backup.Restore(context.Background(), "latest", backup.Config{}, dst, backup.RestoreOptions{}); err == nil ||
		!strings.Contains(err.Error(), "-backup-url") {
		t.Errorf("latest without -backup-url: %v", err)
	}
	empty := t.TempDir()
	if _, err := backup.Restore(context.Background(), "latest", backup.Config{URL: "file://" + empty}, dst, backup.RestoreOptions{}); err == nil ||
		!strings.Contains(err.Error(), "no backups at") {
		t.Errorf("latest at an empty place: %v", err)
	}
	if _, err := os.Stat(dst); err == nil {
		t.Error("a failed restore created a database")
	}
}
