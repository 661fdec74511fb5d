package web

import (
	"encoding/json"
	"net/http"
)

// webManifest is GET /manifest.webmanifest: what a browser needs to install Switchboard as an
// app that opens on the inbox, full screen, with its icons.
func (h *Handler) webManifest(w http.ResponseWriter, r *http.Request) {
	data, err := json.Marshal(appManifest)
	if err != nil {
		writeError(w, http.StatusInternalServerError, "internal error")
		return
	}
	w.Header().Set("Content-Type", "application/manifest+json")
	w.Header().Set("Cache-Control", "no-cache")
	_, _ = w.Write(data)
}
