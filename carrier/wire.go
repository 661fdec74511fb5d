package carrier

import (
	"context"
	"fmt"
	"log/slog"
	"strings"
	"unicode"
	"unicode/utf8"

	"switchboard/store"
)

// Wiring a number: its webhooks at the carrier are set to Switchboard's public URL and read
// back before the number is stored; if storing fails they are put back as they were. So a
// stored number receives, and no number that no workspace has is left posting to Switchboard.

// TakeOverError is a number whose texts go somewhere else now. Adding it again with TakeOver
// moves them to Switchboard.
type TakeOverError struct {
	Phone, Carrier string
	// Now is where its texts go: a URL, a TwiML app, a messaging profile.
	Now string
}

func (e *TakeOverError) Error() string {
	return fmt.Sprintf("%s sends its texts to %s, set at %s. Take it over? Its texts will come to Switchboard instead.", e.Phone, e.Now, label(e.Carrier))
}

// WiringError is a number whose settings the carrier did not keep as they were set.
type WiringError struct{ Reason string }

func (e *WiringError) Error() string { return e.Reason }

// BoughtError is a number bought that could not be added: it is the account's, unused.
type BoughtError struct {
	Phone, Carrier string
	Err            error
}

func (e *BoughtError) Error() string {
	return fmt.Sprintf("%s was bought at %s but not added: %s It is in the %s account, listed under Add a number.",
		e.Phone, label(e.Carrier), strings.TrimSpace(e.Err.Error()), label(e.Carrier))
}

func (e *BoughtError) Unwrap() error { return e.Err }

// QuoteChangedError is a purchase whose price is no longer the one confirmed.
type QuoteChangedError struct{ Quote AvailableNumber }

func (e *QuoteChangedError) Error() string {
	return "The carrier now asks " + e.Quote.Monthly.String() + " a month for this number. Confirm the new price to buy it."
}

// AccountNumbers is a page of carrier's account numbers that no workspace uses, as the carrier
// pages them.
func (a *Accounts) AccountNumbers(ctx context.Context, carrier, page string) (NumberPage, error) {
	api, err := a.api(carrier)
	if err != nil {
		return NumberPage{}, err
	}
	p, err := api.list(ctx, page)
	if err != nil {
		return p, err
	}
	phones := make([]string, len(p.Numbers))
	for i, n := range p.Numbers {
		phones[i] = n.Phone
	}
	used, err := a.s.PhonesInUse(phones)
	if err != nil {
		return p, err
	}
	free := p.Numbers[:0]
	for _, n := range p.Numbers {
		if !used[n.Phone] {
			free = append(free, n)
		}
	}
	p.Numbers = free
	return p, nil
}

// AccountNumber reads one number of carrier's account, with where its texts go.
func (a *Accounts) AccountNumber(ctx context.Context, carrier, id string) (OwnedNumber, error) {
	api, err := a.api(carrier)
	if err != nil {
		return OwnedNumber{}, err
	}
	return api.number(ctx, id)
}

// Search finds numbers for sale at carrier, each with the monthly price the carrier quotes.
func (a *Accounts) Search(ctx context.Context, carrier string, q Search) ([]AvailableNumber, error) {
	q, errs := checkSearch(q)
	if errs != nil {
		return nil, errs
	}
	api, err := a.api(carrier)
	if err != nil {
		return nil, err
	}
	return api.search(ctx, q)
}

// checkSearch trims a search as typed and checks it: a country code, digits for an area code,
// a city name of one line.
func checkSearch(q Search) (Search, store.ValidationError) {
	q = Search{Country: strings.ToUpper(strings.TrimSpace(q.Country)), AreaCode: strings.TrimSpace(q.AreaCode), Locality: strings.TrimSpace(q.Locality)}
	var errs store.ValidationError
	if len(q.Country) != 2 || currency(q.Country+"X") == "" {
		errs = append(errs, store.FieldError{Field: "country", Message: "must be a two-letter country code such as US"})
	}
	if q.AreaCode != "" && (len(q.AreaCode) > 6 || strings.Trim(q.AreaCode, "0123456789") != "") {
		errs = append(errs, store.FieldError{Field: "areaCode", Message: "must be digits, such as 415"})
	}
	if utf8.RuneCountInString(q.Locality) > 64 || !utf8.ValidString(q.Locality) || strings.IndexFunc(q.Locality, unicode.IsControl) >= 0 {
		errs = append(errs, store.FieldError{Field: "locality", Message: "must be a city name of at most 64 characters"})
	}
	return q, errs
}

// Quote is the number for sale with the monthly price carrier asks for it now; an *APIError of
// KindTaken when it is no longer for sale.
func (a *Accounts) Quote(ctx context.Context, carrier, phone string) (AvailableNumber, error) {
	if !validE164(phone) {
		return AvailableNumber{}, store.ValidationError{{Field: "phone", Message: store.E164Message}}
	}
	api, err := a.api(carrier)
	if err != nil {
		return AvailableNumber{}, err
	}
	q, ok, err := api.quote(ctx, phone)
	if err == nil && !ok {
		err = &APIError{Carrier: label(carrier), Kind: KindTaken}
	}
	return q, err
}

// AddRequest is a number of the account to add to a workspace: the carrier's id of it, the
// name it gets, and whether to take it over when its texts go somewhere else.
type AddRequest struct {
	Carrier, ID, Name string
	TakeOver          bool
}

