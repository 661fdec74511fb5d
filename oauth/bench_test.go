package oauth_test

import (
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
)

// accessToken runs the flow once and returns an OAuth access token.
func (e *env) accessToken(t testing.TB) string {
	t.Helper()
	st, tok := e.exchange(t, e.code(t, e.conf, clientURI, ""))
	if st != http.StatusOK {
		t.Fatalf("exchange: %d %v", st, tok)
	}
	return str(tok, "access_token")
}

// authOnly is an API request that stops right after authentication and the rate limit: its
// body is not JSON (415), so it measures exactly the per-request token check.
func authOnly(token string) *http.Request {
	req := httptest.NewRequest("POST", "/v1/integrations/developer/zapier/me-action", strings.NewReader("x"))
	req.Header.Set("Authorization", "Bearer "+token)
	req.Header.Set("Content-Type", "text/plain")
	return req
}

// The integration API accepts an OAuth access token with one bbolt read transaction, like a
// personal token: the token lives in the store's api_tokens bucket under its hash.
func TestAPIAuthIsOneRead(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	token := e.accessToken(t)
	before := e.s.DB().Stats().TxN
	rec := httptest.NewRecorder()
	e.h.ServeHTTP(rec, authOnly(token))
	if rec.Code != http.StatusUnsupportedMediaType {
		t.Fatalf("expected authentication to pass and the body to be refused (415), got %d", rec.Code)
	}
	if n := e.s.DB().Stats().TxN - before; n != 1 {
		t.Fatalf("expected the auth path to cost 1 bbolt read transaction, it cost %d", n)
	}
}

// BenchmarkAuthenticate is the token check itself: hash, one bbolt read, decode.
func BenchmarkAuthenticate(b *testing.B) {
	e := newEnv(b)
	token := e.accessToken(b)
	b.ReportAllocs()
	for b.Loop() {
		if _, err := e.s.Authenticate(token); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkAPIAuthPath is what every API request pays before its action: routing, request
// id, bearer parsing, the token check and the rate limiter (in process, no network).
func BenchmarkAPIAuthPath(b *testing.B) {
	e := newEnv(b)
	token := e.accessToken(b)
	b.ReportAllocs()
	b.RunParallel(func(pb *testing.PB) {
		for pb.Next() {
			rec := httptest.NewRecorder()
			e.h.ServeHTTP(rec, authOnly(token))
			if rec.Code != http.StatusUnsupportedMediaType {
				b.Fatalf("unexpected status %d", rec.Code)
			}
		}
	})
}
