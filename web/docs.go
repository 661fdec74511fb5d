package web

import (
	"bytes"
	"encoding/json"
	"net/http"
	"strings"

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

// The document shows the default stage and provider; an installation configured with others
// serves it rewritten to its own, so that the document always describes the server serving it.
const (
	defaultStage    = "v1"
	defaultProvider = "zapier"
	defaultsNote    = "the paths here use the defaults `v1` and `zapier` (`-stage`, `-provider`)"
)

// localizeOpenAPI rewrites doc's action paths to /stage/integrations/developer/provider/ and
// every request's developerProvider to provider. A document it cannot read is returned as is.
func localizeOpenAPI(doc []byte, stage, provider string) []byte {
	if stage == defaultStage && provider == defaultProvider {
		return doc
	}
	var d map[string]any
	dec := json.NewDecoder(bytes.NewReader(doc))
	dec.UseNumber()
	if err := dec.Decode(&d); err != nil {
		return doc
	}
	from := "/" + defaultStage + "/integrations/developer/" + defaultProvider + "/"
	to := "/" + stage + "/integrations/developer/" + provider + "/"
	paths, _ := d["paths"].(map[string]any)
	local := make(map[string]any, len(paths))
	for p, item := range paths {
		if name, ok := strings.CutPrefix(p, from); ok {
			p = to + name
		}
		local[p] = item
		schema := dig(item, "post", "requestBody", "content", "application/json", "schema", "properties", "developerProvider")
		if dp, ok := schema.(map[string]any); ok {
			dp["enum"] = []string{provider}
		}
	}
	d["paths"] = local
	if info, ok := d["info"].(map[string]any); ok {
		if desc, ok := info["description"].(string); ok {
			info["description"] = strings.Replace(desc, defaultsNote,
				"the paths here use this installation's stage `"+stage+"` and provider `"+provider+"`", 1)
		}
	}
	out, err := json.MarshalIndent(d, "", "  ")
	if err != nil {
		return doc
	}
	return append(out, '\n')
}

// dig walks nested JSON objects by key; nil when a step is missing.
func dig(v any, keys ...string) any {
	for _, k := range keys {
		m, ok := v.(map[string]any)
		if !ok {
			return nil
		}
		v = m[k]
	}
	return v
}
