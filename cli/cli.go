// Package cli is Switchboard's command line: serve, admin and backup. It parses flags and
// SWITCHBOARD_* variables, wires the parts together and owns start-up and shutdown; main only
// calls Run and exits in one place.
package cli

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
)

// Assets are the files compiled into the binary (the main package embeds them).
type Assets struct {
	Static  fs.FS  // static/: CSS, JS, vendored viewers
	OpenAPI []byte // the OpenAPI document served at /openapi.json
}

// ErrUsage is returned after the usage text was printed: main exits non-zero without another line.
var ErrUsage = errors.New("usage")

// Run runs the subcommand named by args[0].
func Run(args []string, stdout, stderr io.Writer, a Assets) error {
	return run(args, stdout, stderr, a)
}

const usage = `switchboard — business text messaging in one binary

Usage:
  switchboard serve [flags]            run the server (see 'switchboard serve -h')
  switchboard admin COMMAND [flags]    administer the data file (see 'switchboard admin help')
  switchboard backup [-data DIR] FILE  write a consistent copy of the database to FILE
  switchboard restore -data DIR [--force] SOURCE
                                       put a backup in place (a .db or .db.gz file,
                                       s3://BUCKET/KEY, file:///PATH, or latest)
  switchboard cluster status|add|remove -addr HOST:PORT -cluster-key-file FILE
                                       a cluster of nodes through a running one
`

// run dispatches a subcommand; the program exits in one place, main.
func run(args []string, stdout, stderr io.Writer, a Assets) error {
	if len(args) == 0 {
		fmt.Fprint(stderr, usage)
		return ErrUsage
	}
	switch args[0] {
	case "serve":
		return serve(args[1:], stdout, stderr, a)
	case "admin":
		return admin(args[1:], stdout, stderr)
	case "backup":
		return backup(args[1:], stdout, stderr)
	case "restore":
		return restore(args[1:], stdout, stderr)
	case "cluster":
		return runCluster(args[1:], stdout, stderr)
	case "help", "-h", "--help":
		fmt.Fprint(stdout, usage)
		return nil
	}
	fmt.Fprint(stderr, usage)
	return fmt.Errorf("unknown command %q", args[0])
}
