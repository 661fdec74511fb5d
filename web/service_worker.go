package web

import "net/http"

// serviceWorker is GET /sw.js, the service worker of the whole origin (scope /). Browsers must
// see a new build's worker at once, so it is never cached without asking (no-cache); its
// cache name carries the build's asset version.
func (h *Handler) serviceWorker(w http.ResponseWriter, r *http.Request) {
	if h.pwa.worker == nil {
		http.NotFound(w, r)
		return
	}
	w.Header().Set("Content-Type", "text/javascript; charset=utf-8")
	w.Header().Set("Cache-Control", "no-cache")
	_, _ = w.Write(h.pwa.worker)
}
