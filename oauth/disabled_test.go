package oauth_test

import (
	"net/http"
	"testing"

	"switchboard/store"
)

// TestDisabledUsersGrantStops: when a superuser disables a user, the user's OAuth access token
// is refused by the API (401) at once, and neither a waiting code nor the refresh token issues
// new tokens; enabled again, the grant works as before.
func TestDisabledUsersGrantStops(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	root, err := e.s.CreateUser(store.NewUser{Email: "root@example.com", Name: "Root", Password: "root password!", Superuser: true})
	if err != nil {
		t.Fatal(err)
	}
	st, tok := e.exchange(t, e.code(t, e.conf, clientURI, ""))
	if st != http.StatusOK {
		t.Fatalf("exchange: %d %v", st, tok)
	}
	access, refresh := str(tok, "access_token"), str(tok, "refresh_token")
	waiting := e.code(t, e.conf, clientURI, "")
	if err := e.s.SetUserDisabled(root.ID, e.user.ID, true); err != nil {
		t.Fatal(err)
	}
	e.expectRevoked(t, access, "a disabled user's access token")
	if st, body := e.refreshCall(t, refresh); st != http.StatusBadRequest || str(body, "error") != "invalid_grant" {
		t.Fatalf("refreshing a disabled user's grant: %d %v, want 400 invalid_grant", st, body)
	}
	if st, body := e.exchange(t, waiting); st != http.StatusBadRequest || str(body, "error") != "invalid_grant" {
		t.Fatalf("redeeming a disabled user's code: %d %v, want 400 invalid_grant", st, body)
	}
	if err := e.s.SetUserDisabled(root.ID, e.user.ID, false); err != nil {
		t.Fatal(err)
	}
	if st, _ := e.createConversation(t, access); st != http.StatusCreated && st != http.StatusOK {
		t.Fatalf("the access token once the user is enabled again: %d", st)
	}
	if st, body := e.refreshCall(t, refresh); st != http.StatusOK || str(body, "access_token") == "" {
		t.Fatalf("refreshing once enabled again: %d %v", st, body)
	}
}
