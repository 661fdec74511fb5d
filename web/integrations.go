package web

import (
	"net/http"

	"switchboard/oauth"
)

// integrationRoutes registers the routes of the ecosystem integrations in one place: OAuth
// discovery (RFC 8414) and the Telnyx carrier's callback.
func (h *Handler) integrationRoutes(mux *http.ServeMux) {
	if h.cfg.OAuth != nil {
		mux.HandleFunc("GET /.well-known/oauth-authorization-server", h.oauthMetadata)
	}
	if h.cfg.Receiver != nil {
		mux.HandleFunc("POST /carrier/telnyx/webhook", h.telnyxWebhook)
	}
}

// oauthMetadata serves the authorization server's metadata; its issuer is the public URL (or,
// when none is configured, the address the request came to), the base of every endpoint.
func (h *Handler) oauthMetadata(w http.ResponseWriter, r *http.Request) {
	oauth.ServeMetadata(w, h.publicURL(r))
}
