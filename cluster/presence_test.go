package cluster

import (
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"switchboard/internal/testutil"
	"switchboard/store"
)

// The leader counts the users another node reports as having a stream open: they are online
// for store.OfflineAfter from the report; a body that is not a list is refused.
func TestPresenceReportKeepsUsersOnline(t *testing.T) {
	clock := testutil.NewClock(time.Date(2026, 11, 30, 10, 0, 0, 0, time.UTC))
	s, err := store.Open(filepath.Join(t.TempDir(), "s.db"), store.Options{Now: clock.Now})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	u, err := s.CreateUser(store.NewUser{Email: "far@example.com", Name: "Far"})
	if err != nil {
		t.Fatal(err)
	}
	n := &Node{cfg: Config{Store: s}}
	clock.Advance(store.OfflineAfter) // past the grace of the start
	if st, _, _ := s.Availability(u.ID); st != store.Offline {
		t.Fatalf("before any report: %s", st)
	}
	post := func(body string) int {
		w := httptest.NewRecorder()
		n.handlePresence(w, httptest.NewRequest(http.MethodPost, "/cluster/presence", strings.NewReader(body)))
		return w.Code
	}
	if code := post(`["` + u.ID + `"]`); code != http.StatusOK {
		t.Fatalf("report answered %d", code)
	}
	if st, _, _ := s.Availability(u.ID); st != store.Available {
		t.Fatalf("after a report: %s", st)
	}
	if code := post(`{"users": 1}`); code != http.StatusBadRequest {
		t.Fatalf("a report that is not a list answered %d, want 400", code)
	}
	clock.Advance(store.OfflineAfter)
	if st, _, _ := s.Availability(u.ID); st != store.Offline {
		t.Fatalf("%s after the report: %s", store.OfflineAfter, st)
	}
}
