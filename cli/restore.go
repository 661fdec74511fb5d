package cli

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/signal"
	"strings"
	"syscall"
	"time"

	offsite "switchboard/backup"
)

const restoreUsage = `usage: switchboard restore -data DIR [--force] [-backup-url URL] SOURCE

SOURCE is a local .db or .db.gz file, s3://BUCKET/KEY, file:///PATH, or latest (the newest
backup at -backup-url). The backup's checksum and pages are checked before anything is replaced.`

// restore puts a backup in place as DIR/switchboard.db (the backup package does the work and
// the checks); it prints what it restored, and refuses while a server holds the database.
func restore(args []string, stdout, stderr io.Writer) error {
	fs := flag.NewFlagSet("restore", flag.ContinueOnError)
	fs.SetOutput(stderr)
	fs.Usage = func() { fmt.Fprintln(stderr, restoreUsage); fs.PrintDefaults() }
	data := dataFlag(fs)
	force := fs.Bool("force", false, "replace an existing database (it is kept beside as switchboard.db.before-restore-TIME)")
	var b backupConfig
	backupFlags(fs, &b, false)
	if err := applyEnv(fs); err != nil {
		return err
	}
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return nil
		}
		return err
	}
	if fs.NArg() != 1 {
		return errors.New(restoreUsage)
	}
	source := fs.Arg(0)
	cfg := b.backupConfig()
	if source == "latest" && b.URL != "" {
		if loc, err := offsite.ParseURL(b.URL); err == nil && loc.Scheme == "s3" {
			if err := needsS3Credentials(cfg, "-backup-url"); err != nil {
				return err
			}
		}
	}
	if strings.HasPrefix(source, "s3://") {
		if err := needsS3Credentials(cfg, source); err != nil {
			return err
		}
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	res, err := offsite.Restore(ctx, source, cfg, dbPath(*data), offsite.RestoreOptions{Force: *force, LockTimeout: 200 * time.Millisecond})
	if err != nil {
		return fmt.Errorf("restore: %w", err)
	}
	fmt.Fprintf(stdout, "restored %s (taken %s, %d bytes stored, %d bytes of database) to %s\n",
		res.Source, res.Time.UTC().Format("2006-01-02 15:04:05 MST"), res.Size, res.DBBytes, res.Path)
	if res.Kept != "" {
		fmt.Fprintf(stdout, "the database it replaced is kept as %s\n", res.Kept)
	}
	// A restored database holds the sessions of its time, also those signed out since: with
	// the same cookie keys a copied cookie would work again. New keys at the next start make
	// every cookie worthless, so a backup never revives a session; everyone signs in again.
	if err := os.Remove(sessionKeyPath(*data)); err == nil {
		fmt.Fprintln(stdout, "every browser session is signed out (new cookie keys at the next start)")
	} else if !errors.Is(err, os.ErrNotExist) {
		return fmt.Errorf("restore: sign out every session: %w", err)
	}
	return nil
}
