package carrier

import (
	"context"
	"errors"
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

// errSandbox is a carrier action asked of a sandbox number.
var errSandbox = &store.Error{Err: store.ErrConflict, Msg: "sandbox numbers reach no carrier, so there is nothing to check there"}

// locate finds n at its carrier: by its link, else by its phone (numbers added by hand).
func (a *Accounts) locate(ctx context.Context, api numberAPI, n store.PhoneNumber) (OwnedNumber, bool, error) {
	if n.Link != nil && n.Link.ID != "" {
		owned, err := api.number(ctx, n.Link.ID)
		if IsKind(err, KindNotFound) {
			return OwnedNumber{}, false, nil
		}
		if err == nil && owned.Phone != n.Phone {
			return OwnedNumber{}, false, nil // the id is another number's now
		}
		return owned, err == nil, err
	}
	return api.find(ctx, n.Phone)
}

// Check reads the number's settings at its carrier again and records what it found on the
// number (its Link). A carrier that does not answer changes nothing.
func (a *Accounts) Check(ctx context.Context, ws, id string) (store.PhoneNumber, error) {
	n, err := a.s.Number(ws, id)
	if err != nil {
		return n, err
	}
	return a.check(ctx, n)
}

func (a *Accounts) check(ctx context.Context, n store.PhoneNumber) (store.PhoneNumber, error) {
	if n.CarrierName() == store.ProviderSandbox {
		return n, errSandbox
	}
	if !a.cfg.PublicURLSet {
		return n, &PublicURLError{Reason: a.PublicURLProblem()}
	}
	api, err := a.api(n.CarrierName())
	if err != nil {
		return n, err
	}
	owned, found, err := a.locate(ctx, api, n)
	if err != nil {
		return n, err
	}
	link := store.CarrierLink{ID: owned.ID, CheckedAt: a.cfg.Now()}
	if !found {
		link.Problem = label(n.CarrierName()) + " no longer has this number in the account"
		if n.Link != nil {
			link.ID = n.Link.ID
		}
	} else {
		link.Problem = api.problem(owned.Wiring, a.cfg.PublicURL)
	}
	return a.s.SetNumberLink(n.WorkspaceID, n.ID, link)
}

// Reconnect points a stored number's webhooks at Switchboard again (its texts went elsewhere),
// reads them back and records the reading; on failure they are put back as they were.
func (a *Accounts) Reconnect(ctx context.Context, ws, id string) (store.PhoneNumber, error) {
	n, err := a.s.Number(ws, id)
	if err != nil {
		return n, err
	}
	if n.CarrierName() == store.ProviderSandbox {
		return n, errSandbox
	}
	base, err := a.publicBase()
	if err != nil {
		return n, err
	}
	api, err := a.api(n.CarrierName())
	if err != nil {
		return n, err
	}
	owned, found, err := a.locate(ctx, api, n)
	if err == nil && !found {
		err = &APIError{Carrier: label(n.CarrierName()), Kind: KindNotFound}
	}
	if err != nil {
		return n, err
	}
	defer a.locks.lock(n.CarrierName() + ":" + owned.ID)()
	want, err := api.ours(ctx, base, n.Phone)
	if err != nil {
		return n, err
	}
	if err := api.setWiring(ctx, owned.ID, want); err != nil {
		return n, a.putBack(ctx, api, n.CarrierName(), owned, owned.Wiring, err)
	}
	got, err := api.number(ctx, owned.ID)
	if err == nil {
		if p := api.problem(got.Wiring, base); p != "" {
			err = &WiringError{Reason: label(n.CarrierName()) + " did not keep the settings: " + p + "."}
		}
	}
	if err != nil {
		return n, a.putBack(ctx, api, n.CarrierName(), owned, owned.Wiring, err)
	}
	return a.s.SetNumberLink(ws, n.ID, store.CarrierLink{ID: owned.ID, CheckedAt: a.cfg.Now()})
}

// SendTest sends a test text from the number to to now, through its carrier, and returns the
// carrier's id of it. It is not kept in the inbox; a reply to it is, as any inbound text.
func (a *Accounts) SendTest(ctx context.Context, n store.PhoneNumber, to string) (string, error) {
	if n.CarrierName() == store.ProviderSandbox {
		return "", errSandbox
	}
	if opted, err := a.s.IsOptedOut(n.WorkspaceID, to); err != nil {
		return "", err
	} else if opted {
		return "", &store.Error{Err: store.ErrOptedOut, Msg: to + " has opted out of this workspace's texts"}
	}
	ctx, cancel := context.WithTimeout(ctx, a.cfg.Timeout)
	defer cancel()
	text := "Switchboard test: texts from " + n.Phone + " work. Reply to see your reply arrive in the inbox."
	id, err := a.Carrier(n.CarrierName()).Send(ctx, Outbound{MessageID: "test", From: n.Phone, To: to, Text: text})
	if err != nil {
		if p, ok := Permanent(err); ok {
			return "", &WiringError{Reason: label(n.CarrierName()) + " refused the test text: " + p.Reason}
		}
		return "", &WiringError{Reason: label(n.CarrierName()) + " did not take the test text (" + err.Error() + "). Try again in a moment."}
	}
	return id, nil
}

// Removed is a number taken out of its workspace: its carrier id (for releasing it), and
// whether its webhooks were cleared, or why not.
type Removed struct {
	Number    store.PhoneNumber
	CarrierID string
	Cleared   bool
	NotClear  string
}

// Remove takes a number out of its workspace. With clear, its webhooks at the carrier are
// cleared first when they point at Switchboard, so texts to it stop coming; if removing then
// fails, they are put back. A carrier that does not answer leaves the number where it is.
func (a *Accounts) Remove(ctx context.Context, ws, id string, clear bool) (Removed, error) {
	n, err := a.s.Number(ws, id)
	if err != nil {
		return Removed{}, err
	}
	if n.CarrierName() == store.ProviderSandbox {
		n, err = a.s.RemoveNumber(ws, id)
		return Removed{Number: n}, err
	}
	api, err := a.api(n.CarrierName())
	if err != nil {
		if !clear {
			n, err = a.s.RemoveNumber(ws, id)
		}
		return Removed{Number: n}, err
	}
	owned, found, err := a.locate(ctx, api, n)
	if err != nil {
		return Removed{}, err
	}
	if !found {
		n, err = a.s.RemoveNumber(ws, id)
		return Removed{Number: n, NotClear: label(n.CarrierName()) + " no longer has the number"}, err
	}
	out := Removed{CarrierID: owned.ID}
	if !clear {
		out.Number, err = a.s.RemoveNumber(ws, id)
		return out, err
	}
	defer a.locks.lock(n.CarrierName() + ":" + owned.ID)()
	if pointsElsewhere(owned.Wiring, Wiring{SMSURL: a.ourSMSURL(n.CarrierName())}) {
		out.NotClear = "its texts go to " + destination(owned.Wiring) + ", not to Switchboard, so its settings were left as they are"
		out.Number, err = a.s.RemoveNumber(ws, id)
		return out, err
	}
	if err := api.setWiring(ctx, owned.ID, Wiring{}); err != nil {
		return Removed{}, a.putBack(ctx, api, n.CarrierName(), owned, owned.Wiring, err)
	}
	if out.Number, err = a.s.RemoveNumber(ws, id); err != nil {
		return Removed{}, a.putBack(ctx, api, n.CarrierName(), owned, owned.Wiring, err)
	}
	out.Cleared = true
	return out, nil
}

// ourSMSURL is where Switchboard takes carrier's texts.
func (a *Accounts) ourSMSURL(carrier string) string {
	if carrier == store.ProviderTelnyx {
		return a.cfg.PublicURL + "/carrier/telnyx/webhook"
	}
	return a.cfg.PublicURL + "/carrier/twilio/sms"
}

// Release gives a number of carrier's account that no workspace uses back to the carrier: the
// account no longer has it and it is no longer billed. A number a workspace has is refused.
func (a *Accounts) Release(ctx context.Context, carrier, id string) (OwnedNumber, error) {
	api, err := a.api(carrier)
	if err != nil {
		return OwnedNumber{}, err
	}
	defer a.locks.lock(carrier + ":" + id)()
	n, err := api.number(ctx, id)
	if err != nil {
		return n, err
	}
	if used, err := a.s.PhonesInUse([]string{n.Phone}); err != nil {
		return n, err
	} else if used[n.Phone] {
		return n, &store.Error{Err: store.ErrConflict, Msg: n.Phone + " belongs to a workspace: remove it from there first"}
	}
	return n, api.release(ctx, id)
}

// Numbers of the account that could not be checked are left as they were last read; the
// hourly check goes on with the others.
var errCheckFailed = errors.New("carrier: some numbers could not be checked")

// CheckAll reads the settings of every active Twilio and Telnyx number at its carrier and
// records what it found, flagging the numbers whose texts no longer reach Switchboard: the
// hourly check. Without a configured public URL there is nothing to compare with.
func (a *Accounts) CheckAll() (int, error) {
	if !a.cfg.PublicURLSet {
		return 0, nil
	}
	numbers, err := a.s.AllNumbers()
	if err != nil {
		return 0, err
	}
	var failed []error
	for _, n := range numbers {
		if !n.Active || n.CarrierName() == store.ProviderSandbox || !a.Usable(n.CarrierName()) {
			continue
		}
		checked, err := a.check(context.Background(), n)
		if err != nil {
			failed = append(failed, fmt.Errorf("%s: %w", n.Phone, err))
			continue
		}
		if p := checked.Link.Problem; p != "" && (n.Link == nil || n.Link.Problem != p) {
			slog.Warn("carrier: a number's texts no longer reach Switchboard", "phone", n.Phone, "carrier", n.CarrierName(), "problem", p)
		}
	}
	if failed != nil {
		return 0, errors.Join(append([]error{errCheckFailed}, failed...)...)
	}
	return 0, nil
}

// Miswired lists the active numbers whose last check found their texts not reaching
// Switchboard.
func Miswired(s *store.Store) ([]store.PhoneNumber, error) {
	all, err := s.AllNumbers()
	var out []store.PhoneNumber
	for _, n := range all {
		if n.Active && n.Link != nil && n.Link.Problem != "" {
			out = append(out, n)
		}
	}
	return out, err
}
