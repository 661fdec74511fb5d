package cli

import (
	"io"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"switchboard/internal/testutil"
)

func TestServeAdminRefusalBackupAndShutdown(t *testing.T) {
	f := newFixture(t)
	d := "-data=" + f.data
	addr := "127.0.0.1:" + testutil.FreePort(t)
	srv := startServer(t, addr, nil, "-addr", addr, d, "-log-requests=false")

	// The token from the admin command works against the running server.
	req, _ := http.NewRequest(http.MethodPost, srv.base+"/v1/integrations/developer/zapier/me-action",
		strings.NewReader(`{"developerProvider":"zapier"}`))
	req.Header.Set("Authorization", "Bearer "+f.token)
	req.Header.Set("Content-Type", "application/json")
	res, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	body, _ := io.ReadAll(res.Body)
	res.Body.Close()
	if res.StatusCode != http.StatusOK || !strings.Contains(string(body), f.ws) {
		t.Errorf("me-action with the admin token: %d %s", res.StatusCode, body)
	}

	// Every admin command refuses at once while the server holds the file.
	for _, args := range [][]string{
		{"create-user", "--email", "x@example.com", "--name", "X"},
		{"create-workspace", "--name", "W"},
		{"add-member", "--workspace", f.ws, "--user", f.user},
		{"add-number", "--workspace", f.ws, "--phone", "+14155550102"},
		{"add-property", "--workspace", f.ws, "--name", "p2", "--type", "date"},
		{"create-token", "--user", f.user},
		{"revoke-token", "--token", f.token},
		{"compact"},
		{"set-workspace", "--workspace", f.ws, "--retention-days", "30"},
	} {
		r := fails(t, "running server", append([]string{"admin", args[0], d}, args[1:]...)...)
		if r.took > 2*time.Second {
			t.Errorf("admin %s took %v to refuse, want under 2 s", args[0], r.took)
		}
	}

	// backup goes through the running server.
	online := filepath.Join(t.TempDir(), "online.db")
	r := sb(t, nil, "backup", d, online)
	if r.code != 0 {
		t.Fatalf("backup while serving: exit %d, stderr %q", r.code, r.stderr)
	}
	checkBackup(t, online, f.ws)

	// SIGTERM: graceful shutdown, exit 0, server.json removed.
	if code := srv.stop(t); code != 0 {
		t.Errorf("serve exited %d after SIGTERM, want 0; stderr:\n%s", code, srv.stderr)
	}
	if _, err := os.Stat(filepath.Join(f.data, "server.json")); !os.IsNotExist(err) {
		t.Errorf("server.json left behind: %v", err)
	}

	// With no server: admin works again, and backup reads the file directly.
	ok(t, "admin", "create-workspace", d, "--name", "After")
	offline := filepath.Join(t.TempDir(), "offline.db")
	if r := sb(t, nil, "backup", d, offline); r.code != 0 {
		t.Fatalf("backup with no server: exit %d, stderr %q", r.code, r.stderr)
	}
	checkBackup(t, offline, f.ws)
	fails(t, "no database", "backup", "-data="+t.TempDir(), filepath.Join(t.TempDir(), "x.db"))
	fails(t, "usage", "backup", d)
}

