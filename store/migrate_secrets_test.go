package store

import (
	"crypto/rand"
	"errors"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/pquerna/otp/totp"

	"switchboard/store/kv"
)

// TestMigrateSealsSecrets writes a schema-9 file (a two-factor secret and a pending one in
// clear, a reset e-mail with its link in its body), opens it with a secret key, and expects the
// secrets and the link's token sealed, codes still taken and the e-mail still sent with its
// link. Opening such a file without a key is refused rather than sealing with a key that dies
// with the process.
func TestMigrateSealsSecrets(t *testing.T) {
	path := filepath.Join(t.TempDir(), "v9.db")
	s, err := Open(path, Options{})
	if err != nil {
		t.Fatal(err)
	}
	ana, _ := s.CreateUser(NewUser{Email: "ana@example.com", Name: "Ana"})
	bo, _ := s.CreateUser(NewUser{Email: "bo@example.com", Name: "Bo"})
	token := RandomToken("sbr_")
	body := "Choose a new password here:\nhttp://sb.test/reset/" + token + "\n"
	if _, err := s.QueueMail(ana.Email, "Reset", body); err != nil {
		t.Fatal(err)
	}
	const secret, pending = "JBSWY3DPEHPK3PXPJBSWY3DPEHPK3PXP", "KRSXG5CTMVRXEZLUKRSXG5CTMVRXEZLU"
	err = rawUpdate(s.DB(), func(tx *kv.Tx) error {
		if err := putJSON(tx.Bucket(bTwoFactor), idKey(ana.ID), twoFactor{Secret: secret}); err != nil {
			return err
		}
		if err := putJSON(tx.Bucket(bTwoFactor), idKey(bo.ID), twoFactor{Pending: pending}); err != nil {
			return err
		}
		return putSchema(tx, 9)
	})
	if err != nil {
		t.Fatal(err)
	}
	s.Close()

	if _, err := Open(path, Options{}); err == nil || !strings.Contains(err.Error(), "secret key") {
		t.Fatalf("opening a schema-9 file with secrets and no key: %v, want a refusal naming the secret key", err)
	}
	key := make([]byte, SecretKeySize)
	rand.Read(key)
	s, err = Open(path, Options{SecretKey: key})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	err = rawView(s.DB(), func(tx *kv.Tx) error {
		var a, b twoFactor
		getJSON(tx.Bucket(bTwoFactor), idKey(ana.ID), &a)
		getJSON(tx.Bucket(bTwoFactor), idKey(bo.ID), &b)
		if !isSealed(a.Secret) || !isSealed(b.Pending) {
			return errors.New("the two-factor secrets are not sealed")
		}
		return tx.Bucket(bMail).ForEach(func(_, v []byte) error {
			if strings.Contains(string(v), token) {
				return errors.New("the queued e-mail still holds the link's token")
			}
			return nil
		})
	})
	if err != nil {
		t.Fatal(err)
	}
	now := time.Now()
	code, _ := totp.GenerateCode(secret, now)
	if _, err := s.CheckSecondFactor(ana.ID, code, now); err != nil {
		t.Fatalf("a code of the migrated secret: %v", err)
	}
	code, _ = totp.GenerateCode(pending, now)
	if _, err := s.ConfirmTwoFactor(bo.ID, code, now); err != nil {
		t.Fatalf("confirming the migrated pending enrolment: %v", err)
	}
	due, _, err := s.DueMail(now.Add(time.Hour), 10)
	if err != nil || len(due) != 1 || due[0].Body != body {
		t.Fatalf("the migrated e-mail as the worker gets it: %+v %v, want its body as it was", due, err)
	}
}

// TestSecretKeyMismatchIsTold: a start with another secret key than the file's secrets were
// sealed with says so, and its codes are refused rather than the server failing.
func TestSecretKeyMismatchIsTold(t *testing.T) {
	path := filepath.Join(t.TempDir(), "k.db")
	key, other := make([]byte, SecretKeySize), make([]byte, SecretKeySize)
	rand.Read(key)
	rand.Read(other)
	s, err := Open(path, Options{SecretKey: key})
	if err != nil {
		t.Fatal(err)
	}
	ana, _ := s.CreateUser(NewUser{Email: "ana@example.com", Name: "Ana"})
	_, secret, _ := s.StartTwoFactor(ana.ID, "Switchboard")
	now := time.Now()
	code, _ := totp.GenerateCode(secret, now)
	if _, err := s.ConfirmTwoFactor(ana.ID, code, now); err != nil || !s.SecretKeyMatches() {
		t.Fatalf("confirm: %v; key matches %v", err, s.SecretKeyMatches())
	}
	s.Close()
	s, err = Open(path, Options{SecretKey: other})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	if s.SecretKeyMatches() {
		t.Fatal("another key: SecretKeyMatches says yes")
	}
	code, _ = totp.GenerateCode(secret, now.Add(30*time.Second))
	var verrs ValidationError
	if _, err := s.CheckSecondFactor(ana.ID, code, now.Add(30*time.Second)); !errors.As(err, &verrs) {
		t.Fatalf("a code under another key: %v, want it refused as a wrong code", err)
	}
}
