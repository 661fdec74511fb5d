package store_test

import (
	"errors"
	"fmt"
	"path/filepath"
	"testing"

	"switchboard/store"
)

// openStore opens a fresh database file in a temporary directory and closes it when the
// test ends.
func openStore(t testing.TB, opts store.Options) *store.Store {
	t.Helper()
	return openStoreAt(t, filepath.Join(t.TempDir(), "switchboard.db"), opts)
}

func openStoreAt(t testing.TB, path string, opts store.Options) *store.Store {
	t.Helper()
	s, err := store.Open(path, opts)
	if err != nil {
		t.Fatalf("Open(%s): %v", path, err)
	}
	t.Cleanup(func() { s.Close() })
	return s
}

// fixture is a workspace with one member and one active number.
type fixture struct {
	s      *store.Store
	ws     string
	user   store.User
	number string
}

const testFrom = "+14155550100"

func newFixture(t testing.TB) *fixture {
	t.Helper()
	return newFixtureOn(t, openStore(t, store.Options{}))
}

func newFixtureOn(t testing.TB, s *store.Store) *fixture {
	t.Helper()
	w, err := s.CreateWorkspace("Acme")
	if err != nil {
		t.Fatalf("CreateWorkspace: %v", err)
	}
	u, err := s.CreateUser(store.NewUser{Email: "ana" + w.ID + "@example.com", Name: "Ana"})
	if err != nil {
		t.Fatalf("CreateUser: %v", err)
	}
	if _, err := s.AddMember(w.ID, u.ID, ""); err != nil {
		t.Fatalf("AddMember: %v", err)
	}
	// A phone belongs to one workspace: the first fixture of a store gets testFrom, later ones
	// +1415555 9xxx numbers of their own.
	number := testFrom
	if wss, err := s.Workspaces(); err == nil && len(wss) > 1 {
		number = fmt.Sprintf("+14155559%03d", len(wss))
	}
	if _, err := s.AddNumber(w.ID, number, "Main"); err != nil {
		t.Fatalf("AddNumber: %v", err)
	}
	return &fixture{s: s, ws: w.ID, user: u, number: number}
}

func ptr(s string) *string { return &s }

// contact creates a contact or fails the test.
func (f *fixture) contact(t testing.TB, phone, first, last string) store.Contact {
	t.Helper()
	in := store.ContactInput{Phone: phone}
	if first != "" {
		in.FirstName = ptr(first)
	}
	if last != "" {
		in.LastName = ptr(last)
	}
	c, err := f.s.CreateContact(f.ws, in)
	if err != nil {
		t.Fatalf("CreateContact(%s %s %s): %v", phone, first, last, err)
	}
	return c
}

// wantKind fails the test unless err is a *store.Error wrapping kind with message msg
// (msg "" skips the message check).
func wantKind(t testing.TB, err, kind error, msg string) {
	t.Helper()
	var se *store.Error
	if !errors.As(err, &se) {
		t.Fatalf("error = %v (%T), want a *store.Error wrapping %v", err, err, kind)
	}
	if !errors.Is(err, kind) {
		t.Fatalf("error = %v wraps %v, want %v", err, se.Err, kind)
	}
	if msg != "" && se.Msg != msg {
		t.Fatalf("error message = %q, want %q", se.Msg, msg)
	}
}

// wantFields fails the test unless err is a store.ValidationError on exactly fields, in order.
func wantFields(t testing.TB, err error, fields ...string) store.ValidationError {
	t.Helper()
	var ve store.ValidationError
	if !errors.As(err, &ve) {
		t.Fatalf("error = %v (%T), want a store.ValidationError on %v", err, err, fields)
	}
	got := make([]string, len(ve))
	for i, fe := range ve {
		got[i] = fe.Field
		if fe.Message == "" {
			t.Errorf("field %s has an empty message", fe.Field)
		}
	}
	if len(got) != len(fields) {
		t.Fatalf("validation fields = %v, want %v (errors %v)", got, fields, ve)
	}
	for i := range got {
		if got[i] != fields[i] {
			t.Fatalf("validation fields = %v, want %v (errors %v)", got, fields, ve)
		}
	}
	return ve
}

func ids(cs []store.Contact) []string {
	out := make([]string, len(cs))
	for i, c := range cs {
		out[i] = c.ID
	}
	return out
}
