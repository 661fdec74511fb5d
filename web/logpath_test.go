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
