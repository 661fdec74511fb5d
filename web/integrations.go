package web

import (
	"bytes"
	"encoding/json"
	"net/http"

	"switchboard/oauth"
)

// oauthMetadata serves the authorization server's metadata; its issuer is the public URL (or,
// when none is configured, the address the request came to), the base of every endpoint.
func (h *Handler) oauthMetadata(w http.ResponseWriter, r *http.Request) {
	oauth.ServeMetadata(w, h.publicURL(r))
}

// withAPIServer sets the OpenAPI document's servers to the public URL, so that tools reading the
// served document call this installation wherever they fetched it from. "" (no public URL
// configured) keeps the document as it is, with its relative "/". A document it cannot read is
// returned as is.
func withAPIServer(doc []byte, server string) []byte {
	if server == "" {
		return doc
	}
	var d map[string]any
	dec := json.NewDecoder(bytes.NewReader(doc))
	dec.UseNumber()
	if err := dec.Decode(&d); err != nil {
		return doc
	}
	d["servers"] = []map[string]string{{"url": server, "description": "This installation."}}
	out, err := json.MarshalIndent(d, "", "  ")
	if err != nil {
		return doc
	}
	return append(out, '\n')
}
