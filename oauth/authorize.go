package oauth

import (
	"net/http"
	"net/url"

	"github.com/a-h/templ"
	"github.com/go-oauth2/oauth2/v4"
	oerrors "github.com/go-oauth2/oauth2/v4/errors"
	"github.com/go-oauth2/oauth2/v4/server"

	"switchboard/store"
	"switchboard/views"
)

// Authorize is GET /oauth/authorize (validate, sign in if needed, show consent) and
// POST /oauth/authorize (the consent form: allow or deny).
//
// Until the client and redirect URI are known to be good, errors are shown to the user and
// never redirected (RFC 6749 §4.1.2.1): redirecting would make this server an open
// redirector. After that, errors go back to the client with the state.
func (p *Provider) Authorize(w http.ResponseWriter, r *http.Request) {
	if r.Method == http.MethodPost {
		if err := readForm(w, r); err != nil {
			p.formError(w, r, err)
			return
		}
	}
	c, err := p.Client(r.FormValue("client_id"))
	if err != nil {
		p.renderMessage(w, r, http.StatusBadRequest, "Unknown application", "The application that sent you here is not registered (unknown client_id).")
		return
	}
	redirectURI := r.FormValue("redirect_uri")
	if redirectURI == "" && len(c.RedirectURIs) == 1 {
		redirectURI = c.RedirectURIs[0] // RFC 6749 §3.1.2.3: optional with one registered URI
	}
	if !c.hasRedirectURI(redirectURI) {
		p.renderMessage(w, r, http.StatusBadRequest, "Invalid redirect", "The redirect_uri is not registered for "+c.Name+"; the application must use one of its registered URIs exactly.")
		return
	}
	back := &server.AuthorizeRequest{RedirectURI: redirectURI, ResponseType: oauth2.Code, State: r.FormValue("state")}
	req, refusal := p.checkAuthorizeRequest(r, c, redirectURI)
	if refusal != nil {
		p.redirectError(w, r, back, refusal)
		return
	}

	u, signedIn := p.signedIn(r)
	if !signedIn {
		// The authorize request is re-sent after sign-in as a GET with the same parameters.
		next := "/oauth/authorize?" + consentParams(req, c).Encode()
		http.Redirect(w, r, "/oauth/login?next="+url.QueryEscape(next), http.StatusSeeOther)
		return
	}
	if r.Method == http.MethodGet {
		p.renderConsent(w, r, c, u, req)
		return
	}
	switch r.PostForm.Get("decision") {
	case "deny":
		p.redirectError(w, r, back, &oauthError{oerrors.ErrAccessDenied, "the user denied access"})
	case "allow":
		req.UserID = u.ID
		// go-oauth2's Manager checks the redirect URI again (exactly), generates the code and
		// stores it through tokenStore.Create.
		ti, err := p.srv.GetAuthorizeToken(r.Context(), req)
		if err != nil {
			p.redirectError(w, r, back, err)
			return
		}
		p.redirect(w, r, req, p.srv.GetAuthorizeData(oauth2.Code, ti))
	default:
		p.renderMessage(w, r, http.StatusBadRequest, "Bad request", "Choose Allow or Deny.")
	}
}

// checkAuthorizeRequest applies the provider's rules before go-oauth2's parser: only the code
// response type, PKCE S256 only (required for public clients), the integrations scope, no repeated
// parameters. go-oauth2 then validates the challenge's length and builds the request.
func (p *Provider) checkAuthorizeRequest(r *http.Request, c Client, redirectURI string) (*server.AuthorizeRequest, error) {
	invalid := func(desc string) error { return &oauthError{oerrors.ErrInvalidRequest, desc} }
	for k, v := range r.Form {
		if len(v) > 1 {
			return nil, invalid("parameter " + k + " is repeated")
		}
	}
	if rt := r.FormValue("response_type"); rt != string(oauth2.Code) {
		if rt == "" {
			return nil, invalid("response_type is required")
		}
		return nil, &oauthError{oerrors.ErrUnsupportedResponseType, "only response_type=code is supported"}
	}
	cc, ccm := r.FormValue("code_challenge"), r.FormValue("code_challenge_method")
	switch {
	case ccm == string(oauth2.CodeChallengePlain):
		return nil, invalid("code_challenge_method plain is not allowed: use S256")
	case cc != "" && ccm == "":
		// RFC 7636 §4.3: a missing method means plain.
		return nil, invalid("code_challenge_method is required and must be S256")
	case ccm != "" && ccm != string(oauth2.CodeChallengeS256):
		return nil, invalid("code_challenge_method must be S256")
	case ccm != "" && cc == "":
		return nil, invalid("code_challenge is required with code_challenge_method")
	case c.Public && cc == "":
		return nil, invalid("public clients must use PKCE: send code_challenge with code_challenge_method=S256")
	case cc != "" && !validChallenge(cc):
		return nil, invalid("code_challenge must be the base64url SHA-256 of the code_verifier (43 characters)")
	}
	scope := r.FormValue("scope")
	if scope == "" {
		scope = Scope
	}
	if !subsetScope(scope, Scope) {
		return nil, &oauthError{oerrors.ErrInvalidScope, "the only scope is " + Scope}
	}
	req, err := p.srv.ValidationAuthorizeRequest(r)
	if err != nil {
		return nil, err
	}
	req.RedirectURI = redirectURI
	req.Scope = Scope
	if cc == "" {
		req.CodeChallengeMethod = ""
	}
	return req, nil
}

