package web

import (
	"encoding/json"
	"net/http"
	"net/mail"

	"switchboard/store"
)

type contactRequest struct {
	workspaceID string
	in          store.ContactInput
}

// decodeContact reads the fields shared by create-contact and create-or-update-contact.
func decodeContact(f *fields, provider string, firstNameRequired bool) contactRequest {
	var req contactRequest
	req.workspaceID = f.base(provider, "id", true)
	req.in.Phone = f.phone("phone", true)
	if firstNameRequired {
		first := f.str("firstName", true, maxName)
		req.in.FirstName = &first
	} else {
		req.in.FirstName = f.optStr("firstName", maxName)
	}
	req.in.LastName = f.optStr("lastName", maxName)
	req.in.Email = f.optStr("email", maxEmail)
	if e := req.in.Email; e != nil {
		if addr, err := mail.ParseAddress(*e); err != nil || addr.Address != *e {
			f.fail("email", "must be an email address such as ana@example.com")
		}
	}
	req.in.Properties = f.object("properties")
	// An empty string counts as absent, in properties too: it neither sets nor clears a key.
	// create-contact has nothing to remove, so a null there is absent as well.
	for k, v := range req.in.Properties {
		if v == "" || (v == nil && firstNameRequired) {
			delete(req.in.Properties, k)
		}
	}
	req.in.Source = store.SourceAPI
	req.in.Consent = decodeConsent(f)
	return req
}

// decodeConsent reads the optional consent object {at, source, method, evidence}; its values
// are checked against the clock by the store (checkConsent), fields named "consent.at", ….
func decodeConsent(f *fields) *store.ConsentInput {
	if !f.present("consent") {
		return nil
	}
	var raw map[string]any
	if err := json.Unmarshal(f.raw["consent"], &raw); err != nil || raw == nil {
		f.fail("consent", "must be an object with at, source, method and evidence")
		return nil
	}
	str := func(name string) string {
		v, ok := raw[name]
		if !ok || v == nil {
			return ""
		}
		s, ok := v.(string)
		if !ok {
			f.fail("consent."+name, "must be a string")
		}
		return s
	}
	return &store.ConsentInput{At: str("at"), Source: str("source"), Method: str("method"), Evidence: str("evidence")}
}

// checkConsent adds the consent's own failures to the request's, so one 400 names them all.
func (h *Handler) checkConsent(c *call, in *store.ConsentInput) {
	if in == nil {
		return
	}
	for _, fe := range h.store.CheckConsent("consent.", *in) {
		c.f.fail(fe.Field, fe.Message)
	}
}

// createContact adds a contact (201); a phone already in the workspace is 409.
func (h *Handler) createContact(w http.ResponseWriter, r *http.Request, c *call) {
	req := decodeContact(c.f, h.cfg.Provider, true)
	h.checkConsent(c, req.in.Consent)
	if !h.checked(w, r, c, req.workspaceID, store.WorkspaceData{Properties: req.in.Properties}) {
		return
	}
	ct, err := h.store.CreateContact(req.workspaceID, req.in)
	if err != nil {
		writeStoreError(w, r, err)
		return
	}
	writeJSON(w, http.StatusCreated, newContactResult(ct))
}
