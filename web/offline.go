package web

import (
	"net/http"

	"github.com/a-h/templ"

	"switchboard/views"
)

// offlinePage is GET /offline: the page the service worker shows when a page cannot be loaded.
// It holds nothing of anyone's, so the worker may keep it on a shared phone.
func (h *Handler) offlinePage(w http.ResponseWriter, r *http.Request) {
	setPageHeaders(w)
	w.Header().Set("Cache-Control", "no-cache")
	templ.Handler(views.Layout("Offline", views.Offline())).ServeHTTP(w, r)
}
