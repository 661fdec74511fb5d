package web

import (
	"io"
	"net/http"
	"os"
	"testing"
)

// TestSignedInInboxLoadFigure measures a signed-in GET /inbox (session lookup, workspace
// choice, render) over loopback: the cost of keeping sessions in the store rather than in the
// cookie alone. It prints ns/op and runs only with SWITCHBOARD_BENCH=1:
//
//	SWITCHBOARD_BENCH=1 go test -run TestSignedInInboxLoadFigure -v ./web
func TestSignedInInboxLoadFigure(t *testing.T) {
	if os.Getenv("SWITCHBOARD_BENCH") != "1" {
		t.Skip("a measurement: set SWITCHBOARD_BENCH=1")
	}
	e := newUIEnv(t)
	c := e.signIn(t, e.alice)
	req, _ := http.NewRequest("GET", e.srv.URL+"/inbox", nil)
	res := testing.Benchmark(func(b *testing.B) {
		for b.Loop() {
			r, err := c.Do(req)
			if err != nil || r.StatusCode != http.StatusOK {
				b.Fatalf("inbox: %v %v", r, err)
			}
			io.Copy(io.Discard, r.Body)
			r.Body.Close()
		}
	})
	t.Logf("signed-in /inbox: %s (%d ns/op)", res, res.NsPerOp())
}
