package cli

import (
	"bytes"
	"context"
	"flag"
	"fmt"
	"io"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"switchboard/internal/testutil"
	"switchboard/store"
)

// These tests build the binary (the module root) once and run it as an operator would. Under
// go test -short the binary is not built and every test that runs it is skipped (make
// test-short leaves them to make test).

var binary string

func TestMain(m *testing.M) {
	flag.Parse()
	if testing.Short() {
		os.Exit(m.Run())
	}
	dir, err := os.MkdirTemp("", "switchboard-bin-")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	binary = filepath.Join(dir, "switchboard")
	// The binary is the module root's main package, which embeds static/ and openapi.json.
	build := exec.Command("go", "build", "-o", binary, "..")
	build.Stdout, build.Stderr = os.Stderr, os.Stderr
	if err := build.Run(); err != nil {
		fmt.Fprintln(os.Stderr, "go build:", err)
		os.RemoveAll(dir)
		os.Exit(1)
	}
	code := m.Run()
	os.RemoveAll(dir)
	os.Exit(code)
}

// result is one run of the binary.
type result struct {
	stdout, stderr string
	code           int
	took           time.Duration
}

// sb runs the binary with args (and extra environment), with a deadline.
func sb(t testing.TB, env []string, args ...string) result {
	t.Helper()
	return sbStdin(t, env, "", args...)
}

// sbStdin is sb with standard input.
func sbStdin(t testing.TB, env []string, stdin string, args ...string) result {
	t.Helper()
	return sbFor(t, 30*time.Second, env, stdin, args...)
}

// sbFor is sbStdin with its own deadline (benchmarks import a million rows).
func sbFor(t testing.TB, limit time.Duration, env []string, stdin string, args ...string) result {
	t.Helper()
	testutil.SkipIfShort(t, "the binary-level test")
	ctx, cancel := context.WithTimeout(context.Background(), limit)
	defer cancel()
	cmd := exec.CommandContext(ctx, binary, args...)
	cmd.Env = append(cleanEnv(), env...)
	cmd.Stdin = strings.NewReader(stdin)
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	start := time.Now()
	err := cmd.Run()
	r := result{stdout: out.String(), stderr: errb.String(), took: time.Since(start)}
	if ee, ok := err.(*exec.ExitError); ok {
		r.code = ee.ExitCode()
	} else if err != nil {
		t.Fatalf("run %v: %v", args, err)
	}
	return r
}

// cleanEnv is the environment without SWITCHBOARD_* variables.
func cleanEnv() []string {
	var out []string
	for _, kv := range os.Environ() {
		if !strings.HasPrefix(kv, "SWITCHBOARD_") {
			out = append(out, kv)
		}
	}
	return out
}

// ok runs an admin command that must succeed and returns its single stdout line.
func ok(t testing.TB, args ...string) string {
	t.Helper()
	r := sb(t, nil, args...)
	if r.code != 0 {
		t.Fatalf("%v: exit %d, stderr %q", args, r.code, r.stderr)
	}
	line := strings.TrimSuffix(r.stdout, "\n")
	if line == "" || strings.Contains(line, "\n") {
		t.Fatalf("%v: stdout %q, want one line", args, r.stdout)
	}
	return line
}

// fails runs a command that must fail: non-zero exit, a message on stderr, nothing on stdout.
func fails(t testing.TB, wantInStderr string, args ...string) result {
	t.Helper()
	if wantInStderr == "" {
		// Every string contains "": such a check passes whatever the command fails of.
		t.Fatalf("%v: fails needs the message expected on stderr", args)
	}
	r := sb(t, nil, args...)
	if r.code == 0 {
		t.Fatalf("%v: exit 0, want failure (stdout %q)", args, r.stdout)
	}
	if strings.TrimSpace(r.stderr) == "" {
		t.Errorf("%v: no message on stderr", args)
	}
	if !strings.Contains(r.stderr, wantInStderr) {
		t.Errorf("%v: stderr %q, want it to mention %q", args, r.stderr, wantInStderr)
	}
	if r.stdout != "" {
		t.Errorf("%v: stdout %q on failure, want nothing", args, r.stdout)
	}
	return r
}

