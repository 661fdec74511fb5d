package backup

import (
	"bufio"
	"compress/gzip"
	"context"
	"crypto/sha256"
	"encoding/binary"
	"encoding/hex"
	"errors"
	"fmt"
	"hash/fnv"
	"io"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"strings"
	"time"

	bolt "go.etcd.io/bbolt"

	"switchboard/store"
)

// RestoreOptions configure Restore.
type RestoreOptions struct {
	// Force replaces an existing database (which is kept beside it, hard-linked, as
	// switchboard.db.before-restore-TIME).
	Force bool
	// LockTimeout bounds the wait for the database's lock: a server holding it makes Restore
	// refuse within this time (default 1s).
	LockTimeout time.Duration
	// Now names the kept copy of a replaced database; nil means time.Now.
	Now func() time.Time
}

// Restored says what Restore put in place.
type Restored struct {
	Source  string // the backup as the user would name it (a URL or a path)
	Object         // its name, time, stored size and recorded checksum
	DBBytes int64  // the database's size once decompressed
	Path    string // the database written
	Kept    string // where the replaced database was kept, "" when none was replaced
}

// ErrExists is returned when the data directory already holds a database and Force is not set.
var ErrExists = errors.New("a database already exists")

// ErrLocked is returned when a server holds the database.
var ErrLocked = errors.New("a server holds the database")

// Restore puts the backup named by source in place as the database at dbPath: a local .db or
// .db.gz file, s3://BUCKET/KEY, file:///PATH, or "latest" (the newest backup at cfg.URL). The
// backup is read into a temporary file beside dbPath, its SHA-256 compared with the recorded one
// (when one was recorded), decompressed and opened as a bbolt file whose pages are checked, all
// before anything is replaced; then it is synced and renamed over dbPath. Any failure leaves the
// existing database as it was.
func Restore(ctx context.Context, source string, cfg Config, dbPath string, opts RestoreOptions) (Restored, error) {
	if opts.LockTimeout <= 0 {
		opts.LockTimeout = time.Second
	}
	if opts.Now == nil {
		opts.Now = time.Now
	}
	if err := checkReplaceable(dbPath, opts); err != nil {
		return Restored{}, err
	}
	target, name, shown, err := resolveSource(ctx, source, cfg)
	if err != nil {
		return Restored{}, err
	}
	rc, obj, err := target.Open(ctx, name)
	if err != nil {
		return Restored{}, err
	}
	defer rc.Close()

	dir := filepath.Dir(dbPath)
	if err := os.MkdirAll(dir, 0o750); err != nil {
		return Restored{}, fmt.Errorf("create the data directory: %w", err)
	}
	tmp, err := os.CreateTemp(dir, ".switchboard-restore-*")
	if err != nil {
		return Restored{}, err
	}
	defer os.Remove(tmp.Name()) // fails harmlessly once renamed
	n, err := copyBackup(tmp, rc, obj, shown)
	if err == nil {
		err = tmp.Sync()
	}
	if cerr := tmp.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return Restored{}, err
	}
	if err := os.Chmod(tmp.Name(), 0o600); err != nil {
		return Restored{}, err
	}
	if err := CheckDatabase(tmp.Name()); err != nil {
		return Restored{}, fmt.Errorf("%s: %w; nothing was replaced", shown, err)
	}
	// Checked again at the last moment: a server may have started during the download.
	if err := checkReplaceable(dbPath, opts); err != nil {
		return Restored{}, err
	}
	res := Restored{Source: shown, Object: obj, DBBytes: n, Path: dbPath}
	if _, err := os.Stat(dbPath); err == nil {
		res.Kept = dbPath + ".before-restore-" + opts.Now().UTC().Format(nameLayout)
		if err := os.Link(dbPath, res.Kept); err != nil {
			return Restored{}, fmt.Errorf("keep the replaced database as %s: %w; nothing was replaced", res.Kept, err)
		}
	}
	if err := os.Rename(tmp.Name(), dbPath); err != nil {
		return Restored{}, err
	}
	if err := syncDir(dir); err != nil {
		return Restored{}, fmt.Errorf("sync %s: %w", dir, err)
	}
	return res, nil
}

