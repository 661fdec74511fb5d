package oauth

import (
	"encoding/json"
	"net/http"
)

// Metadata is the authorization server's RFC 8414 metadata: what a discovery-based client
// (openid-client, golang.org/x/oauth2 configured from it) needs to run the whole flow. The
// lists say exactly what the endpoints accept: the code response type, the authorization_code
// and refresh_token grants, PKCE S256 only, and the three client authentication methods.
type Metadata struct {
	Issuer                            string   `json:"issuer"`
	AuthorizationEndpoint             string   `json:"authorization_endpoint"`
	TokenEndpoint                     string   `json:"token_endpoint"`
	RevocationEndpoint                string   `json:"revocation_endpoint"`
	ResponseTypesSupported            []string `json:"response_types_supported"`
	GrantTypesSupported               []string `json:"grant_types_supported"`
	CodeChallengeMethodsSupported     []string `json:"code_challenge_methods_supported"`
	TokenEndpointAuthMethodsSupported []string `json:"token_endpoint_auth_methods_supported"`
	ScopesSupported                   []string `json:"scopes_supported"`
	ServiceDocumentation              string   `json:"service_documentation"`
}

// MetadataFor is the metadata of the server at issuer, its public URL without a trailing slash.
func MetadataFor(issuer string) Metadata {
	return Metadata{
		Issuer:                            issuer,
		AuthorizationEndpoint:             issuer + "/oauth/authorize",
		TokenEndpoint:                     issuer + "/oauth/token",
		RevocationEndpoint:                issuer + "/oauth/revoke",
		ResponseTypesSupported:            []string{"code"},
		GrantTypesSupported:               []string{"authorization_code", "refresh_token"},
		CodeChallengeMethodsSupported:     []string{"S256"},
		TokenEndpointAuthMethodsSupported: []string{"client_secret_basic", "client_secret_post", "none"},
		ScopesSupported:                   []string{Scope},
		ServiceDocumentation:              issuer + "/docs",
	}
}

// ServeMetadata answers GET /.well-known/oauth-authorization-server with the metadata of the
// server at issuer. It is public and the same for everyone, so browsers of other origins may
// read it and caches may keep it for an hour.
func ServeMetadata(w http.ResponseWriter, issuer string) {
	w.Header().Set("Content-Type", "application/json")
	w.Header().Set("Cache-Control", "public, max-age=3600")
	w.Header().Set("Access-Control-Allow-Origin", "*")
	_ = json.NewEncoder(w).Encode(MetadataFor(issuer))
}
