package web

import (
	"context"
	"log/slog"
	"net/http"
	"regexp"
	"time"

	"github.com/oklog/ulid/v2"
)

type ctxKey int

const (
	requestIDKey ctxKey = iota
	authMarkKey
)

// WithAuthMark returns ctx carrying mark, which a request of a connection calls once it is
// authenticated (a signed-in session, a valid API token). The server's connection context sets
// it, so that a connection that never carried an authenticated request can be held idle for
// less time than one that did.
func WithAuthMark(ctx context.Context, mark func()) context.Context {
	return context.WithValue(ctx, authMarkKey, mark)
}

// MarkAuthenticated tells the request's connection that it carried an authenticated request
// (WithAuthMark); the session and token checks call it.
func MarkAuthenticated(r *http.Request) {
	if mark, ok := r.Context().Value(authMarkKey).(func()); ok {
		mark()
	}
}

var safeRequestID = regexp.MustCompile(`^[A-Za-z0-9._-]{1,64}$`)

func requestID(ctx context.Context) string {
	id, _ := ctx.Value(requestIDKey).(string)
	return id
}

type statusRecorder struct {
	http.ResponseWriter
	status int
}

func (s *statusRecorder) WriteHeader(code int) {
	if s.status == 0 {
		s.status = code
	}
	s.ResponseWriter.WriteHeader(code)
}

func (s *statusRecorder) Write(b []byte) (int, error) {
	if s.status == 0 {
		s.status = http.StatusOK
	}
	return s.ResponseWriter.Write(b)
}

func (s *statusRecorder) Unwrap() http.ResponseWriter { return s.ResponseWriter }

// withRequestID gives every request an id (the client's X-Request-Id when it is safe), echoes
// it on the response, logs the request once when it ends, and turns a panic into a 500.
func (h *Handler) withRequestID(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		id := r.Header.Get("X-Request-Id")
		if !safeRequestID.MatchString(id) {
			id = ulid.Make().String()
		}
		w.Header()["X-Request-Id"] = []string{id} // the canonical form of the name
		r = r.WithContext(context.WithValue(r.Context(), requestIDKey, id))
		rec := &statusRecorder{ResponseWriter: w}
		start := time.Now()
		defer func() {
			if p := recover(); p != nil {
				if p == http.ErrAbortHandler {
					panic(p)
				}
				slog.ErrorContext(r.Context(), "panic", "request_id", id, "method", r.Method, "path", logPath(r.URL.Path), "panic", p)
				if rec.status == 0 {
					writeError(rec, http.StatusInternalServerError, "internal error")
				}
			}
			h.metrics.observeRequest(r, rec.status, time.Since(start))
			if h.logRequests {
				logRequest(r.Context(), id, r.Method, logPath(r.URL.Path), rec.status, time.Since(start))
			}
		}()
		next.ServeHTTP(rec, r)
	})
}

// logRequest writes the request's log line through the default logger's handler, as
// slog.InfoContext would write it but without looking up the caller (no handler here prints
// it), which was a tenth of an API request's own time.
func logRequest(ctx context.Context, id, method, path string, status int, d time.Duration) {
	h := slog.Default().Handler()
	if !h.Enabled(ctx, slog.LevelInfo) {
		return
	}
	rec := slog.NewRecord(time.Now(), slog.LevelInfo, "request", 0)
	rec.AddAttrs(slog.String("request_id", id), slog.String("method", method), slog.String("path", path),
		slog.Int("status", status), slog.Int64("duration_ms", d.Milliseconds()))
	_ = h.Handle(ctx, rec)
}
