package oauth_test

import (
	"net/http"
	"net/url"
	"strings"
	"testing"
)

// TestOversizedFormsRefused: the sign-in, setup and consent forms and the token endpoint read
// at most 64 KiB; a larger body is refused (413 on the pages, invalid_request at the endpoint)
// and signs no one in.
func TestOversizedFormsRefused(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	big := strings.Repeat("a", 100<<10)
	for _, path := range []string{"/oauth/login", "/setup", "/oauth/authorize"} {
		res, _ := do(t, e.browser(t), "POST", e.srv.URL+path, url.Values{"email": {e.user.Email}, "password": {password}, "pad": {big}})
		if res.StatusCode != http.StatusRequestEntityTooLarge {
			t.Errorf("POST %s with a 100 KiB form: %d, want 413", path, res.StatusCode)
		}
		for _, c := range res.Cookies() {
			if c.Name == "sb_session" && c.Value != "" {
				t.Errorf("POST %s with a 100 KiB form set a session", path)
			}
		}
	}
	st, _, out := e.tokenCall(t, "/oauth/token", url.Values{"grant_type": {"authorization_code"}, "code": {big}}, e.conf.ID, e.secret)
	if st != http.StatusBadRequest || str(out, "error") != "invalid_request" {
		t.Errorf("token endpoint with a 100 KiB form: %d %v, want 400 invalid_request", st, out)
	}
}
