package cli

import (
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"time"

	bolt "go.etcd.io/bbolt"

	"switchboard/store"
)

// backup writes a consistent copy of the database to FILE: directly when no server holds the
// file, else through the running server's /admin/backup endpoint (its address and token are in
// DIR/server.json, readable only by the server's user).
func backup(args []string, stdout, stderr io.Writer) error {
	fs := flag.NewFlagSet("backup", flag.ContinueOnError)
	fs.SetOutput(stderr)
	data := dataFlag(fs)
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return nil
		}
		return err
	}
	if fs.NArg() != 1 {
		return fmt.Errorf("usage: switchboard backup [-data DIR] FILE")
	}
	dest := fs.Arg(0)
	tmp, err := os.CreateTemp(filepath.Dir(dest), ".switchboard-backup-*")
	if err != nil {
		return err
	}
	defer os.Remove(tmp.Name())
	n, err := backupTo(*data, tmp)
	if err == nil {
		// On disk before it is renamed into place: after a crash FILE is the old copy or the
		// whole new one, never a name for pages still in the page cache.
		err = tmp.Sync()
	}
	if cerr := tmp.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = verifyCopy(tmp.Name())
	}
	if err != nil {
		return err
	}
	if err := os.Rename(tmp.Name(), dest); err != nil {
		return err
	}
	// The rename is durable only once the directory holding it is synced.
	if err := syncDir(filepath.Dir(dest)); err != nil {
		return fmt.Errorf("sync %s: %w", filepath.Dir(dest), err)
	}
	fmt.Fprintf(stdout, "%s (%d bytes)\n", dest, n)
	return nil
}

// verifyCopy opens the copy with bbolt and checks its pages (freelist, branches, leaves), so
// that a backup is reported only once it is known to open.
func verifyCopy(path string) error {
	db, err := bolt.Open(path, 0o600, &bolt.Options{ReadOnly: true, Timeout: time.Second})
	if err != nil {
		return fmt.Errorf("the copy does not open as a database: %w", err)
	}
	defer db.Close()
	return db.View(func(tx *bolt.Tx) error {
		for err := range tx.Check() {
			return fmt.Errorf("the copy is damaged: %w", err)
		}
		return nil
	})
}

func syncDir(dir string) error {
	d, err := os.Open(dir)
	if err != nil {
		return err
	}
	err = d.Sync()
	if cerr := d.Close(); err == nil {
		err = cerr
	}
	return err
}

func backupTo(dataDir string, w io.Writer) (int64, error) {
	if _, err := os.Stat(dbPath(dataDir)); err != nil {
		return 0, fmt.Errorf("no database at %s", dbPath(dataDir))
	}
	s, err := store.Open(dbPath(dataDir), store.Options{Timeout: 200 * time.Millisecond, ReadOnly: true})
	if err == nil {
		defer s.Close()
		return s.Backup(w, nil)
	}
	if !errors.Is(err, store.ErrLocked) {
		return 0, err
	}
	raw, err := os.ReadFile(serverInfoPath(dataDir))
	if err != nil {
		return 0, fmt.Errorf("a server holds %s but its %s cannot be read: %w", dbPath(dataDir), serverInfoPath(dataDir), err)
	}
	var info serverInfo
	if err := json.Unmarshal(raw, &info); err != nil {
		return 0, fmt.Errorf("%s: %w", serverInfoPath(dataDir), err)
	}
	host, port, err := net.SplitHostPort(info.Addr)
	if err != nil {
		return 0, fmt.Errorf("%s: bad address %q", serverInfoPath(dataDir), info.Addr)
	}
	if ip := net.ParseIP(host); host == "" || (ip != nil && ip.IsUnspecified()) {
		host = "127.0.0.1"
	}
	req, err := http.NewRequest(http.MethodGet, "http://"+net.JoinHostPort(host, port)+"/admin/backup", nil)
	if err != nil {
		return 0, err
	}
	req.Header.Set("Authorization", "Bearer "+info.BackupToken)
	// No proxy (HTTP_PROXY and the like would carry the token off the machine) and no redirects.
	// The endpoint answers loopback callers only: to a server bound to another address of this
	// host, connect from the loopback address (the kernel routes local addresses over lo).
	client := loopbackClient(host)
	resp, err := client.Do(req)
	if err != nil {
		return 0, fmt.Errorf("reach the running server: %w", err)
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return 0, fmt.Errorf("the running server refused the backup: %s", resp.Status)
	}
	n, err := io.Copy(w, resp.Body)
	if err == nil && resp.ContentLength >= 0 && n != resp.ContentLength {
		err = fmt.Errorf("backup truncated: %d of %d bytes", n, resp.ContentLength)
	}
	return n, err
}

// loopbackClient talks to the running server's loopback-only admin endpoints: no proxy
// (HTTP_PROXY and the like would carry the token off the machine), no redirects, and, to a
// server bound to another address of this host, a connection from the loopback address (the
// kernel routes local addresses over lo).
func loopbackClient(host string) *http.Client {
	dialer := &net.Dialer{Timeout: 10 * time.Second}
	if ip := net.ParseIP(host); ip != nil && !ip.IsLoopback() {
		if ip.To4() != nil {
			dialer.LocalAddr = &net.TCPAddr{IP: net.IPv4(127, 0, 0, 1)}
		} else {
			dialer.LocalAddr = &net.TCPAddr{IP: net.IPv6loopback}
		}
	}
	return &http.Client{
		Transport: &http.Transport{Proxy: nil, DialContext: dialer.DialContext},
		CheckRedirect: func(*http.Request, []*http.Request) error {
			return http.ErrUseLastResponse
		},
	}
}