// checkReplaceable refuses while a server holds dbPath, and refuses an existing database
// without Force. A server holds bbolt's exclusive lock, so even a read-only open times out.
func checkReplaceable(dbPath string, opts RestoreOptions) error {
	if _, err := os.Stat(dbPath); errors.Is(err, fs.ErrNotExist) {
		return nil
	} else if err != nil {
		return err
	}
	db, err := bolt.Open(dbPath, 0o600, &bolt.Options{ReadOnly: true, Timeout: opts.LockTimeout})
	if errors.Is(err, bolt.ErrTimeout) {
		return fmt.Errorf("%s: %w: stop the server before restoring", dbPath, ErrLocked)
	}
	if err == nil {
		db.Close()
	}
	// A database that does not open is not locked; it may well be the reason for the restore.
	if !opts.Force {
		return fmt.Errorf("%s: %w; add --force to replace it (it is kept beside as switchboard.db.before-restore-TIME)", dbPath, ErrExists)
	}
	return nil
}

// resolveSource returns the target and file name source means, and how to show it.
func resolveSource(ctx context.Context, source string, cfg Config) (Target, string, string, error) {
	switch {
	case source == "latest":
		if cfg.URL == "" {
			return nil, "", "", fmt.Errorf("restore latest needs -backup-url (or SWITCHBOARD_BACKUP_URL): where are the backups?")
		}
		t, err := Open(cfg)
		if err != nil {
			return nil, "", "", err
		}
		objs, err := t.List(ctx)
		if err != nil {
			return nil, "", "", err
		}
		if len(objs) == 0 {
			return nil, "", "", fmt.Errorf("no backups at %s", t)
		}
		return t, objs[0].Name, joinShown(t, objs[0].Name), nil
	case strings.HasPrefix(source, "s3://"):
		loc, err := ParseURL(source)
		if err != nil {
			return nil, "", "", err
		}
		if loc.Prefix == "" || strings.HasSuffix(source, "/") {
			return nil, "", "", fmt.Errorf("%s: want s3://BUCKET/KEY naming one backup", source)
		}
		dir, name := path.Split(loc.Prefix)
		t, err := NewS3Target(cfg, loc.Bucket, strings.Trim(dir, "/"))
		if err != nil {
			return nil, "", "", err
		}
		return t, name, source, nil
	case strings.HasPrefix(source, "file:"):
		loc, err := ParseURL(source)
		if err != nil {
			return nil, "", "", err
		}
		return NewFileTarget(filepath.Dir(loc.Prefix)), filepath.Base(loc.Prefix), source, nil
	case strings.Contains(source, "://"):
		return nil, "", "", fmt.Errorf("%s: a backup is a local file, s3://BUCKET/KEY, file:///PATH or latest", source)
	}
	abs, err := filepath.Abs(source)
	if err != nil {
		return nil, "", "", err
	}
	return NewFileTarget(filepath.Dir(abs)), filepath.Base(abs), source, nil
}

func joinShown(t Target, name string) string {
	s := t.String()
	if i := strings.Index(s, " at "); i >= 0 { // an S3 target names its endpoint after the URL
		return strings.TrimRight(s[:i], "/") + "/" + name + s[i:]
	}
	return strings.TrimRight(s, "/") + "/" + name
}

// copyBackup writes the database held in r (gzip-compressed or not, told by its first bytes) to
// w, and checks the SHA-256 of what was read against the recorded one. It returns the bytes of
// the database written.
func copyBackup(w io.Writer, r io.Reader, obj Object, shown string) (int64, error) {
	h := sha256.New()
	raw := bufio.NewReaderSize(io.TeeReader(r, h), 64<<10)
	head, err := raw.Peek(2)
	if err != nil {
		if errors.Is(err, io.EOF) {
			return 0, fmt.Errorf("%s is empty or truncated; nothing was replaced", shown)
		}
		return 0, fmt.Errorf("read %s: %w", shown, err)
	}
	var n int64
	if head[0] == 0x1f && head[1] == 0x8b { // the gzip magic number
		zr, err := gzip.NewReader(raw)
		if err != nil {
			return 0, fmt.Errorf("%s is not a readable gzip file (%v); nothing was replaced", shown, err)
		}
		n, err = io.Copy(w, zr)
		if err != nil {
			if errors.Is(err, io.ErrUnexpectedEOF) {
				return 0, fmt.Errorf("%s is truncated (the compressed stream ends early); nothing was replaced", shown)
			}
			return 0, fmt.Errorf("%s is damaged (%v); nothing was replaced", shown, err)
		}
	} else if n, err = io.Copy(w, raw); err != nil {
		return 0, fmt.Errorf("read %s: %w", shown, err)
	}
	// The checksum covers the whole stored file, including anything after the gzip stream.
	if _, err := io.Copy(io.Discard, raw); err != nil {
		return 0, fmt.Errorf("read %s: %w", shown, err)
	}
	if got := hex.EncodeToString(h.Sum(nil)); obj.SHA256 != "" && got != obj.SHA256 {
		return 0, fmt.Errorf("%s: checksum mismatch: its SHA-256 is %s but %s was recorded; the backup is damaged, nothing was replaced", shown, got, obj.SHA256)
	}
	return n, nil
}

