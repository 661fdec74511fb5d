package store_test

import (
	"strings"
	"testing"
	"time"

	bolt "go.etcd.io/bbolt"

	"switchboard/internal/testutil"
	"switchboard/store"
	"switchboard/store/kv"
)

func TestCreateUserValidation(t *testing.T) {
	s := openStore(t, store.Options{})
	for _, tc := range []struct {
		name   string
		in     store.NewUser
		fields []string
	}{
		// (A valid password is hashed with bcrypt, slow under -race: TestCreateUserEmailIsUnique has one.)
		{"valid without a password", store.NewUser{Email: "bob@example.com", Name: "Bob"}, nil},
		{"password of 8 bytes is long enough", store.NewUser{Email: "x", Name: "X", Password: "12345678"}, []string{"email"}},
		{"email missing", store.NewUser{Name: "Ana"}, []string{"email"}},
		{"email with a display name", store.NewUser{Email: "Ana <ana2@example.com>", Name: "Ana"}, []string{"email"}},
		{"email without domain", store.NewUser{Email: "ana", Name: "Ana"}, []string{"email"}},
		{"name missing", store.NewUser{Email: "c@example.com", Name: "  "}, []string{"name"}},
		{"name too long", store.NewUser{Email: "d@example.com", Name: strings.Repeat("é", 256)}, []string{"name"}},
		{"password too short", store.NewUser{Email: "e@example.com", Name: "E", Password: "short"}, []string{"password"}},
		{"password too long", store.NewUser{Email: "f@example.com", Name: "F", Password: strings.Repeat("x", 73)}, []string{"password"}},
		{"everything", store.NewUser{Email: "x", Name: "", Password: "1"}, []string{"email", "name", "password"}},
	} {
		_, err := s.CreateUser(tc.in)
		if tc.fields == nil {
			if err != nil {
				t.Errorf("%s: %v, want created", tc.name, err)
			}
			continue
		}
		wantFields(t, err, tc.fields...)
	}
}

func TestCreateUserEmailIsUnique(t *testing.T) {
	t.Parallel()
	s := openStore(t, store.Options{})
	u, err := s.CreateUser(store.NewUser{Email: "Ana@Example.com", Name: "Ana", Password: "correct horse"})
	if err != nil {
		t.Fatal(err)
	}
	_, err = s.CreateUser(store.NewUser{Email: "ana@example.COM", Name: "Other"})
	wantKind(t, err, store.ErrConflict, "a user with email ana@example.COM already exists")

	got, err := s.UserByEmail(" ANA@example.com ")
	if err != nil || got.ID != u.ID {
		t.Errorf("UserByEmail = %s, %v; want %s", got.ID, err, u.ID)
	}
	if !store.CheckPassword(got, "correct horse") || store.CheckPassword(got, "wrong horse") {
		t.Error("CheckPassword does not tell the right password from a wrong one")
	}
	if strings.Contains(got.PasswordHash, "correct horse") {
		t.Error("the password is stored in plain text")
	}
	_, err = s.UserByEmail("nobody@example.com")
	wantKind(t, err, store.ErrNotFound, "user not found")
}

func TestTokens(t *testing.T) {
	clock := testutil.NewClock(time.Date(2026, 8, 1, 0, 0, 0, 0, time.UTC))
	s := openStore(t, store.Options{Now: clock.Now})
	u, err := s.CreateUser(store.NewUser{Email: "ana@example.com", Name: "Ana"})
	if err != nil {
		t.Fatal(err)
	}
	tok, plain, err := s.CreateToken(u.ID, "")
	if err != nil {
		t.Fatal(err)
	}
	if !strings.HasPrefix(plain, "sbp_") || len(plain) < 4+43 {
		t.Errorf("token %q, want sbp_ and 256 random bits", plain)
	}
	if tok.UserID != u.ID || tok.Kind != store.TokenPersonal || tok.Name == "" {
		t.Errorf("token record = %+v", tok)
	}
	got, err := s.Authenticate(plain)
	if err != nil || got.ID != tok.ID || got.UserID != u.ID {
		t.Errorf("Authenticate = %+v, %v; want token %s of user %s", got, err, tok.ID, u.ID)
	}
	for _, bad := range []string{"", plain + "x", strings.TrimPrefix(plain, "sbp_"), "sbp_" + strings.Repeat("A", 43)} {
		_, err := s.Authenticate(bad)
		wantKind(t, err, store.ErrNotFound, "")
	}

	// Tokens of an unknown user are refused.
	_, _, err = s.CreateToken("01JDX0000000000000000000AA", "x")
	wantKind(t, err, store.ErrNotFound, "user not found")

	// Revoked: not accepted any more, and revoking again is not found.
	if _, err := s.RevokeToken(plain); err != nil {
		t.Fatalf("RevokeToken: %v", err)
	}
	_, err = s.Authenticate(plain)
	wantKind(t, err, store.ErrNotFound, "")
	_, err = s.RevokeToken(plain)
	wantKind(t, err, store.ErrNotFound, "token not found")
}

