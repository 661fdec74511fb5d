package cli

import (
	"errors"
	"fmt"

	"switchboard/store"
)

func adminCreateUser(a *adminEnv, args []string) error {
	email := a.fs.String("email", "", "email address (sign-in name)")
	name := a.fs.String("name", "", "display name")
	password := a.fs.String("password", "", "password (8 to 72 bytes); empty: no password sign-in")
	fromStdin := a.fs.Bool("password-stdin", false, "read the password from standard input (not kept in shell history)")
	super := a.fs.Bool("superuser", false, "may administer everything")
	return a.withStore(args, func(s *store.Store) error {
		if err := required("email", *email, "name", *name); err != nil {
			return err
		}
		if *fromStdin {
			if *password != "" {
				return errors.New("--password and --password-stdin exclude each other")
			}
			p, err := readPassword(a.stdin)
			if err != nil {
				return err
			}
			*password = p
		}
		u, err := s.CreateUser(store.NewUser{Email: *email, Name: *name, Password: *password, Superuser: *super})
		if err != nil {
			return err
		}
		fmt.Fprintln(a.stdout, u.ID)
		return nil
	})
}

// adminListUsers prints one tab-separated row per user: id, email, name, superuser or user.
func adminListUsers(a *adminEnv, args []string) error {
	return a.withStore(args, func(s *store.Store) error {
		list, err := s.Users()
		if err != nil {
			return err
		}
		for _, u := range list {
			kind := "user"
			if u.Superuser {
				kind = "superuser"
			}
			fmt.Fprintf(a.stdout, "%s\t%s\t%s\t%s\n", u.ID, u.Email, u.Name, kind)
		}
		return nil
	})
}

func adminCreateToken(a *adminEnv, args []string) error {
	user := a.fs.String("user", "", "user id the token acts as")
	name := a.fs.String("name", "", "a label for the token")
	return a.withStore(args, func(s *store.Store) error {
		if err := required("user", *user); err != nil {
			return err
		}
		_, plain, err := s.CreateToken(*user, *name)
		if err != nil {
			return err
		}
		fmt.Fprintln(a.stdout, plain)
		return nil
	})
}

func adminRevokeToken(a *adminEnv, args []string) error {
	token := a.fs.String("token", "", "the token to revoke")
	return a.withStore(args, func(s *store.Store) error {
		if err := required("token", *token); err != nil {
			return err
		}
		t, err := s.RevokeToken(*token)
		if err != nil {
			return err
		}
		fmt.Fprintln(a.stdout, t.ID)
		return nil
	})
}
