package cli

import (
	"bytes"
	"context"
	"flag"
	"fmt"
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
			// The banner is written before serving starts, but the pipe's copier may not have
			// put it into the buffer yet: wait for it so tests can read it whole.
			if res.StatusCode == http.StatusOK && strings.Contains(s.stdout.String(), "  data:") {
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