func TestServeEnvironmentAndFlags(t *testing.T) {
	f := newFixture(t)
	// SWITCHBOARD_ADDR and SWITCHBOARD_DATA are honoured.
	envAddr := "127.0.0.1:" + testutil.FreePort(t)
	srv := startServer(t, envAddr, []string{"SWITCHBOARD_ADDR=" + envAddr, "SWITCHBOARD_DATA=" + f.data, "SWITCHBOARD_RATE_LIMIT=0", "SWITCHBOARD_LOG_REQUESTS=false"})
	if !strings.Contains(srv.stdout.String(), envAddr) {
		t.Errorf("banner %q does not name %s", srv.stdout, envAddr)
	}
	if code := srv.stop(t); code != 0 {
		t.Errorf("exit %d after SIGTERM", code)
	}

	// A flag wins over its environment variable.
	flagAddr := "127.0.0.1:" + testutil.FreePort(t)
	srv = startServer(t, flagAddr, []string{"SWITCHBOARD_ADDR=" + envAddr, "SWITCHBOARD_DATA=" + f.data, "SWITCHBOARD_STAGE=v9"},
		"-addr", flagAddr, "-stage", "v2", "-log-requests=false")
	if res, err := http.Get("http://" + envAddr + "/healthz"); err == nil {
		res.Body.Close()
		t.Errorf("the server also answers on the environment's address %s", envAddr)
	}
	res, err := http.Post(srv.base+"/v2/integrations/developer/zapier/me-action", "application/json", strings.NewReader("{}"))
	if err != nil {
		t.Fatal(err)
	}
	res.Body.Close()
	if res.StatusCode != http.StatusUnauthorized {
		t.Errorf("-stage v2 over SWITCHBOARD_STAGE=v9: /v2/… answered %d, want 401", res.StatusCode)
	}
	if code := srv.stop(t); code != 0 {
		t.Errorf("exit %d after SIGTERM", code)
	}

	// Bad configuration fails at once with a message.
	for _, c := range []struct {
		env  []string
		args []string
		want string
	}{
		{[]string{"SWITCHBOARD_RATE_LIMIT=lots"}, nil, "SWITCHBOARD_RATE_LIMIT"},
		{nil, []string{"-rate-limit", "-1"}, "rate-limit"},
		{nil, []string{"-carrier", "pigeon"}, "carrier"},
		{nil, []string{"extra-arg"}, "extra-arg"},
	} {
		r := sb(t, append(c.env, "SWITCHBOARD_DATA="+f.data, "SWITCHBOARD_ADDR=127.0.0.1:"+testutil.FreePort(t)), append([]string{"serve"}, c.args...)...)
		if r.code == 0 || !strings.Contains(r.stderr, c.want) {
			t.Errorf("serve %v %v: exit %d, stderr %q; want failure mentioning %q", c.env, c.args, r.code, r.stderr, c.want)
		}
	}

	// A second server on the same data directory refuses quickly.
	addr := "127.0.0.1:" + testutil.FreePort(t)
	srv = startServer(t, addr, nil, "-addr", addr, "-data", f.data, "-log-requests=false")
	r := sb(t, nil, "serve", "-addr", "127.0.0.1:"+testutil.FreePort(t), "-data", f.data)
	if r.code == 0 || r.took > 5*time.Second || !strings.Contains(r.stderr, "in use") {
		t.Errorf("second serve: exit %d after %v, stderr %q", r.code, r.took, r.stderr)
	}
	if code := srv.stop(t); code != 0 {
		t.Errorf("exit %d after SIGTERM", code)
	}
}

// TestHTTPServerLimits: the server that serve runs has every slow-client limit set.
func TestHTTPServerLimits(t *testing.T) {
	srv := newHTTPServer(http.NotFoundHandler())
	if srv.ReadHeaderTimeout <= 0 || srv.ReadHeaderTimeout > 30*time.Second {
		t.Errorf("ReadHeaderTimeout %v, want a few seconds", srv.ReadHeaderTimeout)
	}
	if srv.ReadTimeout <= 0 || srv.ReadTimeout < srv.ReadHeaderTimeout {
		t.Errorf("ReadTimeout %v, want set (it bounds the body) and ≥ ReadHeaderTimeout", srv.ReadTimeout)
	}
	if srv.WriteTimeout <= 0 || srv.IdleTimeout <= 0 || srv.MaxHeaderBytes <= 0 {
		t.Errorf("WriteTimeout %v, IdleTimeout %v, MaxHeaderBytes %d: want each set", srv.WriteTimeout, srv.IdleTimeout, srv.MaxHeaderBytes)
	}
}

// TestSlowHeadersAreCutOff: a client that starts a request and never finishes its headers is
// disconnected by the running binary instead of holding the connection.
func TestSlowHeadersAreCutOff(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	addr := "127.0.0.1:" + testutil.FreePort(t)
	startServer(t, addr, nil, "-addr", addr, "-data="+f.data, "-log-requests=false")
	conn, err := net.Dial("tcp", addr)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	start := time.Now()
	if _, err := io.WriteString(conn, "POST /v1/integrations/developer/zapier/me-action HTTP/1.1\r\nHost: x\r\n"); err != nil {
		t.Fatal(err)
	}
	conn.SetReadDeadline(time.Now().Add(25 * time.Second))
	_, err = io.ReadAll(conn) // returns when the server closes the connection
	if took := time.Since(start); err != nil || took > 20*time.Second {
		t.Fatalf("a client stalled in its headers held the connection %v (%v), want it closed after the header timeout", took, err)
	}
}
