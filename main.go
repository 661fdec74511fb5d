// Command switchboard is a business text-messaging server in one binary: `switchboard serve`
// runs it, `switchboard admin …` administers its data file headlessly, `switchboard backup`
// copies the database while it runs. The commands live in package cli.
package main

import (
	"errors"
	"fmt"
	"os"

	"switchboard/cli"
)

func main() {
	err := cli.Run(os.Args[1:], os.Stdout, os.Stderr, cli.Assets{Static: staticFiles, OpenAPI: openAPIDocument})
	if err != nil {
		if !errors.Is(err, cli.ErrUsage) {
			fmt.Fprintln(os.Stderr, "switchboard:", err)
		}
		os.Exit(1)
	}
}
