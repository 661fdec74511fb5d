package web

import (
	"bytes"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
)

// TestLogsHoldNoTokens: the request log line of an invitation link does not hold its token.
func TestLogsHoldNoTokens(t *testing.T) {
	e := newUIEnv(t)
	var buf bytes.Buffer
	old := slog.Default()
	slog.SetDefault(slog.New(slog.NewTextHandler(&buf, nil)))
	t.Cleanup(func() { slog.SetDefault(old) })
	h := New(e.st, Config{Sessions: e.sess, LogRequests: true})
	const secret = "sbi_SecretInvitationToken1234567890"
	for _, p := range []string{"/invite/" + secret, "/reset/" + secret, "/media/" + secret + "/photo.jpg"} {
		h.ServeHTTP(httptest.NewRecorder(), httptest.NewRequest(http.MethodGet, p, nil))
	}
	if strings.Contains(buf.String(), secret) || !strings.Contains(buf.String(), "path=/invite/…") {
		t.Fatalf("the request log holds a token:\n%s", buf.String())
	}
}

func TestLogPath(t *testing.T) {
	for in, want := range map[string]string{
		"/invite/abc": "/invite/…", "/reset/abc/x": "/reset/…/x", "/media/t/f.jpg": "/media/…/f.jpg",
		"/inbox/abc": "/inbox/abc", "/invite/": "/invite/",
	} {
		if got := logPath(in); got != want {
			t.Errorf("logPath(%q) = %q, want %q", in, got, want)
		}
	}
}

// TestRequestLogLine: every request is logged once, with its id (the one the client sent, when
// safe, else the one echoed to it), method, path, status and duration.
func TestRequestLogLine(t *testing.T) {
	e := newUIEnv(t)
	var buf bytes.Buffer
	old := slog.Default()
	slog.SetDefault(slog.New(slog.NewTextHandler(&buf, nil)))
	t.Cleanup(func() { slog.SetDefault(old) })
	h := New(e.st, Config{Sessions: e.sess, LogRequests: true})
	req := httptest.NewRequest(http.MethodGet, "/no/such/page", nil)
	req.Header.Set("X-Request-Id", "trace-42")
	rec := httptest.NewRecorder()
	h.ServeHTTP(rec, req)
	h.ServeHTTP(httptest.NewRecorder(), httptest.NewRequest(http.MethodPost, "/v1/integrations/developer/zapier/me-action", nil))
	lines := strings.Split(strings.TrimSpace(buf.String()), "\n")
	if len(lines) != 2 {
		t.Fatalf("want one line per request, got:\n%s", buf.String())
	}
	for i, want := range []string{
		"level=INFO msg=request request_id=trace-42 method=GET path=/no/such/page status=404 duration_ms=",
		"level=INFO msg=request request_id=", // a fresh id, as echoed
	} {
		if !strings.Contains(lines[i], want) {
			t.Errorf("line %d = %q, want it to hold %q", i, lines[i], want)
		}
	}
	if !strings.Contains(lines[1], " method=POST path=/v1/integrations/developer/zapier/me-action status=401 duration_ms=") {
		t.Errorf("the API request's line = %q", lines[1])
	}
	if !strings.HasPrefix(lines[0], "time=") || rec.Header().Get("X-Request-Id") != "trace-42" {
		t.Errorf("line %q, echoed id %q", lines[0], rec.Header().Get("X-Request-Id"))
	}
}
