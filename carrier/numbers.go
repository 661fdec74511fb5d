package carrier

import (
	"context"
	"errors"
	"strconv"
	"strings"

	"github.com/nyaruka/phonenumbers"

	"switchboard/store"
)

// OwnedNumber is a number of the connected carrier account.
type OwnedNumber struct {
	ID    string // the carrier's id: Twilio's PN… sid, Telnyx's phone number id
	Phone string // E.164
	Name  string // its name at the carrier, "" when it has none
	// NoSMS is set when the carrier says the number cannot text.
	NoSMS bool
	// Wiring is where its texts go now; filled when one number is read, not in lists.
	Wiring Wiring
}

// NumberPage is one page of the account's numbers, as the carrier pages them: Next and Prev
// are the carrier's own page tokens ("" at the ends), Page the 1-based number of this one.
type NumberPage struct {
	Numbers    []OwnedNumber
	Page       int
	Next, Prev string
}

// AvailableNumber is a number the carrier offers for sale, with its monthly price as quoted.
type AvailableNumber struct {
	Phone    string
	Locality string
	Region   string
	Monthly  Price
}

// Price is an amount as a carrier quotes it ("1.15") and its ISO 4217 currency.
type Price struct {
	Amount   string
	Currency string
}

// String is the price as a person reads it: "$1.15" for US dollars, "1.15 EUR" otherwise.
func (p Price) String() string {
	if p.Amount == "" {
		return ""
	}
	if p.Currency == "USD" {
		return "$" + p.Amount
	}
	return strings.TrimSpace(p.Amount + " " + p.Currency)
}

// Search is what "Buy a number" looks for: a country (ISO 3166-1 alpha-2) and an area code or a
// locality (a city).
type Search struct {
	Country  string
	AreaCode string
	Locality string
}

// Wiring is where a number's texts and their receipts go at its carrier.
type Wiring struct {
	SMSURL    string // where inbound texts are posted (Twilio's SmsUrl; a Telnyx profile's webhook URL)
	SMSMethod string // Twilio's SmsMethod
	StatusURL string // Twilio's StatusCallback
	AppSID    string // Twilio's SmsApplicationSid: when set, Twilio ignores SmsUrl
	ProfileID string // the Telnyx messaging profile the number is in
}

// numberAPI is what Switchboard does with a carrier account's numbers; each carrier's account
// API implements it.
type numberAPI interface {
	// check proves the credentials with a call that changes nothing.
	check(ctx context.Context) error
	// list is one page of the account's numbers: page is "" for the first, else a NumberPage's
	// Next or Prev.
	list(ctx context.Context, page string) (NumberPage, error)
	// number reads one number with its wiring; find is number by phone, false when the account
	// has no such number.
	number(ctx context.Context, id string) (OwnedNumber, error)
	find(ctx context.Context, phone string) (OwnedNumber, bool, error)
	// search lists numbers for sale with their monthly price; quote is the price of one, false
	// when it is no longer for sale.
	search(ctx context.Context, q Search) ([]AvailableNumber, error)
	quote(ctx context.Context, phone string) (AvailableNumber, bool, error)
	// buy purchases phone and returns it as the account now has it.
	buy(ctx context.Context, phone string) (OwnedNumber, error)
	// ours is the wiring that sends the number's texts to base, making what it needs at the
	// carrier (a Telnyx messaging profile) on the way.
	ours(ctx context.Context, base, phone string) (Wiring, error)
	// setWiring sets a number's wiring: ours, what it was before (to put it back), or none.
	setWiring(ctx context.Context, id string, w Wiring) error
	// problem says what is wrong with got for texts to reach base, "" when nothing is.
	problem(got Wiring, base string) string
	// release gives the number back to the carrier.
	release(ctx context.Context, id string) error
}

// regionOf is the ISO country of an E.164 number, "" when it has none.
func regionOf(e164 string) string {
	n, err := phonenumbers.Parse(e164, "")
	if err != nil {
		return ""
	}
	return phonenumbers.GetRegionCodeForNumber(n)
}

// nationalDigits is the national significant number of an E.164 number (4155550123 for
// +14155550123), or its digits after the + when it cannot be read.
func nationalDigits(e164 string) string {
	n, err := phonenumbers.Parse(e164, "")
	if err != nil {
		return strings.TrimPrefix(e164, "+")
	}
	return strconv.FormatUint(n.GetNationalNumber(), 10)
}

// validE164 is the store's rule for a phone number.
func validE164(s string) bool { return store.ValidE164(s) }

// errUnreadable is a carrier's answer that decodes but lacks what the call needs.
var errUnreadable = errors.New("carrier: unreadable answer")
