package web

import (
	"errors"
	"net/http"

	"switchboard/carrier"
	"switchboard/store"
	"switchboard/views"
)

var carrierAccountNotices = map[string]string{
	"twilio":              "Twilio connected: Twilio accepted the credentials.",
	"telnyx":              "Telnyx connected: Telnyx accepted the API key.",
	"disconnected-twilio": "Twilio disconnected.",
	"disconnected-telnyx": "Telnyx disconnected.",
}

// adminCarriers is GET /admin/carriers: the Twilio and Telnyx accounts, where the one in use
// comes from, and the forms that connect them.
func (h *Handler) adminCarriers(w http.ResponseWriter, r *http.Request, u *ui) {
	v, err := h.carriersView(u)
	if err != nil {
		h.uiError(w, r, u, err)
		return
	}
	v.Notice = carrierAccountNotices[r.URL.Query().Get("done")]
	h.render(w, r, u, http.StatusOK, "Carriers", views.Carriers(v))
}

func (h *Handler) carriersView(u *ui) (views.CarriersView, error) {
	v := views.CarriersView{PublicURLProblem: h.cfg.Accounts.PublicURLProblem()}
	numbers, err := h.store.AllNumbers()
	if err != nil {
		return v, err
	}
	card := func(name string) (views.CarrierAccountView, error) {
		st, err := h.cfg.Accounts.Status(name)
		c := views.CarrierAccountView{Carrier: name, Label: carrierLabel(name), Connected: st.Connected, AccountSID: st.AccountSID,
			APIKeySID: st.APIKeySID, Last4: st.Last4, Problem: st.Problem}
		switch st.Source {
		case carrier.SourceFlags:
			c.InUse = "flags"
		case carrier.SourceConnected:
			c.InUse = "connected"
		}
		if st.FlagsSet {
			c.Flags = map[string]string{
				store.ProviderTwilio: "-twilio-account-sid and -twilio-auth-token (or SWITCHBOARD_TWILIO_ACCOUNT_SID and SWITCHBOARD_TWILIO_AUTH_TOKEN)",
				store.ProviderTelnyx: "-telnyx-api-key (or SWITCHBOARD_TELNYX_API_KEY)",
			}[name]
		}
		c.SecretName = map[string]string{store.ProviderTwilio: "Auth token", store.ProviderTelnyx: "API key"}[name]
		if st.APIKeySID != "" {
			c.SecretName = "API key secret"
		}
		if st.Connected {
			c.ConnectedAt = fmtTime(st.ConnectedAt, u.ws.Location())
			c.ConnectedBy = "someone no longer here"
			if by, err := h.store.User(st.ConnectedBy); err == nil {
				c.ConnectedBy = pick(by.Name, by.Email)
			}
		}
		for _, n := range numbers {
			if n.CarrierName() == name {
				c.Numbers++
			}
		}
		return c, err
	}
	if v.Twilio, err = card(store.ProviderTwilio); err != nil {
		return v, err
	}
	if v.Telnyx, err = card(store.ProviderTelnyx); err != nil {
		return v, err
	}
	if v.Miswired, err = h.miswiredRows(u); err != nil {
		return v, err
	}
	v.Recovery, err = h.recoveryRows(u)
	return v, err
}

// recoveryRows is each carrier in use's last check for the texts and receipts its webhooks
// missed, shown on /admin and /admin/carriers; a carrier no longer in use keeps its row while
// its last check is on record.
func (h *Handler) recoveryRows(u *ui) ([]views.RecoveryRow, error) {
	checks, err := h.store.RecoveryChecks()
	if err != nil {
		return nil, err
	}
	loc := u.ws.Location()
	var rows []views.RecoveryRow
	for _, name := range []string{store.ProviderTwilio, store.ProviderTelnyx} {
		inUse := false
		if h.cfg.Accounts != nil {
			st, err := h.cfg.Accounts.Status(name)
			if err != nil {
				return nil, err
			}
			inUse = st.Source != carrier.SourceNone
		}
		c, checked := checks[name]
		if !inUse && !checked {
			continue
		}
		rows = append(rows, views.RecoveryRow{Carrier: name, Label: carrierLabel(name), Checked: fmtTime(c.At, loc),
			Since: fmtTime(c.Since, loc), Texts: c.Texts, Statuses: c.Statuses, Total: c.TotalTexts, Error: c.Error,
			LastOK: fmtTime(c.LastOK, loc)})
	}
	return rows, nil
}

