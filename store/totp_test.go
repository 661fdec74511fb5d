package store_test

import (
	"errors"
	"testing"
	"time"

	"github.com/pquerna/otp"
	"github.com/pquerna/otp/totp"

	"switchboard/store"
)

func code(t *testing.T, secret string, at time.Time) string {
	t.Helper()
	c, err := totp.GenerateCodeCustom(secret, at, totp.ValidateOpts{Period: 30, Digits: otp.DigitsSix, Algorithm: otp.AlgorithmSHA1})
	if err != nil {
		t.Fatal(err)
	}
	return c
}

func TestTwoFactorEnrolAndSignIn(t *testing.T) {
	s := openStore(t, store.Options{})
	_, ana := accountUsers(t, s)
	now := time.Date(2026, 11, 25, 12, 0, 10, 0, time.UTC)
	uri, secret, err := s.StartTwoFactor(ana.ID, "Switchboard")
	if err != nil || secret == "" || uri == "" {
		t.Fatalf("start: %q %v", uri, err)
	}
	wantFields(t, func() error { _, err := s.ConfirmTwoFactor(ana.ID, "000000", now); return err }(), "code")
	codes, err := s.ConfirmTwoFactor(ana.ID, code(t, secret, now), now)
	if err != nil || len(codes) != 10 {
		t.Fatalf("confirm: %d codes, %v", len(codes), err)
	}
	if u, _ := s.User(ana.ID); !u.TwoFactor {
		t.Fatal("expected two-factor on")
	}
	// The code used to confirm is not taken again, nor is one of an earlier step.
	wantFields(t, func() error { _, err := s.CheckSecondFactor(ana.ID, code(t, secret, now), now); return err }(), "code")
	later := now.Add(30 * time.Second)
	if rec, err := s.CheckSecondFactor(ana.ID, code(t, secret, later), later.Add(25*time.Second)); err != nil || rec {
		t.Fatalf("a code of the previous step (one step of drift): %v %v", rec, err)
	}
	wantFields(t, func() error { _, err := s.CheckSecondFactor(ana.ID, code(t, secret, later), later); return err }(), "code")
	// Two steps away is refused.
	far := later.Add(2 * time.Minute)
	wantFields(t, func() error {
		_, err := s.CheckSecondFactor(ana.ID, code(t, secret, far.Add(-time.Minute)), far)
		return err
	}(), "code")
	// A recovery code works once.
	if rec, err := s.CheckSecondFactor(ana.ID, codes[3], far); err != nil || !rec {
		t.Fatalf("recovery code: %v %v", rec, err)
	}
	wantFields(t, func() error { _, err := s.CheckSecondFactor(ana.ID, codes[3], far); return err }(), "code")
	if n, _ := s.RecoveryCodesLeft(ana.ID); n != 9 {
		t.Fatalf("%d recovery codes left, want 9", n)
	}
	if err := s.ResetTwoFactor(ana.ID); err != nil {
		t.Fatal(err)
	}
	if u, _ := s.User(ana.ID); u.TwoFactor {
		t.Fatal("expected two-factor off after the reset")
	}
}

func TestPasswordResetIsSingleUseAndExpires(t *testing.T) {
	s := openStore(t, store.Options{})
	_, ana := accountUsers(t, s)
	now := time.Date(2026, 11, 25, 12, 0, 0, 0, time.UTC)
	_, session, _ := s.CreateSession(store.NewSession{UserID: ana.ID})
	token, err := s.CreateReset(ana.ID, now)
	if err != nil {
		t.Fatal(err)
	}
	if u, err := s.ResetUser(token, now.Add(59*time.Minute)); err != nil || u.ID != ana.ID {
		t.Fatalf("reset user: %v", err)
	}
	if _, err := s.ResetUser(token, now.Add(time.Hour)); !errors.Is(err, store.ErrNotFound) {
		t.Fatalf("an hour-old link: %v, want not found", err)
	}
	wantFields(t, func() error { _, err := s.UseReset(token, "short", now); return err }(), "password")
	if _, err := s.UseReset(token, "brand new password", now.Add(time.Minute)); err != nil {
		t.Fatal(err)
	}
	if _, err := s.UseReset(token, "another password", now.Add(time.Minute)); !errors.Is(err, store.ErrNotFound) {
		t.Fatalf("a used link: %v, want not found", err)
	}
	if _, _, err := s.SessionByToken(session); !errors.Is(err, store.ErrNotFound) {
		t.Fatal("a reset left the user's sessions running")
	}
	u, _ := s.UserByEmail(ana.Email)
	if !store.CheckPassword(u, "brand new password") {
		t.Fatal("the new password does not work")
	}
}
