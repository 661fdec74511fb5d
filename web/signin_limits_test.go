package web

import (
	"net/url"
	"strings"
	"testing"
	"time"
)

func TestLoginLimits(t *testing.T) {
	l := newLoginLimits()
	now := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	for i := 0; i < 5; i++ {
		if !l.ok("account:a@example.com", now) {
			t.Fatalf("failure %d: expected the account to be allowed within its 5 failures", i+1)
		}
		l.fail("account:a@example.com", now)
	}
	if l.ok("account:a@example.com", now) {
		t.Fatal("expected the account to be refused after 5 failures")
	}
	if !l.ok("account:b@example.com", now) {
		t.Fatal("expected another account to be unaffected")
	}
	if !l.ok("account:a@example.com", now.Add(time.Minute)) {
		t.Fatal("expected one more try after a minute")
	}
	for i := 0; i < 20; i++ {
		l.fail("net:192.0.2.0/24", now)
	}
	if l.ok("net:192.0.2.0/24", now) || !l.ok("net:192.0.2.0/24", now.Add(6*time.Second)) {
		t.Fatal("expected an address to get 20 failures, then one every 6 seconds")
	}
}

// TestLocalNext: a next or back of any foreign form is refused, checked on the path as
// http.Redirect will clean it, so /./\host (cleaned to /\host, which browsers read as //host)
// cannot slip through.
func TestLocalNext(t *testing.T) {
	for next, want := range map[string]string{
		"/oauth/authorize?client_id=x": "/oauth/authorize?client_id=x", "/": "/", "/inbox/": "/inbox/",
		"/a/../inbox": "/inbox", "": "", "//evil.example/": "", "/\\evil.example": "", "/./\\evil.example": "",
		"/.//evil.example": "/evil.example", "https://evil.example/": "", "javascript:alert(1)": "", "/%5Cevil.example": "",
		"/%5cevil.example": "", "/%2F%2Fevil.example": "", "/\tevil": "", "/\t/evil.example": "",
		"/\n/evil.example": "", "\\\\evil.example": "", "/../\\evil.example": "", "evil.example": "",
		"///evil.example": "", "/x/..//evil.example": "/evil.example",
	} {
		if got := localNext(next); got != want {
			t.Errorf("localNext(%q) = %q, want %q", next, got, want)
		}
	}
}

// FuzzLocalNext: whatever comes in, what comes out is "" or a path that a browser resolves on
// this server.
func FuzzLocalNext(f *testing.F) {
	for _, s := range []string{"/", "/inbox?x=1", "//h", "/\\h", "/./\\h", "https://h", "/%5Ch", "/%2F%2Fh", "/\t/h"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, next string) {
		got := localNext(next)
		if got == "" {
			return
		}
		u, err := url.Parse(got)
		if err != nil || u.Host != "" || u.Scheme != "" || !strings.HasPrefix(got, "/") ||
			strings.HasPrefix(got, "//") || strings.ContainsAny(got, "\\\t\r\n") || strings.HasPrefix(u.Path, "//") {
			t.Fatalf("localNext(%q) = %q: not a local path", next, got)
		}
	})
}
