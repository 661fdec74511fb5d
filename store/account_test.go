package store_test

import (
	"errors"
	"strings"
	"testing"
	"time"

	"switchboard/internal/testutil"
	"switchboard/store"
)

func accountUsers(t *testing.T, s *store.Store) (root, ana store.User) {
	t.Helper()
	var err error
	if root, err = s.CreateUser(store.NewUser{Email: "root@example.com", Name: "Root", Password: "root password", Superuser: true}); err != nil {
		t.Fatal(err)
	}
	if ana, err = s.CreateUser(store.NewUser{Email: "ana@example.com", Name: "Ana", Password: "old password"}); err != nil {
		t.Fatal(err)
	}
	return root, ana
}

func sessionCount(t *testing.T, s *store.Store, userID string) int {
	t.Helper()
	rows, err := s.UserSessions(userID)
	if err != nil {
		t.Fatal(err)
	}
	return len(rows)
}

func TestChangePasswordEndsOtherSessions(t *testing.T) {
	s := openStore(t, store.Options{})
	_, ana := accountUsers(t, s)
	here, hereToken, _ := s.CreateSession(store.NewSession{UserID: ana.ID})
	_, otherToken, _ := s.CreateSession(store.NewSession{UserID: ana.ID})
	wantFields(t, s.ChangePassword(ana.ID, "wrong one", "new password", here.ID), "current_password")
	wantFields(t, s.ChangePassword(ana.ID, "old password", "short", here.ID), "password")
	if n := sessionCount(t, s, ana.ID); n != 2 {
		t.Fatalf("a refused change ended sessions: %d left, want 2", n)
	}
	if err := s.ChangePassword(ana.ID, "old password", "new password", here.ID); err != nil {
		t.Fatal(err)
	}
	if _, _, err := s.SessionByToken(otherToken); !errors.Is(err, store.ErrNotFound) {
		t.Fatalf("the other session survived the password change: %v", err)
	}
	if _, _, err := s.SessionByToken(hereToken); err != nil {
		t.Fatalf("the session the change was made from ended: %v", err)
	}
	u, _ := s.User(ana.ID)
	if !store.CheckPassword(u, "new password") || store.CheckPassword(u, "old password") {
		t.Fatal("expected the new password to be the one")
	}
}

func TestDisableUserStopsSessionsAndTokens(t *testing.T) {
	s := openStore(t, store.Options{})
	root, ana := accountUsers(t, s)
	_, token, _ := s.CreateSession(store.NewSession{UserID: ana.ID})
	_, plain, err := s.CreateToken(ana.ID, "zap")
	if err != nil {
		t.Fatal(err)
	}
	wantKind(t, s.SetUserDisabled(root.ID, root.ID, true), store.ErrForbidden, "")
	if err := s.SetUserDisabled(root.ID, ana.ID, true); err != nil {
		t.Fatal(err)
	}
	if _, _, err := s.SessionByToken(token); !errors.Is(err, store.ErrNotFound) {
		t.Fatalf("a disabled user's session still works: %v", err)
	}
	if _, err := s.Authenticate(plain); !errors.Is(err, store.ErrNotFound) {
		t.Fatalf("a disabled user's token still works: %v", err)
	}
	if err := s.SetUserDisabled(root.ID, ana.ID, false); err != nil {
		t.Fatal(err)
	}
	if _, err := s.Authenticate(plain); err != nil {
		t.Fatalf("the token should work again once enabled: %v", err)
	}
}

func TestSuperuserFlagRules(t *testing.T) {
	s := openStore(t, store.Options{})
	root, ana := accountUsers(t, s)
	wantKind(t, s.SetSuperuser(root.ID, root.ID, false), store.ErrForbidden, "")
	if err := s.SetSuperuser(root.ID, ana.ID, true); err != nil {
		t.Fatal(err)
	}
	_, token, _ := s.CreateSession(store.NewSession{UserID: ana.ID})
	if err := s.SetSuperuser(root.ID, ana.ID, false); err != nil {
		t.Fatal(err)
	}
	if _, _, err := s.SessionByToken(token); !errors.Is(err, store.ErrNotFound) {
		t.Fatalf("a demoted superuser's session survived: %v", err)
	}
	// With two superusers one may demote the other; the one left can then be neither disabled
	// nor demoted.
	if err := s.SetSuperuser(root.ID, ana.ID, true); err != nil {
		t.Fatal(err)
	}
	if err := s.SetSuperuser(ana.ID, root.ID, false); err != nil {
		t.Fatal(err)
	}
	wantKind(t, s.SetUserDisabled(root.ID, ana.ID, true), store.ErrConflict, "")
	wantKind(t, s.SetSuperuser(root.ID, ana.ID, false), store.ErrConflict, "")
}

