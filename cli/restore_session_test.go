package cli

import (
	"net/http"
	"net/url"
	"path/filepath"
	"strings"
	"testing"

	"switchboard/internal/testutil"
)

// TestRestoreRevivesNoSession: a cookie signed out after a backup was taken does not work again
// once that backup is restored (the restored database still holds the session).
func TestRestoreRevivesNoSession(t *testing.T) {
	f := newFixture(t)
	d := "-data=" + f.data
	addr := "127.0.0.1:" + testutil.FreePort(t)
	args := []string{"-addr", addr, d, "-log-requests=false"}
	srv := startServer(t, addr, nil, args...)
	noRedirect := func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }
	res, err := (&http.Client{CheckRedirect: noRedirect}).PostForm(srv.base+"/login", url.Values{"email": {"ana@example.com"}, "password": {"correct horse"}})
	if err != nil || res.StatusCode != http.StatusSeeOther {
		t.Fatalf("sign in: %v %v", res.StatusCode, err)
	}
	res.Body.Close()
	cookies := res.Cookies()
	signedIn := func() bool {
		t.Helper()
		req, _ := http.NewRequest("GET", srv.base+"/settings/profile", nil)
		for _, c := range cookies {
			req.AddCookie(c)
		}
		res, err := (&http.Client{CheckRedirect: noRedirect}).Do(req)
		if err != nil {
			t.Fatal(err)
		}
		res.Body.Close()
		return res.StatusCode == http.StatusOK
	}
	if !signedIn() {
		t.Fatal("the session does not work")
	}
	backup := filepath.Join(t.TempDir(), "before-sign-out.db")
	if r := sb(t, nil, "backup", d, backup); r.code != 0 {
		t.Fatalf("backup: exit %d, stderr %q", r.code, r.stderr)
	}
	req, _ := http.NewRequest("POST", srv.base+"/logout", nil)
	for _, c := range cookies {
		req.AddCookie(c)
	}
	if res, err := (&http.Client{CheckRedirect: noRedirect}).Do(req); err != nil {
		t.Fatal(err)
	} else {
		res.Body.Close()
	}
	if signedIn() {
		t.Fatal("the cookie still works after signing out")
	}
	srv.stop(t)

	r := sb(t, nil, "restore", d, "--force", backup)
	if r.code != 0 || !strings.Contains(r.stdout, "every browser session is signed out") {
		t.Fatalf("restore: exit %d, stdout %q, stderr %q", r.code, r.stdout, r.stderr)
	}
	srv = startServer(t, addr, nil, args...)
	if signedIn() {
		t.Fatal("restoring a backup revived a signed-out session")
	}
}