func pick(a, b string) string {
	if a != "" {
		return a
	}
	return b
}

// adminConnectTwilio is POST /admin/carriers/twilio: the credentials are checked with Twilio,
// then kept sealed; a refusal re-renders the form with what Twilio said (secrets not typed back).
func (h *Handler) adminConnectTwilio(w http.ResponseWriter, r *http.Request, u *ui) {
	if !h.readUIForm(w, r, u) {
		return
	}
	f := r.PostForm
	err := h.cfg.Accounts.ConnectTwilio(r.Context(), carrier.TwilioCredentials{AccountSID: f.Get("accountSid"), AuthToken: f.Get("authToken"),
		APIKeySID: f.Get("apiKeySid"), APIKeySecret: f.Get("apiKeySecret")}, u.user.ID)
	h.connected(w, r, u, store.ProviderTwilio, err, map[string]string{"accountSid": f.Get("accountSid"), "apiKeySid": f.Get("apiKeySid")})
}

// adminConnectTelnyx is POST /admin/carriers/telnyx, as for Twilio.
func (h *Handler) adminConnectTelnyx(w http.ResponseWriter, r *http.Request, u *ui) {
	if !h.readUIForm(w, r, u) {
		return
	}
	f := r.PostForm
	err := h.cfg.Accounts.ConnectTelnyx(r.Context(), carrier.TelnyxCredentials{APIKey: f.Get("apiKey"), PublicKey: f.Get("publicKey")}, u.user.ID)
	h.connected(w, r, u, store.ProviderTelnyx, err, map[string]string{"publicKey": f.Get("publicKey")})
}

// connected answers a connect form: 303 when the account is kept, else the page with the errors.
func (h *Handler) connected(w http.ResponseWriter, r *http.Request, u *ui, name string, err error, typed map[string]string) {
	if err == nil {
		http.Redirect(w, r, "/admin/carriers?done="+name, http.StatusSeeOther)
		return
	}
	v, verr := h.carriersView(u)
	if verr != nil {
		h.uiError(w, r, u, verr)
		return
	}
	card := &v.Twilio
	if name == store.ProviderTelnyx {
		card = &v.Telnyx
	}
	card.Typed = typed
	status := http.StatusUnprocessableEntity
	var verrs store.ValidationError
	if errors.As(err, &verrs) {
		card.Errors = fieldErrors(err, nil)
		v.Error = carrierLabel(name) + " was not connected: check the fields below."
	} else {
		var msg string
		status, msg = carrierFailure(r, err)
		v.Error = carrierLabel(name) + " was not connected. " + msg
	}
	h.render(w, r, u, status, "Carriers", views.Carriers(v))
}

// adminDisconnectCarrier is POST /admin/carriers/{carrier}/disconnect: the connected account is
// forgotten (the flags' account, if any, stays in use).
func (h *Handler) adminDisconnectCarrier(w http.ResponseWriter, r *http.Request, u *ui) {
	name := r.PathValue("carrier")
	if name != store.ProviderTwilio && name != store.ProviderTelnyx {
		h.notFound(w, r, u, "such carrier")
		return
	}
	if err := h.cfg.Accounts.Disconnect(name); err != nil {
		var se *store.Error
		if !errors.As(err, &se) {
			h.uiError(w, r, u, err)
			return
		}
		v, verr := h.carriersView(u)
		if verr != nil {
			h.uiError(w, r, u, verr)
			return
		}
		v.Error = carrierLabel(name) + " was not disconnected: " + se.Msg + "."
		h.render(w, r, u, http.StatusConflict, "Carriers", views.Carriers(v))
		return
	}
	http.Redirect(w, r, "/admin/carriers?done=disconnected-"+name, http.StatusSeeOther)
}
