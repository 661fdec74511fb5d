package cli

import (
	"net/http"
	"strings"
	"switchboard/internal/testutil"
	"testing"
	"time"
)

// TestServeScheduledBroadcastSurvivesARestart: a broadcast scheduled for a group is kept in the
// file while the server is down, starts within moments of its time, and reaches the members the
// group has then.
func TestServeScheduledBroadcastSurvivesARestart(t *testing.T) {
	f := newFixture(t)
	d := "-data=" + f.data
	group := ok(t, "admin", "create-group", d, "--workspace", f.ws, "--name", "Clients")
	wantULID(t, "create-group", group)
	for _, p := range []string{"+12025550101", "+12025550102"} {
		wantULID(t, "add-to-group", ok(t, "admin", "add-to-group", d, "--workspace", f.ws, "--group", "Clients", "--phone", p))
	}
	fails(t, "already exists", "admin", "create-group", d, "--workspace", f.ws, "--name", "clients")
	fails(t, "E.164", "admin", "add-to-group", d, "--workspace", f.ws, "--group", group, "--phone", "555")

	addr := "127.0.0.1:" + testutil.FreePort(t)
	args := []string{"-addr", addr, "-data", f.data, "-log-requests=false"}
	srv := startServer(t, addr, nil, args...)
	at := time.Now().Add(4 * time.Second).UTC()
	var b struct {
		ID, Status string
		Recipients []string
	}
	apiOK(t, srv.base, f.token, "send-broadcast-action", map[string]any{"developerProvider": "zapier", "id": f.ws,
		"from": "+14155550100", "groupIds": []string{group}, "text": "Hi {{firstName|there}}", "sendAt": at.Format(time.RFC3339Nano)},
		http.StatusAccepted, &b)
	if b.Status != "scheduled" || b.Recipients == nil || len(b.Recipients) != 0 {
		t.Fatalf("scheduled broadcast = %+v, want status scheduled and recipients []", b)
	}
	// A member added while it waits is reached too: recipients are resolved at its time.
	apiOK(t, srv.base, f.token, "add-contact-to-group-action", map[string]any{"developerProvider": "zapier", "id": f.ws,
		"phone": "+12025550103", "group": "Clients"}, http.StatusOK, nil)
	if code := srv.stop(t); code != 0 {
		t.Fatalf("serve exited %d", code)
	}
	srv = startServer(t, addr, nil, args...)
	defer srv.stop(t)

	deadline := time.Now().Add(20 * time.Second)
	var got []listedMessage
	for time.Now().Before(deadline) {
		got = nil
		for _, m := range listMessages(t, srv.base, f, 100) {
			if m.Direction == "outbound" && m.Text == "Hi there" {
				got = append(got, m)
			}
		}
		if len(got) == 3 {
			break
		}
		time.Sleep(100 * time.Millisecond)
	}
	if len(got) != 3 {
		t.Fatalf("after its time the broadcast reached %d members, want 3: %+v", len(got), got)
	}
	if time.Now().Before(at) {
		t.Fatalf("the broadcast went out before its time")
	}
	for _, m := range got {
		if m.Status != "queued" && m.Status != "sending" && m.Status != "sent" && m.Status != "delivered" {
			t.Errorf("copy to %s is %s", m.To, m.Status)
		}
	}
	// Once started it cannot be cancelled after it is sent; a second scheduled one can.
	var c map[string]any
	code, raw := apiCall(t, srv.base, f.token, "cancel-broadcast-action", map[string]any{"developerProvider": "zapier", "id": f.ws, "broadcastId": b.ID})
	if code != http.StatusOK && code != http.StatusConflict {
		t.Errorf("cancel of a started broadcast: %d %s", code, raw)
	}
	var b2 struct{ ID string }
	apiOK(t, srv.base, f.token, "send-broadcast-action", map[string]any{"developerProvider": "zapier", "id": f.ws,
		"from": "+14155550100", "recipients": []string{"+12025550104"}, "text": "later", "sendAt": time.Now().Add(time.Hour).UTC().Format(time.RFC3339)},
		http.StatusAccepted, &b2)
	apiOK(t, srv.base, f.token, "cancel-broadcast-action", map[string]any{"developerProvider": "zapier", "id": f.ws, "broadcastId": b2.ID},
		http.StatusOK, &c)
	if c["status"] != "cancelled" {
		t.Errorf("cancel answered %v", c)
	}
	var groups []map[string]any
	apiOK(t, srv.base, f.token, "list-groups-action", map[string]any{"developerProvider": "zapier", "id": f.ws}, http.StatusOK, &groups)
	if len(groups) != 1 || groups[0]["size"] != float64(3) || !strings.EqualFold(groups[0]["name"].(string), "clients") {
		t.Errorf("list-groups = %v", groups)
	}
}
