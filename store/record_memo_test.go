package store_test

import (
	"errors"
	"testing"

	"switchboard/store"
)

// The token, its user's disabled flag and a number's active flag are read on every API
// request, and their decoding is kept while their stored bytes stay the same. A change to any
// of them must count on the very next request, after the same record was used just before.
func TestEveryRequestSeesTheLatestTokenUserAndNumber(t *testing.T) {
	f := newFixture(t)
	s := f.s
	root, err := s.CreateUser(store.NewUser{Email: "root@example.com", Name: "Root", Superuser: true})
	if err != nil {
		t.Fatal(err)
	}
	tok, plain, err := s.CreateToken(f.user.ID, "zap")
	if err != nil {
		t.Fatal(err)
	}
	for range 2 { // the second comes from the kept decoding
		if got, err := s.Authenticate(plain); err != nil || got.ID != tok.ID || got.UserID != f.user.ID {
			t.Fatalf("Authenticate = %+v, %v; want token %s of %s", got, err, tok.ID, f.user.ID)
		}
	}
	if err := s.SetUserDisabled(root.ID, f.user.ID, true); err != nil {
		t.Fatal(err)
	}
	if _, err := s.Authenticate(plain); !errors.Is(err, store.ErrNotFound) {
		t.Fatalf("a token of a user disabled after its last use still works: %v", err)
	}
	if err := s.SetUserDisabled(root.ID, f.user.ID, false); err != nil {
		t.Fatal(err)
	}
	if _, err := s.Authenticate(plain); err != nil {
		t.Fatalf("the token does not work again once its user is enabled: %v", err)
	}
	if err := s.RevokeUserToken(f.user.ID, tok.ID); err != nil {
		t.Fatal(err)
	}
	if _, err := s.Authenticate(plain); !errors.Is(err, store.ErrNotFound) {
		t.Fatalf("a revoked token still works: %v", err)
	}

	const to = "+14155550123"
	if _, _, err := s.CreateConversation(f.ws, testFrom, to); err != nil {
		t.Fatal(err)
	}
	for range 2 {
		if id, err := s.LookupConversation(f.user.ID, f.ws, testFrom, to); err != nil || id == "" {
			t.Fatalf("LookupConversation = %q, %v; want the conversation", id, err)
		}
	}
	numbers, err := s.Numbers(f.ws)
	if err != nil || len(numbers) != 1 {
		t.Fatalf("Numbers = %v, %v", numbers, err)
	}
	off, on := false, true
	if _, err := s.UpdateNumber(f.ws, numbers[0].ID, nil, &off, nil); err != nil {
		t.Fatal(err)
	}
	var verr store.ValidationError
	if _, err := s.LookupConversation(f.user.ID, f.ws, testFrom, to); !errors.As(err, &verr) || verr[0].Field != "from" {
		t.Fatalf("a number turned off after its last use is still taken: %v", err)
	}
	if _, err := s.UpdateNumber(f.ws, numbers[0].ID, nil, &on, nil); err != nil {
		t.Fatal(err)
	}
	if id, err := s.LookupConversation(f.user.ID, f.ws, testFrom, to); err != nil || id == "" {
		t.Fatalf("the number turned on again is refused: %q, %v", id, err)
	}
}
