package web

import (
	"net/http"

	"github.com/a-h/templ"

	"switchboard/views"
)

// openAPI serves the OpenAPI document of the integration API (embedded in the binary).
func (h *Handler) openAPI(w http.ResponseWriter, _ *http.Request) {
	w.Header().Set("Content-Type", "application/json")
	w.Header().Set("Cache-Control", "no-cache")
	w.Header().Set("Access-Control-Allow-Origin", "*") // a public contract: API tools may fetch it
	_, _ = w.Write(h.cfg.OpenAPI)
}

// docsCSP lets the reference page load only from this server. Redoc needs inline styles, a
// worker made from a blob (search) and eval (its JSON Schema compiler).
const docsCSP = "default-src 'self'; script-src 'self' 'unsafe-eval'; style-src 'self' 'unsafe-inline'; " +
	"img-src 'self' data:; font-src 'self' data:; worker-src 'self' blob:; connect-src 'self'; " +
	"object-src 'none'; base-uri 'none'; form-action 'none'; frame-ancestors 'none'"

// docs renders the API reference page: the vendored Redoc on /openapi.json.
func (h *Handler) docs(w http.ResponseWriter, r *http.Request) {
	w.Header().Set("Content-Security-Policy", docsCSP)
	templ.Handler(views.Docs()).ServeHTTP(w, r)
}