// CheckDatabase opens the bbolt file at p read-only and checks every page (freelist, branches,
// leaves), and that it is a Switchboard database (it has the meta bucket every one is created
// with).
func CheckDatabase(p string) (err error) {
	// A damaged file can make bbolt panic while it walks pages: that too means "damaged".
	defer func() {
		if r := recover(); r != nil {
			err = fmt.Errorf("the database is damaged (%v)", r)
		}
	}()
	if err := checkLength(p); err != nil {
		return err
	}
	db, err := bolt.Open(p, 0o600, &bolt.Options{ReadOnly: true, Timeout: time.Second})
	if err != nil {
		return fmt.Errorf("the backup does not open as a database (%v)", err)
	}
	defer db.Close()
	return db.View(func(tx *bolt.Tx) error {
		for err := range tx.Check() {
			return fmt.Errorf("the database is damaged (%v)", err)
		}
		if !store.IsStoreFile(tx) {
			return errors.New("the file is a bbolt database but not a Switchboard one")
		}
		return nil
	})
}

// bbolt's meta page, after the 16-byte page header: magic, version, page size, flags (4 bytes
// each), the root bucket (16), then the freelist page, the high-water page id and the txid (8
// each), and an FNV-64a checksum of everything before it.
const (
	boltMagic       = 0xED0CDAED
	boltPageHeader  = 16
	boltMetaSumFrom = 56 // bytes of the meta covered by its checksum
)

// checkLength refuses a bbolt file shorter than its newest valid meta page says it is: bbolt
// maps the file and would fault (SIGBUS, which no recover catches) reading a page past its end,
// which is what a truncated copy of a database looks like.
func checkLength(p string) error {
	f, err := os.Open(p)
	if err != nil {
		return err
	}
	defer f.Close()
	st, err := f.Stat()
	if err != nil {
		return err
	}
	var best struct {
		txid, hwm, pageSize uint64
		ok                  bool
	}
	pageSize := int64(0)
	for i := range 2 {
		buf := make([]byte, boltPageHeader+boltMetaSumFrom+8)
		off := int64(0)
		if i == 1 {
			if pageSize == 0 {
				pageSize = int64(os.Getpagesize())
			}
			off = pageSize
		}
		if _, err := f.ReadAt(buf, off); err != nil {
			continue
		}
		m := buf[boltPageHeader:]
		ne := binary.NativeEndian
		h := fnv.New64a()
		h.Write(m[:boltMetaSumFrom])
		if ne.Uint32(m[0:]) != boltMagic || h.Sum64() != ne.Uint64(m[boltMetaSumFrom:]) {
			continue
		}
		ps := uint64(ne.Uint32(m[8:]))
		if i == 0 {
			pageSize = int64(ps)
		}
		if txid := ne.Uint64(m[48:]); !best.ok || txid > best.txid {
			best.txid, best.hwm, best.pageSize, best.ok = txid, ne.Uint64(m[40:]), ps, true
		}
	}
	if !best.ok {
		return errors.New("the backup does not open as a database (no valid bbolt meta page)")
	}
	if want := best.hwm * best.pageSize; uint64(st.Size()) < want {
		return fmt.Errorf("the database is truncated: %d bytes of %d", st.Size(), want)
	}
	return nil
}
