package cli

import (
	"flag"
	"fmt"
	"os"
	"time"

	"github.com/prometheus/client_golang/prometheus"

	offsite "switchboard/backup"
	"switchboard/store"
	"switchboard/web"
)

// backupConfig is where scheduled backups go (-backup-url and its companions). The S3
// credentials come only from AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY (and AWS_SESSION_TOKEN),
// so that they never sit in a flag, a process listing or a log line.
type backupConfig struct {
	URL        string
	S3Endpoint string
	S3Region   string
	Every      time.Duration
	Keep       int
}

// backupFlags registers the backup flags on fs (their SWITCHBOARD_* variables apply through
// applyEnv). schedule adds -backup-every and -backup-keep, which only serve uses.
func backupFlags(fs *flag.FlagSet, b *backupConfig, schedule bool) {
	fs.StringVar(&b.URL, "backup-url", "", "where scheduled backups go: s3://BUCKET/PREFIX or file:///DIR (S3 credentials from AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY)")
	fs.StringVar(&b.S3Endpoint, "backup-s3-endpoint", "", "URL of an S3-compatible store that is not AWS, e.g. http://127.0.0.1:9000")
	fs.StringVar(&b.S3Region, "backup-s3-region", "us-east-1", "region of the S3 bucket")
	if schedule {
		fs.DurationVar(&b.Every, "backup-every", time.Hour, "time between scheduled backups when -backup-url is set (at least 1s)")
		fs.IntVar(&b.Keep, "backup-keep", 24, "scheduled backups kept at -backup-url; older ones are deleted")
	}
}

// check validates the backup flags of serve: a bad value stops the server at start, not at the
// first backup an hour later.
func (b backupConfig) check() error {
	if b.URL == "" {
		return nil
	}
	if b.Every < time.Second {
		return fmt.Errorf("-backup-every must be a Go duration of at least 1s, such as 30m or 1h (got %s)", b.Every)
	}
	if b.Keep < 1 {
		return fmt.Errorf("-backup-keep must be at least 1 (got %d)", b.Keep)
	}
	loc, err := offsite.ParseURL(b.URL)
	if err != nil {
		return fmt.Errorf("-backup-url: %w", err)
	}
	if loc.Scheme == "s3" {
		if err := needsS3Credentials(b.backupConfig(), "-backup-url"); err != nil {
			return err
		}
	}
	_, err = b.target()
	return err
}

// target opens the place -backup-url names.
func (b backupConfig) target() (offsite.Target, error) {
	return offsite.Open(b.backupConfig())
}

// backupConfig is the backup package's view of the flags, with the credentials from the
// environment. A missing credential is refused here rather than failing every hour.
func (b backupConfig) backupConfig() offsite.Config {
	return offsite.Config{URL: b.URL, S3Endpoint: b.S3Endpoint, S3Region: b.S3Region,
		AccessKey: os.Getenv("AWS_ACCESS_KEY_ID"), SecretKey: os.Getenv("AWS_SECRET_ACCESS_KEY"),
		SessionToken: os.Getenv("AWS_SESSION_TOKEN")}
}

// needsS3Credentials reports the error of an S3 URL without credentials in the environment.
func needsS3Credentials(c offsite.Config, what string) error {
	if c.AccessKey == "" || c.SecretKey == "" {
		return fmt.Errorf("%s is on S3: set AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY in the environment", what)
	}
	return nil
}

// backupScheduler makes the scheduled backups of s when -backup-url is set (nil otherwise), with
// their metrics on reg and their list on /admin/backup; the leader's workers start it.
func backupScheduler(s *store.Store, b backupConfig, reg *prometheus.Registry, wcfg *web.Config) (*offsite.Scheduler, error) {
	if b.URL == "" {
		return nil, nil
	}
	t, err := b.target()
	if err != nil {
		return nil, err
	}
	sched := offsite.NewScheduler(s, t, offsite.Options{Keep: b.Keep, Registry: reg})
	wcfg.Backups, wcfg.BackupRestore = sched, b.restoreCommand()
	return sched, nil
}

// restoreCommand is the command line that restores the newest backup into a new data directory.
func (b backupConfig) restoreCommand() string {
	cmd := "switchboard restore -data DIR -backup-url " + b.URL
	if b.S3Endpoint != "" {
		cmd += " -backup-s3-endpoint " + b.S3Endpoint
	}
	if loc, err := offsite.ParseURL(b.URL); err == nil && loc.Scheme == "s3" && b.S3Region != "us-east-1" {
		cmd += " -backup-s3-region " + b.S3Region
	}
	return cmd + " latest"
}
