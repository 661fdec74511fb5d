package web

import (
	"crypto/subtle"
	"log/slog"
	"net/http"
	"net/netip"
	"strconv"
	"time"
)

// backupWriteWindow is how long one write of the backup stream may take: each write moves the
// connection's write deadline this far ahead, so a copy longer than the server's WriteTimeout
// goes through while a reader that stops reading is cut off (it holds a read transaction open,
// which keeps bbolt from growing the file).
const backupWriteWindow = 30 * time.Second

// backup streams a consistent hot copy of the database (bbolt Tx.WriteTo) to the holder of the
// server's backup token, which `switchboard backup` reads from the data directory. Only a
// loopback caller that did not come through a proxy is answered (the token alone is not
// trusted over the network), and an empty token (none configured) turns the endpoint off.
func (h *Handler) backup(w http.ResponseWriter, r *http.Request) {
	if r.Header.Get("Authorization") == "" && h.backupPage != nil {
		h.backupPage.ServeHTTP(w, r) // a browser: the superuser's page with its download link
		return
	}
	if !directLoopback(r) {
		writeError(w, http.StatusForbidden, "the backup endpoint answers only local callers")
		return
	}
	want := "Bearer " + h.cfg.BackupToken
	if h.cfg.BackupToken == "" || subtle.ConstantTimeCompare([]byte(r.Header.Get("Authorization")), []byte(want)) != 1 {
		w.Header().Set("WWW-Authenticate", `Bearer realm="switchboard"`)
		writeError(w, http.StatusUnauthorized, "backup token required")
		return
	}
	w.Header().Set("Content-Type", "application/octet-stream")
	w.Header().Set("Content-Disposition", `attachment; filename="switchboard.db"`)
	dw := &deadlineWriter{w: w, rc: http.NewResponseController(w)}
	_, err := h.store.Backup(dw, func(size int64) {
		w.Header().Set("Content-Length", strconv.FormatInt(size, 10))
	})
	if err != nil {
		slog.ErrorContext(r.Context(), "backup failed", "request_id", requestID(r.Context()), "err", err)
	}
}

// directLoopback reports whether the request comes from a loopback address and carries none of
// the headers a reverse proxy adds (a proxy on the same host would make every caller look local).
func directLoopback(r *http.Request) bool {
	for _, hdr := range []string{"Forwarded", "X-Forwarded-For", "X-Real-Ip"} {
		if _, ok := r.Header[hdr]; ok {
			return false
		}
	}
	ap, err := netip.ParseAddrPort(r.RemoteAddr)
	return err == nil && ap.Addr().Unmap().IsLoopback()
}

// deadlineWriter moves the connection's write deadline ahead before each write.
type deadlineWriter struct {
	w  http.ResponseWriter
	rc *http.ResponseController
}

func (d *deadlineWriter) Write(p []byte) (int, error) {
	// An error means the writer cannot set deadlines (a test recorder): write all the same.
	_ = d.rc.SetWriteDeadline(time.Now().Add(backupWriteWindow))
	return d.w.Write(p)
}