// validChallenge: an S256 challenge is 32 bytes in unpadded base64url, 43 characters.
func validChallenge(cc string) bool {
	return len(cc) == 43 && validVerifier(cc)
}

// consentParams are the authorize request's parameters as the consent form and the
// post-sign-in redirect carry them.
func consentParams(req *server.AuthorizeRequest, c Client) url.Values {
	v := url.Values{}
	v.Set("response_type", string(oauth2.Code))
	v.Set("client_id", c.ID)
	v.Set("redirect_uri", req.RedirectURI)
	v.Set("scope", req.Scope)
	if req.State != "" {
		v.Set("state", req.State)
	}
	if req.CodeChallenge != "" {
		v.Set("code_challenge", req.CodeChallenge)
		v.Set("code_challenge_method", string(oauth2.CodeChallengeS256))
	}
	return v
}

func (p *Provider) renderConsent(w http.ResponseWriter, r *http.Request, c Client, u store.User, req *server.AuthorizeRequest) {
	wss, err := p.s.UserWorkspaces(u.ID)
	if err != nil {
		p.renderMessage(w, r, http.StatusInternalServerError, "Something went wrong", "Please try again.")
		return
	}
	v := views.ConsentView{ClientName: c.Name, UserName: u.Name, UserEmail: u.Email}
	for _, ws := range wss {
		v.Workspaces = append(v.Workspaces, ws.Name)
	}
	params := consentParams(req, c)
	for _, k := range []string{"response_type", "client_id", "redirect_uri", "scope", "state", "code_challenge", "code_challenge_method"} {
		if params.Has(k) {
			v.Params = append(v.Params, views.Param{Name: k, Value: params.Get(k)})
		}
	}
	p.render(w, r, http.StatusOK, "Connect "+c.Name, views.Consent(v))
}

// redirectError sends an authorize-step error back to the client's (verified) redirect URI.
func (p *Provider) redirectError(w http.ResponseWriter, r *http.Request, back *server.AuthorizeRequest, err error) {
	data := map[string]any{}
	if oe, ok := err.(*oauthError); ok {
		data["error"], data["error_description"] = oe.Code.Error(), oe.Description
	} else if desc, ok := oerrors.Descriptions[err]; ok {
		data["error"], data["error_description"] = err.Error(), desc
	} else {
		data["error"], data["error_description"] = oerrors.ErrServerError.Error(), "internal error"
	}
	p.redirect(w, r, back, data)
}

func (p *Provider) redirect(w http.ResponseWriter, r *http.Request, req *server.AuthorizeRequest, data map[string]any) {
	uri, err := p.srv.GetRedirectURI(req, data)
	if err != nil {
		p.renderMessage(w, r, http.StatusBadRequest, "Invalid redirect", "The redirect_uri cannot be used.")
		return
	}
	status := http.StatusFound
	if r.Method == http.MethodPost {
		status = http.StatusSeeOther // the browser follows a form post's redirect with GET
	}
	w.Header().Set("Cache-Control", "no-store")
	http.Redirect(w, r, uri, status)
}

// render writes a page in the layout; templ.Handler buffers, so a render error never sends
// half a page with 200. Pages are never cached or framed (clickjacking of consent).
func (p *Provider) render(w http.ResponseWriter, r *http.Request, status int, title string, page templ.Component) {
	h := w.Header()
	h.Set("Cache-Control", "no-store")
	h.Set("X-Frame-Options", "DENY")
	h.Set("Content-Security-Policy", "default-src 'self'; frame-ancestors 'none'; base-uri 'none'")
	templ.Handler(views.Layout(title, page), templ.WithStatus(status)).ServeHTTP(w, r)
}

func (p *Provider) renderMessage(w http.ResponseWriter, r *http.Request, status int, heading, text string) {
	p.render(w, r, status, heading, views.Message(heading, text, status >= 400))
}
