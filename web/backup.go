package web

import (
	"crypto/subtle"
	"log/slog"
	"net/http"
	"strconv"
)

// backup streams a consistent hot copy of the database (bbolt Tx.WriteTo) to the holder of the
// server's backup token, which `switchboard backup` reads from the data directory.
func (h *Handler) backup(w http.ResponseWriter, r *http.Request) {
	want := "Bearer " + h.cfg.BackupToken
	if h.cfg.BackupToken == "" || subtle.ConstantTimeCompare([]byte(r.Header.Get("Authorization")), []byte(want)) != 1 {
		w.Header().Set("WWW-Authenticate", `Bearer realm="switchboard"`)
		writeError(w, http.StatusUnauthorized, "backup token required")
		return
	}
	w.Header().Set("Content-Type", "application/octet-stream")
	w.Header().Set("Content-Disposition", `attachment; filename="switchboard.db"`)
	_, err := h.store.Backup(w, func(size int64) {
		w.Header().Set("Content-Length", strconv.FormatInt(size, 10))
	})
	if err != nil {
		slog.ErrorContext(r.Context(), "backup failed", "request_id", requestID(r.Context()), "err", err)
	}
}
