package cli

import (
	"strings"
	"testing"
	"time"

	"github.com/pquerna/otp"
	"github.com/pquerna/otp/totp"

	"switchboard/store"
)

// TestAdminResetPasswordAndTwoFactor: reset-password prints a working one-time link, or sets
// the password from standard input; reset-2fa turns a lost authenticator off.
func TestAdminResetPasswordAndTwoFactor(t *testing.T) {
	f := newFixture(t)
	d := "-data=" + f.data
	link := ok(t, "admin", "reset-password", d, "--user", "ana@example.com", "--base-url", "https://sb.example/")
	token, found := strings.CutPrefix(link, "https://sb.example/reset/")
	if !found || len(token) < 40 {
		t.Fatalf("reset-password printed %q", link)
	}
	if r := sbStdin(t, nil, "a brand new password\n", "admin", "reset-password", d, "--user", f.user, "--password-stdin"); r.code != 0 || r.stdout != "" {
		t.Fatalf("reset-password --password-stdin: exit %d, stdout %q, stderr %q", r.code, r.stdout, r.stderr)
	}
	fails(t, "has no two-factor", "admin", "reset-2fa", d, "--user", f.user)
	s, err := store.Open(dbPath(f.data), store.Options{})
	if err != nil {
		t.Fatal(err)
	}
	u, _ := s.User(f.user)
	if !store.CheckPassword(u, "a brand new password") {
		t.Error("the password from standard input was not set")
	}
	if _, err := s.ResetUser(token, time.Now()); err != nil {
		t.Errorf("the printed link does not work: %v", err)
	}
	_, secret, err := s.StartTwoFactor(f.user, "Switchboard")
	if err != nil {
		t.Fatal(err)
	}
	c, _ := totp.GenerateCodeCustom(secret, time.Now(), totp.ValidateOpts{Period: 30, Digits: otp.DigitsSix, Algorithm: otp.AlgorithmSHA1})
	if _, err := s.ConfirmTwoFactor(f.user, c, time.Now()); err != nil {
		t.Fatal(err)
	}
	s.Close()
	if r := sb(t, nil, "admin", "reset-2fa", d, "--user", "ana@example.com"); r.code != 0 {
		t.Fatalf("reset-2fa: exit %d, stderr %q", r.code, r.stderr)
	}
	s, err = store.Open(dbPath(f.data), store.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	if u, _ := s.User(f.user); u.TwoFactor {
		t.Fatal("two-factor still on after reset-2fa")
	}
}