// Add wires the account's number to Switchboard and gives it to workspace ws. A number whose
// texts go elsewhere is a *TakeOverError unless req.TakeOver.
func (a *Accounts) Add(ctx context.Context, ws string, req AddRequest) (store.PhoneNumber, error) {
	base, err := a.publicBase()
	if err != nil {
		return store.PhoneNumber{}, err
	}
	api, err := a.api(req.Carrier)
	if err != nil {
		return store.PhoneNumber{}, err
	}
	defer a.locks.lock(req.Carrier + ":" + req.ID)()
	n, err := api.number(ctx, req.ID)
	if err != nil {
		return store.PhoneNumber{}, err
	}
	return a.wireAndStore(ctx, api, req.Carrier, base, ws, n, req.Name, req.TakeOver)
}

// BuyRequest is a number to buy at the price the administrator confirmed.
type BuyRequest struct {
	Carrier, Phone, Name string
	Price                Price
}

// Buy buys a number for workspace ws and wires it like Add. The price is asked again first: a
// *QuoteChangedError when it is not the one confirmed, KindTaken when the number is gone. A
// number bought but not added is a *BoughtError.
func (a *Accounts) Buy(ctx context.Context, ws string, req BuyRequest) (store.PhoneNumber, error) {
	base, err := a.publicBase() // before any money is spent
	if err != nil {
		return store.PhoneNumber{}, err
	}
	if _, err := a.s.Workspace(ws); err != nil {
		return store.PhoneNumber{}, err
	}
	q, err := a.Quote(ctx, req.Carrier, req.Phone)
	if err != nil {
		return store.PhoneNumber{}, err
	}
	if q.Monthly != req.Price {
		return store.PhoneNumber{}, &QuoteChangedError{Quote: q}
	}
	api, err := a.api(req.Carrier)
	if err != nil {
		return store.PhoneNumber{}, err
	}
	n, err := api.buy(ctx, req.Phone)
	if err != nil {
		return store.PhoneNumber{}, err
	}
	defer a.locks.lock(req.Carrier + ":" + n.ID)()
	stored, err := a.wireAndStore(ctx, api, req.Carrier, base, ws, n, req.Name, true)
	if err != nil {
		return store.PhoneNumber{}, &BoughtError{Phone: n.Phone, Carrier: req.Carrier, Err: err}
	}
	return stored, nil
}

// wireAndStore sets n's webhooks to base, reads them back and stores the number in ws; on any
// failure after the first change the webhooks are put back as they were.
func (a *Accounts) wireAndStore(ctx context.Context, api numberAPI, carrier, base, ws string, n OwnedNumber, name string, takeOver bool) (store.PhoneNumber, error) {
	if n.NoSMS {
		return store.PhoneNumber{}, &WiringError{Reason: n.Phone + " cannot send or receive texts at " + label(carrier) + "."}
	}
	if used, err := a.s.PhonesInUse([]string{n.Phone}); err != nil {
		return store.PhoneNumber{}, err
	} else if used[n.Phone] {
		return store.PhoneNumber{}, &store.Error{Err: store.ErrConflict, Msg: n.Phone + " already belongs to a workspace"}
	}
	want, err := api.ours(ctx, base, n.Phone)
	if err != nil {
		return store.PhoneNumber{}, err
	}
	prev := n.Wiring
	if pointsElsewhere(prev, want) && !takeOver {
		return store.PhoneNumber{}, &TakeOverError{Phone: n.Phone, Carrier: carrier, Now: destination(prev)}
	}
	if err := api.setWiring(ctx, n.ID, want); err != nil {
		return store.PhoneNumber{}, a.putBack(ctx, api, carrier, n, prev, err)
	}
	got, err := api.number(ctx, n.ID)
	if err == nil {
		if p := api.problem(got.Wiring, base); p != "" {
			err = &WiringError{Reason: label(carrier) + " did not keep the settings: " + p + "."}
		}
	}
	if err != nil {
		return store.PhoneNumber{}, a.putBack(ctx, api, carrier, n, prev, err)
	}
	stored, err := a.s.CreateNumber(ws, store.NumberInput{Phone: n.Phone, Name: name, Carrier: carrier,
		Link: &store.CarrierLink{ID: n.ID, CheckedAt: a.cfg.Now()}})
	if err != nil {
		return store.PhoneNumber{}, a.putBack(ctx, api, carrier, n, prev, err)
	}
	return stored, nil
}

// putBack sets n's webhooks back to prev after cause, and returns cause, saying so when even
// that failed. It runs past a cancelled request: the settings must not stay half changed.
func (a *Accounts) putBack(ctx context.Context, api numberAPI, carrier string, n OwnedNumber, prev Wiring, cause error) error {
	err := api.setWiring(context.WithoutCancel(ctx), n.ID, prev)
	if err == nil {
		return cause
	}
	slog.Error("carrier: putting a number's webhooks back failed", "carrier", carrier, "phone", n.Phone, "error", err)
	return fmt.Errorf("%w Putting its webhooks back at %s failed too (%v): check the number there", cause, label(carrier), err)
}

// pointsElsewhere reports whether got sends texts somewhere that is not want: a URL or a TwiML
// app of someone else's, or another messaging profile. A number wired to nothing, or to
// Twilio's own placeholder for new numbers, points nowhere.
func pointsElsewhere(got, want Wiring) bool {
	switch {
	case got.AppSID != "":
		return true
	case got.SMSURL != "" && got.SMSURL != want.SMSURL && !strings.HasPrefix(got.SMSURL, "https://demo.twilio.com/"):
		return true
	case got.ProfileID != "" && got.ProfileID != want.ProfileID && got.SMSURL != want.SMSURL:
		return true
	}
	return false
}

// destination says where got sends texts, for the Take it over question.
func destination(got Wiring) string {
	switch {
	case got.AppSID != "":
		return "the TwiML app " + got.AppSID
	case got.SMSURL != "":
		return got.SMSURL
	}
	return "the messaging profile " + got.ProfileID + ", which has no webhook"
}