func wantULID(t testing.TB, what, s string) {
	t.Helper()
	if _, ok := store.ParseID(s); !ok {
		t.Fatalf("%s printed %q, want a ULID alone", what, s)
	}
}

// fixture is a data directory with a user, a workspace, a member, a number and a token.
type fixture struct {
	data, user, ws, number, token string
}

func newFixture(t testing.TB) fixture {
	t.Helper()
	f := fixture{data: filepath.Join(t.TempDir(), "data")}
	d := "-data=" + f.data
	f.user = ok(t, "admin", "create-user", d, "--email", "ana@example.com", "--name", "Ana Lima", "--password", "correct horse", "--superuser")
	wantULID(t, "create-user", f.user)
	f.ws = ok(t, "admin", "create-workspace", d, "--name", "Acme")
	wantULID(t, "create-workspace", f.ws)
	m := ok(t, "admin", "add-member", d, "--workspace", f.ws, "--user", f.user)
	wantULID(t, "add-member", m)
	f.number = ok(t, "admin", "add-number", d, "--workspace", f.ws, "--phone", "+14155550100", "--name", "Main")
	wantULID(t, "add-number", f.number)
	p := ok(t, "admin", "add-property", d, "--workspace", f.ws, "--name", "plan", "--type", "text")
	wantULID(t, "add-property", p)
	f.token = ok(t, "admin", "create-token", d, "--user", f.user, "--name", "zap")
	if !strings.HasPrefix(f.token, "sbp_") || len(f.token) < 40 {
		t.Fatalf("create-token printed %q", f.token)
	}
	return f
}

