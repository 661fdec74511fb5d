// Command switchboard is a business text-messaging server in one binary: `switchboard serve`
// runs it, `switchboard admin …` administers its data file headlessly, `switchboard backup`
// copies the database while it runs.
package main

import (
	"errors"
	"fmt"
	"io"
	"os"
)

func main() {
	if err := run(os.Args[1:], os.Stdout, os.Stderr); err != nil {
		if !errors.Is(err, errUsage) {
			fmt.Fprintln(os.Stderr, "switchboard:", err)
		}
		os.Exit(1)
	}
}

var errUsage = errors.New("usage")

const usage = `switchboard — business text messaging in one binary

Usage:
  switchboard serve [flags]            run the server (see 'switchboard serve -h')
  switchboard admin COMMAND [flags]    administer the data file (see 'switchboard admin help')
  switchboard backup [-data DIR] FILE  write a consistent copy of the database to FILE
`

// run dispatches a subcommand; the program exits in one place, main.
func run(args []string, stdout, stderr io.Writer) error {
	if len(args) == 0 {
		fmt.Fprint(stderr, usage)
		return errUsage
	}
	switch args[0] {
	case "serve":
		return serve(args[1:], stdout, stderr)
	case "admin":
		return admin(args[1:], stdout, stderr)
	case "backup":
		return backup(args[1:], stdout, stderr)
	case "help", "-h", "--help":
		fmt.Fprint(stdout, usage)
		return nil
	}
	fmt.Fprint(stderr, usage)
	return fmt.Errorf("unknown command %q", args[0])
}
