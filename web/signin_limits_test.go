package web

import (
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
		l.fail("addr:192.0.2.1", now)
	}
	if l.ok("addr:192.0.2.1", now) || !l.ok("addr:192.0.2.1", now.Add(6*time.Second)) {
		t.Fatal("expected an address to get 20 failures, then one every 6 seconds")
	}
}

func TestLocalPath(t *testing.T) {
	for next, want := range map[string]bool{
		"/oauth/authorize?client_id=x": true, "/": true, "": false, "//evil.example/": false,
		"/\\evil.example": false, "https://evil.example/": false, "javascript:alert(1)": false,
	} {
		if got := localPath(next); got != want {
			t.Errorf("localPath(%q) = %v, want %v", next, got, want)
		}
	}
}
