package oauth_test

import (
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
)

// FuzzTokenEndpoint feeds arbitrary bodies, content types and credentials to POST
// /oauth/token and /oauth/revoke: the answer is always a JSON OAuth error (400/401) or a
// success, never a 500 or a panic.
func FuzzTokenEndpoint(f *testing.F) {
	e := newEnv(f)
	code := e.code(f, e.conf, clientURI, "")
	f.Add("grant_type=authorization_code&code="+code+"&redirect_uri="+clientURI, "application/x-www-form-urlencoded", e.conf.ID, e.secret, false)
	f.Add("grant_type=refresh_token&refresh_token=sbr_x&scope=integrations", "application/x-www-form-urlencoded", e.conf.ID, "x", false)
	f.Add("grant_type=authorization_code&code=%zz&code=1", "application/x-www-form-urlencoded; charset=utf-8", "", "", false)
	f.Add("grant_type=password&username=a&password=b&client_id="+e.pub.ID, "application/x-www-form-urlencoded", "", "", false)
	f.Add(`{"grant_type":"authorization_code"}`, "application/json", "%41", "%", false)
	f.Add("token=abc&token_type_hint=refresh_token", "application/x-www-form-urlencoded", e.conf.ID, e.secret, true)
	f.Add("client_id=%00&client_secret=;;&grant_type=refresh_token&refresh_token=", "multipart/form-data; boundary=x", "", "", true)
	f.Fuzz(func(t *testing.T, body, contentType, user, pass string, revoke bool) {
		path := "/oauth/token"
		if revoke {
			path = "/oauth/revoke"
		}
		req := httptest.NewRequest("POST", path, strings.NewReader(body))
		req.Header.Set("Content-Type", contentType)
		if user != "" || pass != "" {
			req.SetBasicAuth(user, pass)
		}
		rec := httptest.NewRecorder()
		e.h.ServeHTTP(rec, req)
		switch rec.Code {
		case http.StatusOK:
			if revoke {
				return
			}
		case http.StatusBadRequest, http.StatusUnauthorized:
		default:
			t.Fatalf("status %d for %q (%q): %s", rec.Code, body, contentType, rec.Body)
		}
		if rec.Header().Get("Cache-Control") != "no-store" {
			t.Fatalf("expected Cache-Control: no-store, got %q", rec.Header().Get("Cache-Control"))
		}
		var out map[string]any
		if err := json.Unmarshal(rec.Body.Bytes(), &out); err != nil {
			t.Fatalf("body is not JSON: %q", rec.Body)
		}
		if rec.Code != http.StatusOK && out["error"] == nil {
			t.Fatalf("an error response without error: %q", rec.Body)
		}
		if rec.Code == http.StatusUnauthorized && rec.Header().Get("WWW-Authenticate") == "" {
			t.Fatal("a 401 without WWW-Authenticate")
		}
	})
}
