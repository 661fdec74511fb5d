package cli

import (
	"context"
	"errors"
	"fmt"
	"os"
	"strings"
	"time"

	"switchboard/mail"
	"switchboard/store"
)

func adminCreateUser(a *adminEnv, args []string) error {
	email := a.fs.String("email", "", "email address (sign-in name)")
	name := a.fs.String("name", "", "display name")
	password := a.fs.String("password", "", "password (8 to 72 characters); empty: no password sign-in")
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

// findUser resolves --user: a user id, or an e-mail address.
func findUser(s *store.Store, ref string) (store.User, error) {
	if strings.Contains(ref, "@") {
		return s.UserByEmail(ref)
	}
	return s.User(ref)
}

// adminResetPassword prints a one-hour, single-use reset link for the user, or with
// --password-stdin sets the password read from standard input. Either way every session of
// the user ends when the password changes.
func adminResetPassword(a *adminEnv, args []string) error {
	user := a.fs.String("user", "", "user id or e-mail address")
	fromStdin := a.fs.Bool("password-stdin", false, "set the password read from standard input instead of printing a link")
	baseURL := a.fs.String("base-url", defaultBaseURL(), "public URL the link is made under")
	return a.withStore(args, func(s *store.Store) error {
		if err := required("user", *user); err != nil {
			return err
		}
		u, err := findUser(s, *user)
		if err != nil {
			return err
		}
		if *fromStdin {
			p, err := readPassword(a.stdin)
			if err != nil {
				return err
			}
			if err := s.SetPassword(u.ID, p); err != nil {
				return err
			}
			fmt.Fprintf(a.stderr, "password of %s set; their sessions are signed out\n", u.Email)
			return nil
		}
		token, err := s.CreateReset(u.ID, s.Now())
		if err != nil {
			return err
		}
		fmt.Fprintln(a.stdout, strings.TrimRight(*baseURL, "/")+"/reset/"+token)
		fmt.Fprintf(a.stderr, "send this link to %s: it sets a new password once, within an hour\n", u.Email)
		return nil
	})
}

// adminReset2FA turns two-factor off for a user who lost their authenticator app.
func adminReset2FA(a *adminEnv, args []string) error {
	user := a.fs.String("user", "", "user id or e-mail address")
	return a.withStore(args, func(s *store.Store) error {
		if err := required("user", *user); err != nil {
			return err
		}
		u, err := findUser(s, *user)
		if err != nil {
			return err
		}
		if !u.TwoFactor {
			return errors.New(u.Email + " has no two-factor to reset")
		}
		if err := s.ResetTwoFactor(u.ID); err != nil {
			return err
		}
		fmt.Fprintf(a.stderr, "two-factor of %s is off; they can set it up again on their profile\n", u.Email)
		return nil
	})
}

// defaultBaseURL is SWITCHBOARD_BASE_URL, else the server's default address.
func defaultBaseURL() string {
	if v := os.Getenv(envName("base-url")); v != "" {
		return v
	}
	return "http://localhost:8080"
}

// adminTestEmail sends one e-mail now through -smtp-url, and says what went wrong if it fails:
// the way to check the e-mail settings before relying on them.
func adminTestEmail(a *adminEnv, args []string) error {
	to := a.fs.String("to", "", "address to send the test to")
	var cfg mail.Config
	mailFlags(a.fs, &cfg)
	if err := applyEnv(a.fs); err != nil {
		return err
	}
	if err := a.fs.Parse(args); err != nil {
		return err
	}
	if err := required("to", *to, "smtp-url", cfg.URL); err != nil {
		return err
	}
	if err := cfg.Check(); err != nil {
		return err
	}
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	err := cfg.Send(ctx, store.Mail{To: *to, Subject: "Switchboard test e-mail",
		Body: "This is a test from switchboard admin test-email. E-mail works.\n"})
	if err != nil {
		return err
	}
	fmt.Fprintf(a.stderr, "test e-mail sent to %s\n", *to)
	return nil
}
