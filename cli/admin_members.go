package cli

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"strings"

	"switchboard/store"
)

func adminAddMember(a *adminEnv, args []string) error {
	ws := a.fs.String("workspace", "", "workspace id")
	user := a.fs.String("user", "", "user id")
	role := a.fs.String("role", "member", "member or admin")
	return a.withStore(args, func(s *store.Store) error {
		if err := required("workspace", *ws, "user", *user); err != nil {
			return err
		}
		if *role != "member" && *role != "admin" {
			return fmt.Errorf("--role must be member or admin")
		}
		m, err := s.AddMember(*ws, *user, *role)
		if err != nil {
			return err
		}
		fmt.Fprintln(a.stdout, m.ID)
		return nil
	})
}

// adminRemoveMember ends a membership: the user's next request to the workspace
// is refused, and the webhook subscriptions they made in it are deleted with their pending
// deliveries, in one transaction. It creates nothing, so it prints nothing on success.
func adminRemoveMember(a *adminEnv, args []string) error {
	ws := a.fs.String("workspace", "", "workspace id")
	user := a.fs.String("user", "", "user id")
	return a.withStore(args, func(s *store.Store) error {
		if err := required("workspace", *ws, "user", *user); err != nil {
			return err
		}
		if a.fs.NArg() > 0 {
			return fmt.Errorf("unexpected argument %q", a.fs.Arg(0))
		}
		return s.RemoveMember(*ws, *user)
	})
}

// maxPasswordInput bounds what --password-stdin reads: a password is at most 72 characters.
const maxPasswordInput = 4096

// readPassword reads a password from standard input for --password-stdin: the first line, without
// its line ending (so `echo pw |` and a here-string work), and nothing else. Empty input is an
// error rather than a user without a password, which would surprise whoever piped one in.
func readPassword(r io.Reader) (string, error) {
	if r == nil {
		return "", errors.New("--password-stdin: no standard input")
	}
	line, err := bufio.NewReader(io.LimitReader(r, maxPasswordInput)).ReadString('\n')
	if err != nil && err != io.EOF {
		return "", fmt.Errorf("--password-stdin: %w", err)
	}
	line = strings.TrimSuffix(strings.TrimSuffix(line, "\n"), "\r")
	if line == "" {
		return "", errors.New("--password-stdin: standard input held no password")
	}
	return line, nil
}
