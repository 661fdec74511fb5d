package cli

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	bolt "go.etcd.io/bbolt"

	"switchboard/internal/testutil"
	"switchboard/store"
)

// TestBackupUnderConcurrentWrites takes hot backups through the running server while clients
// create contacts, then opens each copy with bbolt: its pages check out, every contact has its
// phone index entry (one transaction each), and every contact acknowledged before the backup
// started is in it.
func TestBackupUnderConcurrentWrites(t *testing.T) {
	f := newFixture(t)
	d := "-data=" + f.data
	addr := "127.0.0.1:" + testutil.FreePort(t)
	srv := startServer(t, addr, nil, "-addr", addr, d, "-log-requests=false", "-rate-limit=0")

	var (
		mu    sync.Mutex
		acked []string // phones answered 201, in order
		seq   atomic.Int64
		stop  = make(chan struct{})
		wg    sync.WaitGroup
		fails atomic.Int64
	)
	for range 4 {
		wg.Go(func() {
			for {
				select {
				case <-stop:
					return
				default:
				}
				phone := fmt.Sprintf("+1202555%04d", seq.Add(1))
				body, _ := json.Marshal(map[string]string{"developerProvider": "zapier", "id": f.ws, "firstName": "Backup", "phone": phone})
				req, _ := http.NewRequest(http.MethodPost, srv.base+"/v1/integrations/developer/zapier/create-contact-action", bytes.NewReader(body))
				req.Header.Set("Authorization", "Bearer "+f.token)
				req.Header.Set("Content-Type", "application/json")
				res, err := http.DefaultClient.Do(req)
				if err != nil {
					fails.Add(1)
					continue
				}
				io.Copy(io.Discard, res.Body)
				res.Body.Close()
				if res.StatusCode != http.StatusCreated {
					fails.Add(1)
					continue
				}
				mu.Lock()
				acked = append(acked, phone)
				mu.Unlock()
			}
		})
	}
	defer func() { close(stop); wg.Wait() }()

	ackedNow := func() []string {
		mu.Lock()
		defer mu.Unlock()
		return append([]string(nil), acked...)
	}
	for i := range 3 {
		// Each backup starts with writes under way: 20 more contacts acknowledged since the last.
		want := len(ackedNow()) + 20
		for deadline := time.Now().Add(20 * time.Second); len(ackedNow()) < want; time.Sleep(5 * time.Millisecond) {
			if time.Now().After(deadline) {
				t.Fatalf("the writers had %d contacts acknowledged after 20 s, want %d (%d refused)", len(ackedNow()), want, fails.Load())
			}
		}
		before := ackedNow()
		path := filepath.Join(t.TempDir(), fmt.Sprintf("copy%d.db", i))
		if r := sb(t, nil, "backup", d, path); r.code != 0 {
			t.Fatalf("backup %d under writes: exit %d, stderr %q", i, r.code, r.stderr)
		}
		db, err := bolt.Open(path, 0o600, &bolt.Options{ReadOnly: true, Timeout: time.Second})
		if err != nil {
			t.Fatalf("copy %d does not open with bbolt: %v", i, err)
		}
		var contacts, indexed int
		err = db.View(func(tx *bolt.Tx) error {
			for err := range tx.Check() {
				return err
			}
			contacts = tx.Bucket([]byte("contact_records")).Stats().KeyN
			indexed = tx.Bucket([]byte("idx_contact_by_phone")).Stats().KeyN
			return nil
		})
		db.Close()
		if err != nil {
			t.Fatalf("copy %d is damaged: %v", i, err)
		}
		if contacts != indexed || contacts < len(before) {
			t.Fatalf("copy %d: %d contacts, %d phone index entries, %d acknowledged before it; want equal counts, at least the acknowledged", i, contacts, indexed, len(before))
		}
		s, err := store.Open(path, store.Options{ReadOnly: true})
		if err != nil {
			t.Fatalf("copy %d does not open as a store: %v", i, err)
		}
		for _, p := range before {
			if _, err := s.ContactByPhone(f.ws, p); err != nil {
				t.Errorf("copy %d lacks contact %s acknowledged before the backup: %v", i, p, err)
			}
		}
		s.Close()
	}
	mu.Lock()
	n := len(acked)
	mu.Unlock()
	if n == 0 || fails.Load() != 0 {
		t.Fatalf("%d contacts written, %d failed requests: the writes did not run alongside the backups", n, fails.Load())
	}
}

// TestBackupAnswersOnlyLoopback binds the server to a non-loopback address of this host: a
// caller reaching it there, with the right token, is refused and gets no database, while
// `switchboard backup` still works (it connects from the loopback address).
func TestBackupAnswersOnlyLoopback(t *testing.T) {
	var hostIP net.IP
	addrs, _ := net.InterfaceAddrs()
	for _, a := range addrs {
		if n, ok := a.(*net.IPNet); ok && n.IP.To4() != nil && !n.IP.IsLoopback() && !n.IP.IsLinkLocalUnicast() {
			hostIP = n.IP
			break
		}
	}
	if hostIP == nil {
		t.Skip("this machine has no non-loopback IPv4 address")
	}
	f := newFixture(t)
	d := "-data=" + f.data
	ln, err := net.Listen("tcp", net.JoinHostPort(hostIP.String(), "0"))
	if err != nil {
		t.Skipf("cannot listen on %s: %v", hostIP, err)
	}
	addr := ln.Addr().String()
	ln.Close()
	srv := startServer(t, addr, nil, "-addr", addr, d, "-log-requests=false")

	raw, err := os.ReadFile(filepath.Join(f.data, "server.json"))
	if err != nil {
		t.Fatal(err)
	}
	var info serverInfo
	if err := json.Unmarshal(raw, &info); err != nil || info.BackupToken == "" {
		t.Fatalf("server.json: %s, %v", raw, err)
	}
	req, _ := http.NewRequest(http.MethodGet, srv.base+"/admin/backup", nil)
	req.Header.Set("Authorization", "Bearer "+info.BackupToken)
	res, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	body, _ := io.ReadAll(res.Body)
	res.Body.Close()
	if res.StatusCode != http.StatusForbidden || len(body) > 200 {
		t.Fatalf("backup requested from %s: %d with %d bytes, want 403 and no database", hostIP, res.StatusCode, len(body))
	}

	path := filepath.Join(t.TempDir(), "copy.db")
	if r := sb(t, nil, "backup", d, path); r.code != 0 {
		t.Fatalf("switchboard backup against a server on %s: exit %d, stderr %q", addr, r.code, r.stderr)
	}
	checkBackup(t, path, f.ws)
}
