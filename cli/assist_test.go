package cli

import (
	"flag"
	"io"
	"net"
	"net/http"
	"strings"
	"testing"
	"time"

	"switchboard/assist/assisttest"
	"switchboard/internal/testutil"
)

const assistTestKey = "sk-cli-test-secret-42"

// TestAssistConfig: -assist-url takes https, or plain http only to this machine; the model goes
// with the URL; each refusal says why in plain words.
func TestAssistConfig(t *testing.T) {
	parse := func(args ...string) (config, error) {
		fs := flag.NewFlagSet("serve", flag.ContinueOnError)
		fs.SetOutput(io.Discard)
		return parseServeConfig(args, fs)
	}
	if c, err := parse(); err != nil || c.Assist.URL != "" {
		t.Fatalf("default: %+v %v, want Assist off", c.Assist, err)
	}
	for _, args := range [][]string{
		{"-assist-url", "https://llm.example.com/v1", "-assist-model", "llama3.2"},
		{"-assist-url", "http://127.0.0.1:11434/v1", "-assist-model", "llama3.2"},
		{"-assist-url", "http://localhost:8080/v1", "-assist-model", "local"},
	} {
		if _, err := parse(args...); err != nil {
			t.Errorf("%v refused: %v", args, err)
		}
	}
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"-assist-url", "http://10.0.0.5:11434/v1", "-assist-model", "m"}, "plain http to a host that is not this machine"},
		{[]string{"-assist-url", "http://llm.example.com/v1", "-assist-model", "m"}, "use https"},
		{[]string{"-assist-url", "llm.example.com", "-assist-model", "m"}, "not an http(s) URL"},
		{[]string{"-assist-url", "https://llm.example.com/v1"}, "needs -assist-model"},
		{[]string{"-assist-model", "m"}, "-assist-url is not"},
	} {
		if _, err := parse(c.args...); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%v: %v, want a refusal saying %q", c.args, err, c.want)
		}
	}
	t.Setenv(assistKeyEnv, assistTestKey)
	if _, err := parse(); err == nil || !strings.Contains(err.Error(), "SWITCHBOARD_ASSIST_KEY is set") {
		t.Errorf("a key without a URL: %v", err)
	}
	c, err := parse("-assist-url", "https://llm.example.com/v1", "-assist-model", "m")
	if err != nil || c.Assist.Key != assistTestKey {
		t.Fatalf("the key from the environment: %q %v", c.Assist.Key, err)
	}
}

// TestServeAssistStart: the binary refuses to start with a model server it cannot reach, or a
// plain-http URL to another machine, saying why; with a reachable one it names the model and
// host in its banner, and the key appears nowhere in what it prints.
func TestServeAssistStart(t *testing.T) {
	testutil.SkipIfShort(t, "the binary-level test")
	f := newFixture(t)
	env := []string{"SWITCHBOARD_DATA=" + f.data, "SWITCHBOARD_ASSIST_KEY=" + assistTestKey}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	closed := "http://" + ln.Addr().String() + "/v1"
	ln.Close()
	for _, c := range []struct {
		url, want string
	}{
		{closed, "cannot be reached"},
		{"http://192.0.2.10:11434/v1", "use https, or http only to 127.0.0.1"},
	} {
		r := sb(t, env, "serve", "-addr", "127.0.0.1:"+testutil.FreePort(t), "-assist-url", c.url, "-assist-model", "m")
		if r.code == 0 || !strings.Contains(r.stderr, c.want) || r.took > 15*time.Second {
			t.Errorf("-assist-url %s: exit %d after %v, stderr %q; want a quick refusal saying %q", c.url, r.code, r.took, r.stderr, c.want)
		}
		if strings.Contains(r.stderr+r.stdout, assistTestKey) {
			t.Errorf("the refusal shows the key: %q", r.stderr)
		}
	}

	// The workspace's switch, headless.
	if got := ok(t, "admin", "set-workspace", "-data="+f.data, "--workspace", f.ws, "--assist", "on"); got != f.ws {
		t.Fatalf("set-workspace --assist on printed %q", got)
	}
	fails(t, "on or off", "admin", "set-workspace", "-data="+f.data, "--workspace", f.ws, "--assist", "maybe")

	model := assisttest.New(t, func(assisttest.Request) assisttest.Answer { return assisttest.Reply("x") })
	model.SetModelsStatus(http.StatusUnauthorized)
	r := sb(t, env, "serve", "-addr", "127.0.0.1:"+testutil.FreePort(t), "-assist-url", model.URL, "-assist-model", "m")
	if r.code == 0 || !strings.Contains(r.stderr, "refused the key") || strings.Contains(r.stderr, assistTestKey) {
		t.Errorf("a refused key: exit %d, stderr %q", r.code, r.stderr)
	}
	model.SetModelsStatus(0)
	addr := "127.0.0.1:" + testutil.FreePort(t)
	srv := startServer(t, addr, env, "-addr", addr, "-assist-url", model.URL, "-assist-model", "test-model")
	host := strings.TrimSuffix(model.URL, "/v1")
	if out := srv.stdout.String(); !strings.Contains(out, "assist:          model test-model at "+host) {
		t.Errorf("the banner does not name the model and host:\n%s", out)
	}
	srv.stop(t)
	if strings.Contains(srv.stdout.String()+srv.stderr.String(), assistTestKey) {
		t.Error("serve printed the key")
	}
}
