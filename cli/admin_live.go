package cli

import (
	"bytes"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"net/http"
	"strings"

	"switchboard/store"
)

// An admin command run while a node of a cluster holds the file goes to that node (POST
// /admin/run, the loopback admin endpoint with the token of DIR/server.json), which passes it to
// the leader, where it runs on the store: after a cluster's first start the admin commands work
// through any node. A lone server has no such endpoint, and its admin commands refuse while it
// runs, as they always did.

// adminRun is what the command sends and the server answers.
type adminRun struct {
	Args   []string `json:"args"`
	Stdin  string   `json:"stdin,omitempty"`
	Stdout string   `json:"stdout,omitempty"`
	Error  string   `json:"error,omitempty"`
}

// maxAdminStdin bounds the standard input a command sends to the server (a password).
const maxAdminStdin = 64 << 10

// runThroughServer has the server holding the file run this command.
func (a *adminEnv) runThroughServer() error {
	in, _ := io.ReadAll(io.LimitReader(a.stdin, maxAdminStdin))
	body, _ := json.Marshal(adminRun{Args: a.argv, Stdin: string(in)})
	resp, err := serverCall(*a.data, http.MethodPost, "/admin/run", bytes.NewReader(body))
	if err != nil {
		return err
	}
	defer resp.Body.Close()
	if resp.StatusCode == http.StatusNotFound {
		// One node: its admin commands wait for it to stop (only a cluster's node runs them).
		return fmt.Errorf("%s is held by a running server: stop it first (a backup works while it runs: switchboard backup FILE)", dbPath(*a.data))
	}
	var out adminRun
	if err := json.NewDecoder(io.LimitReader(resp.Body, 16<<20)).Decode(&out); err != nil || resp.StatusCode != http.StatusOK && out.Error == "" {
		return fmt.Errorf("%s is held by a running server, which did not run the command (%s)", dbPath(*a.data), resp.Status)
	}
	io.WriteString(a.stdout, out.Stdout)
	if out.Error != "" {
		return errors.New(out.Error)
	}
	return nil
}

// adminLive runs an admin command on the running server's store s (the server's side of
// /admin/run): what it prints on stdout and its error.
func adminLive(s *store.Store, args []string, stdin string) (string, error) {
	if len(args) == 0 {
		return "", errors.New("no command")
	}
	cmds := adminCommands()
	cmd, ok := cmds[args[0]]
	if !ok {
		return "", fmt.Errorf("unknown admin command %q", args[0])
	}
	if args[0] == "compact" {
		return "", errors.New("compact rewrites the file: stop the server first")
	}
	var stdout, stderr bytes.Buffer
	fs := flag.NewFlagSet("admin "+args[0], flag.ContinueOnError)
	fs.SetOutput(&stderr)
	env := &adminEnv{fs: fs, data: dataFlag(fs), stdin: strings.NewReader(stdin), stdout: &stdout, stderr: &stderr, argv: args, live: s}
	err := describe(cmd.run(env, args[1:]))
	if err != nil && stderr.Len() > 0 && errors.Is(err, flag.ErrHelp) {
		err = errors.New(stderr.String())
	}
	return stdout.String(), err
}
