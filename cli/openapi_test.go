package cli

import (
	"bytes"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"switchboard/internal/testutil"
	"testing"
)

// The built binary serves the embedded OpenAPI document, the /docs page and the vendored
// viewer it loads, all from itself.
func TestServeOpenAPIAndDocs(t *testing.T) {
	data := filepath.Join(t.TempDir(), "data")
	addr := "127.0.0.1:" + testutil.FreePort(t)
	srv := startServer(t, addr, nil, "-addr", addr, "-data="+data, "-log-requests=false")

	get := func(path string) (*http.Response, []byte) {
		t.Helper()
		res, err := http.Get(srv.base + path)
		if err != nil {
			t.Fatal(err)
		}
		defer res.Body.Close()
		body, err := io.ReadAll(res.Body)
		if err != nil {
			t.Fatal(err)
		}
		if res.StatusCode != http.StatusOK {
			t.Fatalf("GET %s: %d, want 200", path, res.StatusCode)
		}
		return res, body
	}

	res, body := get("/openapi.json")
	want, err := os.ReadFile("../openapi.json")
	if err != nil {
		t.Fatal(err)
	}
	if ct := res.Header.Get("Content-Type"); ct != "application/json" || !bytes.Equal(body, want) {
		t.Errorf("GET /openapi.json: Content-Type %q and %d bytes, want application/json and openapi.json", ct, len(body))
	}

	res, body = get("/docs")
	if !strings.HasPrefix(res.Header.Get("Content-Type"), "text/html") || !strings.Contains(string(body), `src="/static/redoc.standalone.js"`) {
		t.Errorf("GET /docs: %q, want an HTML page loading /static/redoc.standalone.js:\n%s", res.Header.Get("Content-Type"), body)
	}
	for _, path := range []string{"/static/redoc.standalone.js", "/static/docs.js", "/static/redoc.LICENSE"} {
		if _, body := get(path); len(body) == 0 {
			t.Errorf("GET %s: empty", path)
		}
	}
}
