package web

import (
	"io"
	"net/http"
)

// pushKey is GET /push/key: the server's VAPID public key (the uncompressed P-256 point,
// base64url), which a browser passes to PushManager.subscribe as applicationServerKey. It is
// public: anyone may read it; only the server holds its private half.
func (h *Handler) pushKey(w http.ResponseWriter, r *http.Request) {
	w.Header().Set("Content-Type", "text/plain; charset=utf-8")
	w.Header().Set("Cache-Control", "no-cache")
	_, _ = io.WriteString(w, h.cfg.PushKey)
}
