package store_test

import (
	"bytes"
	"crypto/rand"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/pquerna/otp"
	"github.com/pquerna/otp/totp"

	"switchboard/internal/testutil"
	"switchboard/store"
)

func totpAt(t *testing.T, secret string, at time.Time) string {
	t.Helper()
	c, err := totp.GenerateCodeCustom(secret, at, totp.ValidateOpts{Period: 30, Digits: otp.DigitsSix, Algorithm: otp.AlgorithmSHA1})
	if err != nil {
		t.Fatal(err)
	}
	return c
}

// TestBackupHoldsNoUsableSecret: with two-factor on, an enrolment pending, a reset link and an
// invitation waiting in the mail outbox, neither the database file nor a hot backup of it holds
// a two-factor secret or a link's token, while the store itself still checks codes and the mail
// worker still gets the links to send.
func TestBackupHoldsNoUsableSecret(t *testing.T) {
	key := make([]byte, 32)
	rand.Read(key)
	clock := testutil.NewClock(time.Date(2026, 11, 21, 22, 0, 0, 0, time.UTC))
	path := filepath.Join(t.TempDir(), "switchboard.db")
	s := openStoreAt(t, path, store.Options{Now: clock.Now, SecretKey: key})
	ana, _ := s.CreateUser(store.NewUser{Email: "ana@example.com", Name: "Ana"})
	bo, _ := s.CreateUser(store.NewUser{Email: "bo@example.com", Name: "Bo"})
	_, secret, err := s.StartTwoFactor(ana.ID, "Switchboard")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := s.ConfirmTwoFactor(ana.ID, totpAt(t, secret, clock.Now()), clock.Now()); err != nil {
		t.Fatal(err)
	}
	_, pending, err := s.StartTwoFactor(bo.ID, "Switchboard")
	if err != nil {
		t.Fatal(err)
	}
	mailFor := func(to string) store.MailFor {
		return func(token string) *store.Mail {
			return &store.Mail{To: to, Subject: "A link", Body: "Open http://sb.test/link/" + token + " within the hour.\n"}
		}
	}
	reset, err := s.CreateResetMail(ana.ID, clock.Now(), mailFor(ana.Email))
	if err != nil {
		t.Fatal(err)
	}
	ws, _ := s.CreateWorkspace("Acme")
	_, invite, err := s.CreateInvitation(ws.ID, "cy@example.com", "member", mailFor("cy@example.com"))
	if err != nil {
		t.Fatal(err)
	}

	due, _, err := s.DueMail(clock.Now(), 10)
	if err != nil || len(due) != 2 {
		t.Fatalf("due mail: %d, %v", len(due), err)
	}
	for i, tok := range []string{reset, invite} {
		if !strings.Contains(due[i].Body, "http://sb.test/link/"+tok+" within") {
			t.Fatalf("mail %d as the worker gets it: %q, want the link with its token", i, due[i].Body)
		}
	}
	// A failed try is recorded without the link the worker had in hand.
	if err := s.MailFailed(due[0], "the SMTP server did not answer", clock.Now().Add(time.Minute)); err != nil {
		t.Fatal(err)
	}
	clock.Advance(30 * time.Second)
	if _, err := s.CheckSecondFactor(ana.ID, totpAt(t, secret, clock.Now()), clock.Now()); err != nil {
		t.Fatalf("a code after the secret was sealed: %v", err)
	}
	if _, err := s.ConfirmTwoFactor(bo.ID, totpAt(t, pending, clock.Now()), clock.Now()); err != nil {
		t.Fatalf("confirming a sealed pending enrolment: %v", err)
	}

	var backup bytes.Buffer
	if _, err := s.Backup(&backup, nil); err != nil {
		t.Fatal(err)
	}
	s.Close()
	raw, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	for name, secretText := range map[string]string{"ana's two-factor secret": secret, "bo's two-factor secret": pending,
		"the reset link's token": reset, "the invitation's token": invite} {
		if bytes.Contains(raw, []byte(secretText)) {
			t.Errorf("the database file holds %s", name)
		}
		if bytes.Contains(backup.Bytes(), []byte(secretText)) {
			t.Errorf("the backup holds %s", name)
		}
	}
}
