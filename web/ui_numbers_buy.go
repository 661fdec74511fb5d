package web

import (
	"errors"
	"net/http"
	"net/url"
	"strings"
	"unicode/utf8"

	"switchboard/carrier"
	"switchboard/store"
	"switchboard/views"
)

// buyNumberSearch is GET /settings/numbers/buy: the search form, and with search=1 the
// carrier's numbers for sale by area code or city, each with its monthly price.
func (h *Handler) buyNumberSearch(w http.ResponseWriter, r *http.Request, u *ui) {
	u.section = "settings"
	q := r.URL.Query()
	v := h.buySearchView(u, q.Get("carrier"), q.Get("country"), q.Get("areaCode"), q.Get("locality"))
	status := http.StatusOK
	if q.Get("search") != "" && v.Carrier != "" {
		v.Searched = true
		found, err := h.cfg.Accounts.Search(r.Context(), v.Carrier, carrier.Search{Country: v.Country, AreaCode: v.AreaCode, Locality: v.Locality})
		var verrs store.ValidationError
		switch {
		case err == nil:
			for _, a := range found {
				v.Rows = append(v.Rows, views.AvailableRow{Phone: a.Phone, Shown: u.showPhone(a.Phone), Place: place(a), Price: a.Monthly.String()})
			}
		case carrier.IsKind(err, carrier.KindNoNumbers):
			v.Error = err.Error() // an answer, not a failure
		case errors.As(err, &verrs):
			v.Errors, status = fieldErrors(err, nil), http.StatusUnprocessableEntity
		default:
			status, v.Error = carrierFailure(r, err)
		}
	}
	h.render(w, r, u, status, "Buy a number", views.BuySearch(v))
}

// buySearchView is the search page for want (the first connected carrier when want is none),
// as typed; the country defaults to the workspace's.
func (h *Handler) buySearchView(u *ui, want, country, areaCode, locality string) views.BuySearchView {
	cs := h.accountCarriers(want)
	v := views.BuySearchView{Carriers: cs, Country: strings.ToUpper(strings.TrimSpace(country)), AreaCode: strings.TrimSpace(areaCode),
		Locality: strings.TrimSpace(locality), PublicURLProblem: h.cfg.Accounts.PublicURLProblem()}
	v.Carrier, v.Label = currentCarrier(cs)
	if v.Country == "" {
		v.Country = u.ws.Region()
	}
	if v.Carrier == "" {
		v.Label = "your carrier"
		v.Error = "No Twilio or Telnyx account is connected: an administrator of the installation connects one on the Carriers page."
	}
	return v
}

// place is where a number for sale is, as the carrier says.
func place(a carrier.AvailableNumber) string {
	switch {
	case a.Locality != "" && a.Region != "":
		return a.Locality + ", " + a.Region
	case a.Locality != "":
		return a.Locality
	}
	return a.Region
}

// buyNumber is POST /settings/numbers/buy. Without confirm=yes it asks the carrier's price for
// the number now and asks to confirm it; with it, it buys at the confirmed price, wires the
// number and adds it (a changed price asks again; a number sold meanwhile says so).
func (h *Handler) buyNumber(w http.ResponseWriter, r *http.Request, u *ui) {
	u.section = "settings"
	if !h.readUIForm(w, r, u) {
		return
	}
	f := r.PostForm
	c := views.BuyConfirmView{Carrier: f.Get("carrier"), Label: carrierLabel(f.Get("carrier")), Phone: f.Get("phone"),
		Shown: u.showPhone(f.Get("phone")), Place: f.Get("place"), Country: f.Get("country"), AreaCode: f.Get("areaCode"),
		Locality: f.Get("locality"), Name: strings.TrimSpace(f.Get("name"))}
	c.Back = "/settings/numbers/buy?" + url.Values{"carrier": {c.Carrier}, "country": {c.Country}, "areaCode": {c.AreaCode},
		"locality": {c.Locality}, "search": {"1"}}.Encode()
	refuse := func(status int, msg string) {
		v := h.buySearchView(u, c.Carrier, c.Country, c.AreaCode, c.Locality)
		v.Error = msg
		h.render(w, r, u, status, "Buy a number", views.BuySearch(v))
	}
	if p := h.cfg.Accounts.PublicURLProblem(); p != "" {
		refuse(http.StatusUnprocessableEntity, p) // refused before anything is bought
		return
	}
	if f.Get("confirm") != "yes" {
		q, err := h.cfg.Accounts.Quote(r.Context(), c.Carrier, c.Phone)
		if err != nil {
			refuse(carrierFailure(r, err))
			return
		}
		h.confirmPrice(w, r, u, c, q, "", http.StatusOK)
		return
	}
	if utf8.RuneCountInString(c.Name) > 255 {
		c.Amount, c.Currency, c.Price = f.Get("amount"), f.Get("currency"), carrier.Price{Amount: f.Get("amount"), Currency: f.Get("currency")}.String()
		c.Error = "The name must be at most 255 characters."
		h.render(w, r, u, http.StatusUnprocessableEntity, "Buy a number", views.BuyConfirm(c))
		return
	}
	_, err := h.cfg.Accounts.Buy(r.Context(), u.ws.ID, carrier.BuyRequest{Carrier: c.Carrier, Phone: c.Phone, Name: c.Name,
		Price: carrier.Price{Amount: f.Get("amount"), Currency: f.Get("currency")}})
	var changed *carrier.QuoteChangedError
	switch {
	case errors.As(err, &changed):
		h.confirmPrice(w, r, u, c, changed.Quote, "The price changed since you looked: "+changed.Quote.Monthly.String()+" a month now.", http.StatusConflict)
	case err != nil:
		refuse(carrierFailure(r, err))
	default:
		http.Redirect(w, r, "/settings/numbers?done=bought", http.StatusSeeOther)
	}
}

// confirmPrice renders the confirmation of a purchase at the price q quotes.
func (h *Handler) confirmPrice(w http.ResponseWriter, r *http.Request, u *ui, c views.BuyConfirmView, q carrier.AvailableNumber, notice string, status int) {
	c.Amount, c.Currency, c.Price, c.Notice = q.Monthly.Amount, q.Monthly.Currency, q.Monthly.String(), notice
	if p := place(q); p != "" {
		c.Place = p
	}
	h.render(w, r, u, status, "Buy "+c.Shown, views.BuyConfirm(c))
}
