package web

import (
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
	return req
}

// createContact adds a contact (201); a phone already in the workspace is 409.
func (h *Handler) createContact(w http.ResponseWriter, r *http.Request, c *call) {
	req := decodeContact(c.f, h.cfg.Provider, true)
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