func TestSessionsAreListedAndEnded(t *testing.T) {
	s := openStore(t, store.Options{})
	_, ana := accountUsers(t, s)
	a, _, _ := s.CreateSession(store.NewSession{UserID: ana.ID, UserAgent: "Firefox", Address: "192.0.2.1"})
	b, tb, _ := s.CreateSession(store.NewSession{UserID: ana.ID})
	c, _, _ := s.CreateSession(store.NewSession{UserID: ana.ID})
	rows, _ := s.UserSessions(ana.ID)
	if len(rows) != 3 || rows[0].ID != a.ID || rows[0].UserAgent != "Firefox" || rows[0].Address != "192.0.2.1" {
		t.Fatalf("sessions: %+v", rows)
	}
	if err := s.EndUserSession(ana.ID, c.ID); err != nil {
		t.Fatal(err)
	}
	wantKind(t, s.EndUserSession("01ARZ3NDEKTSV4RRFFQ69G5FAV", a.ID), store.ErrNotFound, "")
	if err := s.EndUserSessions(ana.ID, b.ID); err != nil {
		t.Fatal(err)
	}
	rows, _ = s.UserSessions(ana.ID)
	if len(rows) != 1 || rows[0].ID != b.ID {
		t.Fatalf("expected only the kept session, got %+v", rows)
	}
	if err := s.DeleteSession(tb); err != nil || sessionCount(t, s, ana.ID) != 0 {
		t.Fatalf("sign-out left a session: %v", err)
	}
}

// TestResetTokenCheckedBeforeThePassword: a made-up reset token is refused before the new
// password is looked at (hashing it would cost a bcrypt for nothing).
func TestResetTokenCheckedBeforeThePassword(t *testing.T) {
	s := openStore(t, store.Options{})
	_, err := s.UseReset("sbr_madeup", "short", s.Now())
	wantKind(t, err, store.ErrNotFound, "")
}

// TestNewResetLinkVoidsOlderOnes: a second reset link for a user makes the first stop working
// (another user's stays), and expired links are swept.
func TestNewResetLinkVoidsOlderOnes(t *testing.T) {
	clock := testutil.NewClock(time.Date(2026, 11, 21, 22, 0, 0, 0, time.UTC))
	s := openStore(t, store.Options{Now: clock.Now})
	ana, _ := s.CreateUser(store.NewUser{Email: "ana@example.com", Name: "Ana"})
	bo, _ := s.CreateUser(store.NewUser{Email: "bo@example.com", Name: "Bo"})
	first, _ := s.CreateReset(ana.ID, clock.Now())
	bos, _ := s.CreateReset(bo.ID, clock.Now())
	second, err := s.CreateResetMail(ana.ID, clock.Now(), nil)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := s.ResetUser(first, clock.Now()); !errors.Is(err, store.ErrNotFound) {
		t.Fatalf("the older link after a new one: %v, want not found", err)
	}
	for _, tok := range []string{second, bos} {
		if _, err := s.ResetUser(tok, clock.Now()); err != nil {
			t.Fatalf("a current link: %v", err)
		}
	}
	if n, err := s.SweepExpiredLinks(clock.Now()); err != nil || n != 0 {
		t.Fatalf("sweep before anything expired: %d, %v; want 0", n, err)
	}
	clock.Advance(store.ResetTTL)
	if n, err := s.SweepExpiredLinks(clock.Now()); err != nil || n != 2 {
		t.Fatalf("sweep after an hour: %d, %v; want the 2 expired links", n, err)
	}
}

// TestEmailChangeWaitsForItsLink: a requested address changes nothing until its link is used;
// an address taken meanwhile is refused then; a link expires after a day.
func TestEmailChangeWaitsForItsLink(t *testing.T) {
	clock := testutil.NewClock(time.Date(2026, 11, 21, 22, 0, 0, 0, time.UTC))
	s := openStore(t, store.Options{Now: clock.Now})
	ana, _ := s.CreateUser(store.NewUser{Email: "ana@example.com", Name: "Ana"})
	var token string
	mailFor := func(tok string) *store.Mail {
		return &store.Mail{To: "new@example.com", Subject: "Confirm", Body: "link " + tok + " ."}
	}
	if err := s.RequestEmailChange(ana.ID, "new@example.com", clock.Now(), nil, mailFor); err != nil {
		t.Fatal(err)
	}
	due, _, _ := s.DueMail(clock.Now(), 10)
	if len(due) != 1 {
		t.Fatalf("%d e-mails queued, want the confirmation", len(due))
	}
	token = strings.Fields(due[0].Body)[1]
	if u, _ := s.UserByEmail("ana@example.com"); u.ID != ana.ID {
		t.Fatal("the old address stopped working before the confirmation")
	}
	if pending, _, _ := s.PendingEmailChange(ana.ID, clock.Now()); pending != "new@example.com" {
		t.Fatalf("pending %q", pending)
	}
	if _, err := s.CreateUser(store.NewUser{Email: "new@example.com", Name: "Squatter"}); err != nil {
		t.Fatal(err)
	}
	_, err := s.ConfirmEmailChange(token, clock.Now())
	wantKind(t, err, store.ErrConflict, "")
	if err := s.RequestEmailChange(ana.ID, "other@example.com", clock.Now(), nil, mailFor); err != nil {
		t.Fatal(err)
	}
	due, _, _ = s.DueMail(clock.Now(), 10)
	token = strings.Fields(due[len(due)-1].Body)[1]
	clock.Advance(store.EmailChangeTTL)
	_, err = s.ConfirmEmailChange(token, clock.Now())
	wantKind(t, err, store.ErrNotFound, "")
	if u, _ := s.User(ana.ID); u.Email != "ana@example.com" {
		t.Fatalf("e-mail %s after refused confirmations", u.Email)
	}
}
