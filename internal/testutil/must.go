package testutil

import (
	"net"
	"strconv"
	"testing"
)

// Must returns v, failing the test at once when err is not nil.
func Must[T any](t testing.TB, v T, err error) T {
	t.Helper()
	if err != nil {
		t.Fatal(err)
	}
	return v
}

// NoErr fails the test at once when err is not nil.
func NoErr(t testing.TB, err error) {
	t.Helper()
	if err != nil {
		t.Fatal(err)
	}
}

// FreePort returns a loopback port nobody listens on right now, for a server the test
// starts as a separate process (an httptest.Server picks its own).
func FreePort(t testing.TB) string {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	return strconv.Itoa(ln.Addr().(*net.TCPAddr).Port)
}

// SkipIfShort skips the test under go test -short: the binary-level, browser and crash
// tests take seconds each and make test-short leaves them to make test.
func SkipIfShort(t testing.TB, what string) {
	t.Helper()
	if testing.Short() {
		t.Skipf("-short: skipping %s", what)
	}
}
