package oauth

import (
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"mime"
	"net/http"

	"github.com/go-oauth2/oauth2/v4"
	oerrors "github.com/go-oauth2/oauth2/v4/errors"
)

// maxForm bounds the body of the token and revocation endpoints and of the consent form.
const maxForm = 64 << 10

// readForm parses the consent form post with its body bounded to maxForm, so that a client cannot
// make the server read without limit. An error is answered by formError.
func readForm(w http.ResponseWriter, r *http.Request) error {
	r.Body = http.MaxBytesReader(w, r.Body, maxForm)
	return r.ParseForm()
}

// formError answers a form that readForm refused: 413 when it was too large, like the API's
// bodies, else 400.
func (p *Provider) formError(w http.ResponseWriter, r *http.Request, err error) {
	var tooBig *http.MaxBytesError
	if errors.As(err, &tooBig) {
		p.renderMessage(w, r, http.StatusRequestEntityTooLarge, "Request too large", "The form is larger than 64 KiB.")
		return
	}
	p.renderMessage(w, r, http.StatusBadRequest, "Bad request", "The form could not be read.")
}

// Token is POST /oauth/token: authorization_code and refresh_token grants only.
func (p *Provider) Token(w http.ResponseWriter, r *http.Request) {
	res, err := p.tokenRequest(w, r)
	if err != nil {
		p.writeOAuthError(w, r, err)
		return
	}
	writeNoStoreJSON(w, http.StatusOK, res)
}

func (p *Provider) tokenRequest(w http.ResponseWriter, r *http.Request) (tokenResponse, error) {
	if err := parseEndpointForm(w, r); err != nil {
		return tokenResponse{}, err
	}
	// The grant type is checked before go-oauth2 sees the request: its parser would try the
	// password grant's handler (answering access_denied) instead of unsupported_grant_type.
	switch oauth2.GrantType(r.PostForm.Get("grant_type")) {
	case oauth2.AuthorizationCode, oauth2.Refreshing:
	case "":
		return tokenResponse{}, &oauthError{oerrors.ErrInvalidRequest, "grant_type is required"}
	default:
		return tokenResponse{}, &oauthError{oerrors.ErrUnsupportedGrantType, "only authorization_code and refresh_token are supported"}
	}
	gt, tgr, err := p.srv.ValidationTokenRequest(r)
	if err != nil {
		return tokenResponse{}, fromLibrary(err)
	}
	c, err := p.authenticateClient(tgr.ClientID, tgr.ClientSecret)
	if err != nil {
		return tokenResponse{}, err
	}
	if gt == oauth2.AuthorizationCode {
		return p.redeemCode(c, tgr.Code, tgr.RedirectURI, tgr.CodeVerifier)
	}
	return p.refresh(c, tgr.Refresh, tgr.Scope)
}

// Revoke is POST /oauth/revoke (RFC 7009): 200 whether or not the token was known; the client
// must authenticate like at the token endpoint. The answer is the JSON object {} with its
// Content-Type, since clients (simple-oauth2's revokeAll) parse every answer as JSON.
func (p *Provider) Revoke(w http.ResponseWriter, r *http.Request) {
	err := func() error {
		if err := parseEndpointForm(w, r); err != nil {
			return err
		}
		id, secret, err := clientCredentials(r)
		if err != nil {
			return fromLibrary(err)
		}
		c, err := p.authenticateClient(id, secret)
		if err != nil {
			return err
		}
		token := r.PostForm.Get("token")
		if token == "" {
			return &oauthError{oerrors.ErrInvalidRequest, "token is required"}
		}
		return p.revokeToken(c, token)
	}()
	if err != nil {
		p.writeOAuthError(w, r, err)
		return
	}
	w.Header().Set("Cache-Control", "no-store")
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(http.StatusOK)
	_, _ = w.Write([]byte("{}"))
}

