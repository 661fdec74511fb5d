package store_test

import (
	"errors"
	"path/filepath"
	"switchboard/store"
	"testing"
)

func TestSetMemberRoleKeepsAnAdmin(t *testing.T) {
	st, err := store.Open(filepath.Join(t.TempDir(), "s.db"), store.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	ws, _ := st.CreateWorkspace("Acme")
	a, _ := st.CreateUser(store.NewUser{Email: "a@example.com", Name: "A"})
	b, _ := st.CreateUser(store.NewUser{Email: "b@example.com", Name: "B"})
	st.AddMember(ws.ID, a.ID, "admin")
	st.AddMember(ws.ID, b.ID, "member")
	if _, err := st.SetMemberRole(ws.ID, a.ID, "member"); !errors.Is(err, store.ErrConflict) {
		t.Fatalf("demoting the last admin: %v, want ErrConflict", err)
	}
	if m, err := st.SetMemberRole(ws.ID, b.ID, "admin"); err != nil || m.Role != "admin" {
		t.Fatalf("promote: %+v %v", m, err)
	}
	if _, err := st.SetMemberRole(ws.ID, a.ID, "member"); err != nil {
		t.Fatalf("demoting one of two admins: %v", err)
	}
	if _, err := st.SetMemberRole(ws.ID, "nobody", "admin"); !errors.Is(err, store.ErrNotFound) {
		t.Fatalf("unknown member: %v", err)
	}
}
