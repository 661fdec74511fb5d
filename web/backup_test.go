package web

import (
	"bytes"
	"context"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	bolt "go.etcd.io/bbolt"
)

// boltMagic is how a bbolt meta page marks the file (0xED0CDAED, little-endian at offset 32):
// a refused answer must not carry it.
var boltMagic = []byte{0xED, 0xDA, 0x0C, 0xED}

// TestBackupRefusals calls the handler directly, so the Authorization header and the caller's
// address are exactly what the test says (an HTTP client trims "Bearer " to "Bearer").
func TestBackupRefusals(t *testing.T) {
	e := newEnv(t, Config{})
	get := func(h http.Handler, remote string, header map[string]string) *httptest.ResponseRecorder {
		req := httptest.NewRequest(http.MethodGet, "/admin/backup", nil)
		req.RemoteAddr = remote
		for k, v := range header {
			req.Header.Set(k, v)
		}
		rec := httptest.NewRecorder()
		h.ServeHTTP(rec, req)
		return rec
	}
	refused := func(what string, rec *httptest.ResponseRecorder, status int) {
		t.Helper()
		if rec.Code != status || bytes.Contains(rec.Body.Bytes(), boltMagic) || !strings.HasPrefix(rec.Header().Get("Content-Type"), "application/json") {
			t.Errorf("%s: %d %q (%d bytes), want %d with a JSON error and no database", what, rec.Code, rec.Header().Get("Content-Type"), rec.Body.Len(), status)
		}
	}

	// No token configured: the endpoint is off, whatever is sent, the empty token included.
	off := New(e.st, Config{})
	for _, auth := range []string{"", "Bearer ", "Bearer", "bearer "} {
		refused("no backup token configured, Authorization "+strconv.Quote(auth), get(off, "127.0.0.1:5000", map[string]string{"Authorization": auth}), http.StatusUnauthorized)
	}

	on := New(e.st, Config{BackupToken: "s3cret"})
	good := map[string]string{"Authorization": "Bearer s3cret"}
	refused("wrong token", get(on, "127.0.0.1:5000", map[string]string{"Authorization": "Bearer s3cre"}), http.StatusUnauthorized)
	// Callers that are not on this host are refused before the token is even looked at.
	for _, remote := range []string{"203.0.113.5:4000", "[2001:db8::1]:4000", "10.0.0.2:4000", "[::ffff:192.0.2.1]:4000", "garbage"} {
		refused("caller "+remote, get(on, remote, good), http.StatusForbidden)
		refused("caller "+remote+" without token", get(on, remote, nil), http.StatusForbidden)
	}
	// A proxy on this host makes every caller look local: a proxied request is refused.
	for _, hdr := range []string{"X-Forwarded-For", "Forwarded", "X-Real-Ip"} {
		refused("through a proxy ("+hdr+")", get(on, "127.0.0.1:5000", map[string]string{"Authorization": "Bearer s3cret", hdr: "203.0.113.5"}), http.StatusForbidden)
	}
	// Loopback in either family, with the token: the database.
	for _, remote := range []string{"127.0.0.1:5000", "[::1]:5000", "[::ffff:127.0.0.1]:5000"} {
		rec := get(on, remote, good)
		if rec.Code != http.StatusOK || !bytes.Contains(rec.Body.Bytes()[:4096], boltMagic) {
			t.Errorf("loopback caller %s with the token: %d, %d bytes; want the database", remote, rec.Code, rec.Body.Len())
		}
	}
}

// TestBackupOutlivesWriteTimeout streams a copy larger than the socket buffers to a reader that
// pauses longer than the server's WriteTimeout: the backup moves its write deadline forward, so
// the copy arrives whole and opens, where the server's deadline would cut it off.
func TestBackupOutlivesWriteTimeout(t *testing.T) {
	e := newEnv(t, Config{})
	// Pad the file to 32 MiB so that the stream cannot sit in kernel buffers.
	pad := bytes.Repeat([]byte{'x'}, 1<<20)
	if err := e.st.DB().Update(func(tx *bolt.Tx) error {
		b, err := tx.CreateBucketIfNotExists([]byte("test_padding"))
		if err != nil {
			return err
		}
		for i := range 32 {
			if err := b.Put([]byte{byte(i)}, pad); err != nil {
				return err
			}
		}
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	srv := httptest.NewUnstartedServer(New(e.st, Config{BackupToken: "s3cret"}))
	srv.Config.WriteTimeout = 300 * time.Millisecond
	srv.Start()
	defer srv.Close()

	dialer := &net.Dialer{Control: func(_, _ string, c syscall.RawConn) error {
		var serr error
		err := c.Control(func(fd uintptr) { serr = syscall.SetsockoptInt(int(fd), syscall.SOL_SOCKET, syscall.SO_RCVBUF, 4096) })
		if err != nil {
			return err
		}
		return serr
	}}
	client := &http.Client{Transport: &http.Transport{DialContext: dialer.DialContext}}
	req, _ := http.NewRequestWithContext(context.Background(), http.MethodGet, srv.URL+"/admin/backup", nil)
	req.Header.Set("Authorization", "Bearer s3cret")
	res, err := client.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer res.Body.Close()
	time.Sleep(3 * srv.Config.WriteTimeout) // a slow reader: well past the server's deadline
	copyPath := filepath.Join(t.TempDir(), "copy.db")
	data, err := io.ReadAll(res.Body)
	if err != nil || res.StatusCode != http.StatusOK || strconv.Itoa(len(data)) != res.Header.Get("Content-Length") {
		t.Fatalf("backup: %d, %d of %s bytes, %v; want the whole copy", res.StatusCode, len(data), res.Header.Get("Content-Length"), err)
	}
	if err := os.WriteFile(copyPath, data, 0o600); err != nil {
		t.Fatal(err)
	}
	db, err := bolt.Open(copyPath, 0o600, &bolt.Options{ReadOnly: true})
	if err != nil {
		t.Fatalf("the copy does not open: %v", err)
	}
	defer db.Close()
	if err := db.View(func(tx *bolt.Tx) error {
		for err := range tx.Check() {
			return err
		}
		if b := tx.Bucket([]byte("test_padding")); b == nil || b.Stats().KeyN != 32 {
			t.Error("the copy lacks the padding written before it")
		}
		return nil
	}); err != nil {
		t.Fatalf("the copy is damaged: %v", err)
	}
}
