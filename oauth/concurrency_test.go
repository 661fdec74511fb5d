package oauth_test

import (
	"net/http"
	"sync"
	"testing"
)

// race runs n calls at once and counts the 200s. go-oauth2's Manager reads a code (or refresh
// token) and deletes it in two steps, so there several could win; here exactly one does.
func race(n int, call func() (int, map[string]any)) (ok, refused int, other []int) {
	var mu sync.Mutex
	var wg sync.WaitGroup
	gate := make(chan struct{})
	for i := 0; i < n; i++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			<-gate
			st, body := call()
			mu.Lock()
			defer mu.Unlock()
			switch {
			case st == http.StatusOK:
				ok++
			case st == http.StatusBadRequest && str(body, "error") == "invalid_grant":
				refused++
			default:
				other = append(other, st)
			}
		}()
	}
	close(gate)
	wg.Wait()
	return ok, refused, other
}

func TestConcurrentCodeRedemption(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	for round := 0; round < 3; round++ {
		code := e.code(t, e.conf, clientURI, "")
		ok, refused, other := race(12, func() (int, map[string]any) { return e.exchange(t, code) })
		if ok != 1 || refused != 11 || other != nil {
			t.Fatalf("round %d: expected exactly 1 success and 11 invalid_grant, got %d, %d, other %v", round, ok, refused, other)
		}
	}
}

func TestConcurrentRefresh(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	for round := 0; round < 3; round++ {
		_, tok := e.exchange(t, e.code(t, e.conf, clientURI, ""))
		refresh := str(tok, "refresh_token")
		ok, refused, other := race(12, func() (int, map[string]any) { return e.refreshCall(t, refresh) })
		if ok != 1 || refused != 11 || other != nil {
			t.Fatalf("round %d: expected exactly 1 success and 11 invalid_grant, got %d, %d, other %v", round, ok, refused, other)
		}
	}
}
