// Package backup makes scheduled off-site copies of the database and restores them. A backup is
// the consistent hot copy the store writes (bbolt Tx.WriteTo), gzip-compressed on the fly and
// streamed to a Target (an S3-compatible bucket or a directory), named by its UTC time, with the
// SHA-256 of the stored bytes recorded beside it.
package backup

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net/url"
	"path"
	"sort"
	"strings"
	"time"
)

// Object is one stored file at a Target: a backup, or any file a restore names.
type Object struct {
	Name   string    // the file name under the target's prefix, e.g. switchboard-20261125T174500Z.db.gz
	Size   int64     // stored (compressed) bytes
	Time   time.Time // when the backup was taken (from its name), else when the file was written
	SHA256 string    // hex SHA-256 of the stored bytes, "" when none was recorded
}

// Target is a place backups go: a bucket prefix or a directory.
type Target interface {
	// Put stores everything read from r under name. Once r is drained, sum returns the hex
	// SHA-256 of what was read, which Put records beside the file. A file that fails to store
	// whole, with its checksum, is not left behind under name.
	Put(ctx context.Context, name string, r io.Reader, sum func() string) (int64, error)
	// List returns the backups (files named like one) at the target, newest first.
	List(ctx context.Context) ([]Object, error)
	// Open reads the file name, with its recorded checksum if any.
	Open(ctx context.Context, name string) (io.ReadCloser, Object, error)
	// Delete removes the file name and its recorded checksum.
	Delete(ctx context.Context, name string) error
	// String names the place for logs and pages; it never holds credentials.
	String() string
}

// ErrNotFound is returned by Open for a file that does not exist.
var ErrNotFound = errors.New("backup: no such file")

// Config says where backups go and how to reach an S3-compatible store.
type Config struct {
	URL        string // s3://BUCKET/PREFIX or file:///DIR
	S3Endpoint string // e.g. http://127.0.0.1:9000; "" means AWS
	S3Region   string // default us-east-1
	// Credentials of the S3 store (from AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY); never logged.
	AccessKey, SecretKey, SessionToken string
}

// Location is a parsed backup URL.
type Location struct {
	Scheme string // "s3" or "file"
	Bucket string // s3 only
	Prefix string // s3: the key prefix without slashes at either end; file: the directory
}

// ParseURL parses s3://BUCKET/PREFIX or file:///DIR.
func ParseURL(raw string) (Location, error) {
	u, err := url.Parse(raw)
	if err != nil {
		return Location{}, fmt.Errorf("backup URL %q: %v", raw, err)
	}
	switch u.Scheme {
	case "s3":
		if u.User != nil {
			// Credentials in a URL end up in logs and process listings.
			return Location{}, fmt.Errorf("backup URL: put S3 credentials in AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY, not in the URL")
		}
		if u.Host == "" {
			return Location{}, fmt.Errorf("backup URL %q: want s3://BUCKET/PREFIX", raw)
		}
		if u.RawQuery != "" || u.Fragment != "" {
			return Location{}, fmt.Errorf("backup URL %q: want s3://BUCKET/PREFIX with no query", raw)
		}
		return Location{Scheme: "s3", Bucket: u.Host, Prefix: strings.Trim(u.Path, "/")}, nil
	case "file":
		if u.Host != "" && u.Host != "localhost" {
			return Location{}, fmt.Errorf("backup URL %q: want file:///DIR (an absolute path, three slashes)", raw)
		}
		if u.Path == "" || !path.IsAbs(u.Path) {
			return Location{}, fmt.Errorf("backup URL %q: want file:///DIR (an absolute path)", raw)
		}
		return Location{Scheme: "file", Prefix: path.Clean(u.Path)}, nil
	}
	return Location{}, fmt.Errorf("backup URL %q: want s3://BUCKET/PREFIX or file:///DIR", raw)
}

// Open returns the Target that cfg.URL names.
func Open(cfg Config) (Target, error) {
	loc, err := ParseURL(cfg.URL)
	if err != nil {
		return nil, err
	}
	if loc.Scheme == "file" {
		return NewFileTarget(loc.Prefix), nil
	}
	return NewS3Target(cfg, loc.Bucket, loc.Prefix)
}

// namePrefix, nameLayout and nameSuffix make a backup's name: switchboard-20261125T174500Z.db.gz.
const (
	namePrefix = "switchboard-"
	nameLayout = "20060102T150405Z"
	nameSuffix = ".db.gz"
)

// Name is the name of a backup taken at t (in UTC).
func Name(t time.Time) string {
	return namePrefix + t.UTC().Format(nameLayout) + nameSuffix
}

// ParseName returns the time a backup's name carries; ok is false for any other name, so
// retention never touches files that are not backups.
func ParseName(name string) (time.Time, bool) {
	if !strings.HasPrefix(name, namePrefix) || !strings.HasSuffix(name, nameSuffix) {
		return time.Time{}, false
	}
	t, err := time.Parse(nameLayout, strings.TrimSuffix(strings.TrimPrefix(name, namePrefix), nameSuffix))
	if err != nil {
		return time.Time{}, false
	}
	return t.UTC(), true
}

// sortNewestFirst orders backups by the time in their names, newest first.
func sortNewestFirst(objs []Object) {
	sort.Slice(objs, func(i, j int) bool { return objs[i].Time.After(objs[j].Time) })
}
