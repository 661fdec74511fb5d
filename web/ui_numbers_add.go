package web

import (
	"errors"
	"net/http"
	"net/url"
	"strings"
	"unicode/utf8"

	"switchboard/carrier"
	"switchboard/views"
)

// carrierNumbers is GET /settings/numbers/add: a page of the connected account's numbers that no
// workspace uses, as the carrier pages them, to choose one to add.
func (h *Handler) carrierNumbers(w http.ResponseWriter, r *http.Request, u *ui) {
	u.section = "settings"
	q := r.URL.Query()
	v, status := h.accountNumbersView(r, u, q.Get("carrier"), q.Get("page"))
	h.render(w, r, u, status, "Add a number", views.AccountNumbers(v))
}

// accountNumbersView lists a page of want's account (the first connected carrier when want is
// none), and the status to answer with.
func (h *Handler) accountNumbersView(r *http.Request, u *ui, want, page string) (views.AccountNumbersView, int) {
	cs := h.accountCarriers(want)
	v := views.AccountNumbersView{Carriers: cs, Workspace: u.ws.Name, PublicURLProblem: h.cfg.Accounts.PublicURLProblem()}
	v.Carrier, v.Label = currentCarrier(cs)
	if v.Carrier == "" {
		v.Label = "your carrier"
		v.ListError = "No Twilio or Telnyx account is connected: an administrator of the installation connects one on the Carriers page."
		return v, http.StatusOK
	}
	p, err := h.cfg.Accounts.AccountNumbers(r.Context(), v.Carrier, page)
	if err != nil {
		status, msg := carrierFailure(r, err)
		v.ListError = msg
		return v, status
	}
	v.Page = p.Page
	for _, n := range p.Numbers {
		v.Rows = append(v.Rows, views.AccountNumberRow{ID: n.ID, Phone: n.Phone, Shown: u.showPhone(n.Phone), Name: n.Name, NoSMS: n.NoSMS})
	}
	link := func(token string) string {
		return "/settings/numbers/add?" + url.Values{"carrier": {v.Carrier}, "page": {token}}.Encode()
	}
	if p.Next != "" {
		v.Next = link(p.Next)
	}
	if p.Prev != "" {
		v.Prev = link(p.Prev)
	}
	return v, http.StatusOK
}

// addCarrierNumber is POST /settings/numbers/add: the chosen number is wired to Switchboard at its
// carrier, read back, and added to the workspace. A number whose texts go elsewhere asks first
// ("Take it over?"); a refusal re-renders the list with the reason.
func (h *Handler) addCarrierNumber(w http.ResponseWriter, r *http.Request, u *ui) {
	u.section = "settings"
	if !h.readUIForm(w, r, u) {
		return
	}
	f := r.PostForm
	req := carrier.AddRequest{Carrier: f.Get("carrier"), ID: f.Get("id"), Name: strings.TrimSpace(f.Get("name")), TakeOver: f.Get("takeOver") == "yes"}
	var err error
	switch {
	case req.ID == "":
		err = &carrier.WiringError{Reason: "Choose a number to add."}
	case utf8.RuneCountInString(req.Name) > 255:
		err = &carrier.WiringError{Reason: "The name must be at most 255 characters."}
	default:
		_, err = h.cfg.Accounts.Add(r.Context(), u.ws.ID, req)
	}
	var take *carrier.TakeOverError
	if errors.As(err, &take) {
		h.render(w, r, u, http.StatusConflict, "Take it over?", views.TakeOver(views.TakeOverView{
			Phone: u.showPhone(take.Phone), Label: carrierLabel(req.Carrier), Now: take.Now, Action: "/settings/numbers/add",
			Hidden: []views.Option{{Value: "carrier", Label: req.Carrier}, {Value: "id", Label: req.ID}, {Value: "name", Label: req.Name}}}))
		return
	}
	if err != nil {
		status, msg := carrierFailure(r, err)
		v, _ := h.accountNumbersView(r, u, req.Carrier, "")
		v.Error, v.Chosen, v.Name = "The number was not added. "+msg, req.ID, req.Name
		h.render(w, r, u, status, "Add a number", views.AccountNumbers(v))
		return
	}
	http.Redirect(w, r, "/settings/numbers?done=wired", http.StatusSeeOther)
}