// parseEndpointForm reads the form body strictly (RFC 6749 §3.2): parameters only in an
// application/x-www-form-urlencoded body (never in the URL, where secrets end up in logs),
// and none repeated.
func parseEndpointForm(w http.ResponseWriter, r *http.Request) error {
	if r.URL.RawQuery != "" {
		return &oauthError{oerrors.ErrInvalidRequest, "parameters belong in the request body, not the URL"}
	}
	mt, _, err := mime.ParseMediaType(r.Header.Get("Content-Type"))
	if err != nil || mt != "application/x-www-form-urlencoded" {
		return &oauthError{oerrors.ErrInvalidRequest, "Content-Type must be application/x-www-form-urlencoded"}
	}
	r.Body = http.MaxBytesReader(w, r.Body, maxForm)
	if err := r.ParseForm(); err != nil {
		var tooBig *http.MaxBytesError
		if errors.As(err, &tooBig) {
			return &oauthError{oerrors.ErrInvalidRequest, "the form body is larger than 64 KiB"}
		}
		return &oauthError{oerrors.ErrInvalidRequest, "the form body could not be parsed"}
	}
	for k, v := range r.PostForm {
		if len(v) > 1 {
			return &oauthError{oerrors.ErrInvalidRequest, fmt.Sprintf("parameter %s is repeated", k)}
		}
	}
	return nil
}

// authenticateClient checks the client's credentials: a confidential client's secret against
// its hash in constant time; a public client sends none.
func (p *Provider) authenticateClient(id, secret string) (Client, error) {
	c, err := p.Client(id)
	if err != nil {
		return Client{}, &oauthError{oerrors.ErrInvalidClient, "unknown client or wrong credentials"}
	}
	if c.Public {
		if secret != "" {
			return Client{}, &oauthError{oerrors.ErrInvalidClient, "a public client has no secret"}
		}
		return c, nil
	}
	if !c.verifySecret(secret) {
		return Client{}, &oauthError{oerrors.ErrInvalidClient, "unknown client or wrong credentials"}
	}
	return c, nil
}

// fromLibrary maps an error of go-oauth2's request parsing to ours.
func fromLibrary(err error) error {
	switch err {
	case oerrors.ErrInvalidClient:
		return &oauthError{oerrors.ErrInvalidClient, "client authentication is required"}
	case oerrors.ErrUnsupportedGrantType:
		return &oauthError{oerrors.ErrUnsupportedGrantType, "only authorization_code and refresh_token are supported"}
	}
	if desc, ok := oerrors.Descriptions[err]; ok && err.Error() == oerrors.ErrInvalidRequest.Error() {
		return &oauthError{oerrors.ErrInvalidRequest, desc}
	}
	var oe *oauthError
	if errors.As(err, &oe) {
		return oe
	}
	return &oauthError{oerrors.ErrInvalidRequest, "the request is missing a required parameter"}
}

// writeOAuthError answers per RFC 6749 §5.2, settled thus: invalid_client is 401
// with a Basic challenge (required when the client used the Authorization header, and every
// 401 carries a challenge); every other refusal is 400 — invalid_grant included, never 401;
// anything else is a 500 server_error without detail.
func (p *Provider) writeOAuthError(w http.ResponseWriter, r *http.Request, err error) {
	var oe *oauthError
	if !errors.As(err, &oe) {
		slog.Error("oauth: internal error", "path", r.URL.Path, "request_id", w.Header().Get("X-Request-Id"), "err", err)
		writeNoStoreJSON(w, http.StatusInternalServerError, map[string]string{
			"error": oerrors.ErrServerError.Error(), "error_description": "internal error"})
		return
	}
	status := http.StatusBadRequest
	if oe.Code == oerrors.ErrInvalidClient {
		status = http.StatusUnauthorized
		w.Header().Set("WWW-Authenticate", `Basic realm="switchboard"`)
	}
	writeNoStoreJSON(w, status, map[string]string{"error": oe.Code.Error(), "error_description": oe.Description})
}

// writeNoStoreJSON writes a token endpoint response: never cached (RFC 6749 §5.1).
func writeNoStoreJSON(w http.ResponseWriter, status int, v any) {
	data, err := json.Marshal(v)
	if err != nil {
		status, data = http.StatusInternalServerError, []byte(`{"error":"server_error"}`)
	}
	h := w.Header()
	h.Set("Content-Type", "application/json;charset=UTF-8")
	h.Set("Cache-Control", "no-store")
	h.Set("Pragma", "no-cache")
	w.WriteHeader(status)
	_, _ = w.Write(append(data, '\n'))
}