func TestExpiredTokenIsRefused(t *testing.T) {
	clock := testutil.NewClock(time.Date(2026, 8, 1, 0, 0, 0, 0, time.UTC))
	s := openStore(t, store.Options{Now: clock.Now})
	u, err := s.CreateUser(store.NewUser{Email: "ana@example.com", Name: "Ana"})
	if err != nil {
		t.Fatal(err)
	}
	exp := clock.Now().Add(time.Hour)
	plain := store.RandomToken("sbo_")
	tok := store.Token{ID: s.NewID(), UserID: u.ID, Kind: store.TokenOAuth, CreatedAt: clock.Now(), ExpiresAt: &exp}
	if err := s.DB().Update(func(tx *bolt.Tx) error { return store.PutToken(kv.Wrap(tx, 0, nil), plain, tok) }); err != nil {
		t.Fatal(err)
	}
	if _, err := s.Authenticate(plain); err != nil {
		t.Errorf("Authenticate before expiry: %v", err)
	}
	clock.Advance(time.Hour - time.Millisecond)
	if _, err := s.Authenticate(plain); err != nil {
		t.Errorf("Authenticate 1 ms before expiry: %v", err)
	}
	clock.Advance(time.Millisecond)
	_, err = s.Authenticate(plain)
	wantKind(t, err, store.ErrNotFound, "token expired")
	clock.Advance(24 * time.Hour)
	_, err = s.Authenticate(plain)
	wantKind(t, err, store.ErrNotFound, "token expired")

	// DeleteTokenByID removes it by id.
	if err := s.DB().Update(func(tx *bolt.Tx) error { return store.DeleteTokenByID(kv.Wrap(tx, 0, nil), tok.ID) }); err != nil {
		t.Fatal(err)
	}
	_, err = s.Authenticate(plain)
	wantKind(t, err, store.ErrNotFound, "invalid token")
}

func TestAuthorize(t *testing.T) {
	s := openStore(t, store.Options{})
	f := newFixtureOn(t, s)
	stranger, err := s.CreateUser(store.NewUser{Email: "eve@example.com", Name: "Eve"})
	if err != nil {
		t.Fatal(err)
	}
	if err := s.Authorize(f.ws, f.user.ID); err != nil {
		t.Errorf("Authorize(member) = %v, want nil", err)
	}
	wantKind(t, s.Authorize(f.ws, stranger.ID), store.ErrForbidden, "")
	// An unknown workspace is not found, before any membership check.
	for _, ws := range []string{"01JDX0000000000000000000AA", "not-an-id", ""} {
		wantKind(t, s.Authorize(ws, stranger.ID), store.ErrNotFound, "workspace not found")
		wantKind(t, s.Authorize(ws, f.user.ID), store.ErrNotFound, "workspace not found")
	}

	// Adding twice returns the same membership; removal takes effect at once.
	m1, err := s.AddMember(f.ws, stranger.ID, "")
	if err != nil {
		t.Fatal(err)
	}
	m2, err := s.AddMember(f.ws, stranger.ID, "admin")
	if err != nil || m2.ID != m1.ID {
		t.Errorf("second AddMember = %s, %v; want the existing %s", m2.ID, err, m1.ID)
	}
	if err := s.Authorize(f.ws, stranger.ID); err != nil {
		t.Errorf("Authorize after AddMember = %v", err)
	}
	ws, err := s.UserWorkspaces(stranger.ID)
	if err != nil || len(ws) != 1 || ws[0].ID != f.ws {
		t.Errorf("UserWorkspaces = %v, %v; want the one workspace", ws, err)
	}
	if err := s.RemoveMember(f.ws, stranger.ID); err != nil {
		t.Fatal(err)
	}
	wantKind(t, s.Authorize(f.ws, stranger.ID), store.ErrForbidden, "")
	if ws, _ := s.UserWorkspaces(stranger.ID); len(ws) != 0 {
		t.Errorf("UserWorkspaces after removal = %v, want none", ws)
	}
	wantKind(t, s.RemoveMember(f.ws, stranger.ID), store.ErrNotFound, "")
}

func TestHasSuperuserAndMembers(t *testing.T) {
	s := openStore(t, store.Options{})
	if has, err := s.HasSuperuser(); err != nil || has {
		t.Errorf("HasSuperuser on a new database = %v, %v; want false", has, err)
	}
	f := newFixtureOn(t, s) // its user is not a superuser
	if has, _ := s.HasSuperuser(); has {
		t.Error("HasSuperuser = true with only an ordinary user")
	}
	admin, err := s.CreateUser(store.NewUser{Email: "root@example.com", Name: "Root", Superuser: true})
	if err != nil {
		t.Fatal(err)
	}
	if has, err := s.HasSuperuser(); err != nil || !has {
		t.Errorf("HasSuperuser after creating one = %v, %v; want true", has, err)
	}
	if _, err := s.AddMember(f.ws, admin.ID, "admin"); err != nil {
		t.Fatal(err)
	}
	members, err := s.Members(f.ws)
	if err != nil || len(members) != 2 {
		t.Fatalf("Members = %v, %v; want 2", members, err)
	}
	roles := map[string]string{}
	for _, m := range members {
		roles[m.UserID] = m.Role
	}
	if roles[f.user.ID] != "member" || roles[admin.ID] != "admin" {
		t.Errorf("member roles = %v, want member for %s and admin for %s", roles, f.user.ID, admin.ID)
	}
	_, err = s.AddMember(f.ws, "01JDX0000000000000000000AA", "")
	wantKind(t, err, store.ErrNotFound, "user not found")
	_, err = s.AddMember("01JDX0000000000000000000AA", admin.ID, "")
	wantKind(t, err, store.ErrNotFound, "workspace not found")
}