func TestAdminCommands(t *testing.T) {
	f := newFixture(t)
	d := "-data=" + f.data
	if _, err := os.Stat(filepath.Join(f.data, "switchboard.db")); err != nil {
		t.Fatalf("the data directory was not created: %v", err)
	}

	// Bad input: non-zero exit, a message on stderr.
	fails(t, "E.164", "admin", "add-number", d, "--workspace", f.ws, "--phone", "415 555")
	fails(t, "--email", "admin", "create-user", d, "--name", "No Email")
	fails(t, "email", "admin", "create-user", d, "--email", "not-an-email", "--name", "X")
	fails(t, "already exists", "admin", "create-user", d, "--email", "ANA@example.com", "--name", "Dup")
	fails(t, "--name", "admin", "create-workspace", d)
	fails(t, "workspace not found", "admin", "add-member", d, "--workspace", "01J00000000000000000000000", "--user", f.user)
	fails(t, "user not found", "admin", "add-member", d, "--workspace", f.ws, "--user", "nobody")
	fails(t, "type", "admin", "add-property", d, "--workspace", f.ws, "--name", "x", "--type", "color")
	fails(t, "already exists", "admin", "add-property", d, "--workspace", f.ws, "--name", "plan", "--type", "text")
	fails(t, "user not found", "admin", "create-token", d, "--user", "01J00000000000000000000000")
	fails(t, "token not found", "admin", "revoke-token", d, "--token", "sbp_nope")
	fails(t, "--token", "admin", "revoke-token", d)
	fails(t, "unknown admin command", "admin", "frobnicate", d)
	fails(t, "flag provided but not defined", "admin", "create-workspace", d, "--colour", "red")
	fails(t, "unknown command", "nonsense")

	// import-contacts reports what it did; a re-run updates instead of duplicating.
	csv := filepath.Join(t.TempDir(), "contacts.csv")
	os.WriteFile(csv, []byte("firstName,lastName,phone,email,company,plan\nAna,Lima,+14155550001,ana@example.com,Acme,gold\nBo,,415 555,,,\n"), 0o600)
	r := sb(t, nil, "admin", "import-contacts", d, "--workspace", f.ws, csv)
	if r.code != 0 || !strings.Contains(r.stdout, "imported 1, updated 0, rejected 1") || !strings.Contains(r.stdout, "line 3") {
		t.Errorf("import: exit %d, stdout %q, stderr %q", r.code, r.stdout, r.stderr)
	}
	r = sb(t, nil, "admin", "import-contacts", d, "--workspace", f.ws, csv)
	if r.code != 0 || !strings.Contains(r.stdout, "imported 0, updated 1, rejected 1") {
		t.Errorf("re-import: exit %d, stdout %q", r.code, r.stdout)
	}
	fails(t, "no such file", "admin", "import-contacts", d, "--workspace", f.ws, filepath.Join(t.TempDir(), "missing.csv"))
	fails(t, "CSV", "admin", "import-contacts", d, "--workspace", f.ws)

	// revoke-token prints the token's id and the token stops working.
	id := ok(t, "admin", "revoke-token", d, "--token", f.token)
	wantULID(t, "revoke-token", id)
	fails(t, "token not found", "admin", "revoke-token", d, "--token", f.token)

	// SWITCHBOARD_DATA is the default data directory of admin commands.
	r = sb(t, []string{"SWITCHBOARD_DATA=" + f.data}, "admin", "create-workspace", "--name", "Env WS")
	if r.code != 0 {
		t.Fatalf("admin with SWITCHBOARD_DATA: %q", r.stderr)
	}
	s, err := store.Open(filepath.Join(f.data, "switchboard.db"), store.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	wss, _ := s.Workspaces()
	if len(wss) != 2 {
		t.Errorf("%d workspaces in the data directory, want 2", len(wss))
	}
	if c, err := s.ContactByPhone(f.ws, "+14155550001"); err != nil || c.Properties["plan"] != "gold" || c.Source != store.SourceImport {
		t.Errorf("imported contact %+v, %v", c, err)
	}
}

// server is a running `switchboard serve`.
type server struct {
	cmd    *exec.Cmd
	base   string
	stdout *syncBuffer
	stderr *syncBuffer
	done   chan struct{} // closed when the process has exited
}

// startServer runs serve with args and env and waits for /healthz at addr.
func startServer(t testing.TB, addr string, env []string, args ...string) *server {
	t.Helper()
	testutil.SkipIfShort(t, "the binary-level test")
	cmd := exec.Command(binary, append([]string{"serve"}, args...)...)
	cmd.Env = append(cleanEnv(), env...)
	s := &server{cmd: cmd, base: "http://" + addr, stdout: &syncBuffer{}, stderr: &syncBuffer{}, done: make(chan struct{})}
	cmd.Stdout, cmd.Stderr = s.stdout, s.stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	go func() {
		cmd.Wait()
		close(s.done)
	}()
	t.Cleanup(func() {
		select {
		case <-s.done:
		default:
			cmd.Process.Kill()
			<-s.done
		}
	})
	deadline := time.Now().Add(15 * time.Second)
	for {
		select {
		case <-s.done:
			t.Fatalf("serve exited early (%v); stderr:\n%s", s.cmd.ProcessState, s.stderr)
		default:
		}
		res, err := http.Get(s.base + "/healthz")
		if err == nil {
			res.Body.Close()
			if res.StatusCode == http.StatusOK {
				return s
			}
		}
		if time.Now().After(deadline) {
			t.Fatalf("serve did not answer /healthz on %s; stderr:\n%s", addr, s.stderr)
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// stop sends SIGTERM and returns the exit code.
func (s *server) stop(t testing.TB) int {
	t.Helper()
	if err := s.cmd.Process.Signal(syscall.SIGTERM); err != nil {
		t.Fatal(err)
	}
	select {
	case <-s.done:
	case <-time.After(20 * time.Second):
		t.Fatal("serve did not stop within 20 s of SIGTERM")
	}
	return s.cmd.ProcessState.ExitCode()
}

// syncBuffer is a bytes.Buffer the child's output goroutines and the test may share.
type syncBuffer struct {
	mu  sync.Mutex
	buf bytes.Buffer
}

func (b *syncBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.Write(p)
}

func (b *syncBuffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.String()
}

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

// checkBackup opens a backup as a database and finds the workspace in it.
func checkBackup(t *testing.T, path, ws string) {
	t.Helper()
	s, err := store.Open(path, store.Options{ReadOnly: true})
	if err != nil {
		t.Fatalf("backup %s does not open: %v", path, err)
	}
	defer s.Close()
	if _, err := s.Workspace(ws); err != nil {
		t.Errorf("backup %s lacks workspace %s: %v", path, ws, err)
	}
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
