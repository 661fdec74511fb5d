package store_test

import (
	"errors"
	"path/filepath"
	"sync"
	"testing"
	"time"

	"switchboard/store"
)

func TestInvitationLifecycle(t *testing.T) {
	now := time.Date(2026, 11, 22, 12, 0, 0, 0, time.UTC)
	var mu sync.Mutex
	clock := func() time.Time { mu.Lock(); defer mu.Unlock(); return now }
	st, err := store.Open(filepath.Join(t.TempDir(), "s.db"), store.Options{Now: clock})
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	ws, _ := st.CreateWorkspace("Acme")
	inv, plain, err := st.CreateInvitation(ws.ID, "ana@example.com", "admin")
	if err != nil || inv.Status != store.InvitationPending || !inv.ExpiredAt.Equal(now.Add(7*24*time.Hour)) {
		t.Fatalf("create: %+v, %v", inv, err)
	}
	if got, err := st.InvitationByToken(plain + "x"); !errors.Is(err, store.ErrNotFound) {
		t.Fatalf("a wrong token found %+v", got)
	}
	// Expired after 7 days, by the clock.
	mu.Lock()
	now = now.Add(7*24*time.Hour + time.Second)
	mu.Unlock()
	if got, _ := st.InvitationByToken(plain); got.Status != store.InvitationExpired {
		t.Fatalf("status after 7 days: %s, want expired", got.Status)
	}
	if _, _, err := st.AcceptInvitationNewUser(plain, "Ana", "correct horse battery"); !errors.Is(err, store.ErrConflict) {
		t.Fatalf("accepting an expired invitation: %v, want ErrConflict", err)
	}
	if _, err := st.UserByEmail("ana@example.com"); !errors.Is(err, store.ErrNotFound) {
		t.Fatal("an expired invitation made an account")
	}
	if err := st.RevokeInvitation(ws.ID, inv.ID); !errors.Is(err, store.ErrConflict) {
		t.Fatalf("revoking an expired invitation: %v, want ErrConflict", err)
	}
	// A fresh one is accepted once; the role comes with it.
	_, plain, _ = st.CreateInvitation(ws.ID, "ana@example.com", "admin")
	u, m, err := st.AcceptInvitationNewUser(plain, "Ana", "correct horse battery")
	if err != nil || m.Role != "admin" || m.UserID != u.ID {
		t.Fatalf("accept: %+v %+v %v", u, m, err)
	}
	if _, err := st.AcceptInvitation(plain, u.ID); !errors.Is(err, store.ErrConflict) {
		t.Fatalf("reusing a link: %v, want ErrConflict", err)
	}
	list, _ := st.Invitations(ws.ID)
	if len(list) != 2 || list[0].Status != store.InvitationAccepted || list[1].Status != store.InvitationExpired {
		t.Fatalf("list: %+v", list)
	}
	// Two people racing one link: exactly one joins.
	_, plain, _ = st.CreateInvitation(ws.ID, "bo@example.com", "member")
	var wg sync.WaitGroup
	errs := make([]error, 2)
	for i := range 2 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			other, _ := st.CreateUser(store.NewUser{Email: []string{"x@example.com", "y@example.com"}[i], Name: "X"})
			_, errs[i] = st.AcceptInvitation(plain, other.ID)
		}()
	}
	wg.Wait()
	if (errs[0] == nil) == (errs[1] == nil) {
		t.Fatalf("two acceptances of one link: %v, %v; want exactly one to succeed", errs[0], errs[1])
	}
}
