package store_test

import (
	"errors"
	"path/filepath"
	"switchboard/store"
	"testing"
)

func TestUserTokensAndRevokeByID(t *testing.T) {
	st, err := store.Open(filepath.Join(t.TempDir(), "s.db"), store.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	a, _ := st.CreateUser(store.NewUser{Email: "a@example.com", Name: "A"})
	b, _ := st.CreateUser(store.NewUser{Email: "b@example.com", Name: "B"})
	tok, plain, _ := st.CreateToken(a.ID, "one")
	if ts, _ := st.UserTokens(b.ID); len(ts) != 0 {
		t.Fatalf("B lists A's tokens: %+v", ts)
	}
	if err := st.RevokeUserToken(b.ID, tok.ID); !errors.Is(err, store.ErrNotFound) {
		t.Fatalf("B revoking A's token: %v, want ErrNotFound", err)
	}
	if err := st.RevokeUserToken(a.ID, tok.ID); err != nil {
		t.Fatal(err)
	}
	if _, err := st.Authenticate(plain); !errors.Is(err, store.ErrNotFound) {
		t.Fatal("a revoked token authenticates")
	}
}
