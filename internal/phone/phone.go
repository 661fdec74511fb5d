// Package phone reads the numbers people type in the admin UI and writes numbers the way
// people read them, for a workspace's country, with libphonenumber. The API does not use it:
// it takes and gives strict E.164.
package phone

import (
	"errors"
	"strings"
	"unicode"

	"github.com/nyaruka/phonenumbers"
)

// DefaultCountry is the country of a workspace that has not chosen one.
const DefaultCountry = "US"

// ErrUnparsable is the error of a number that is not one, for the country.
var ErrUnparsable = errors.New("is not a phone number")

// ValidCountry reports whether code is an ISO 3166-1 alpha-2 code (upper case) of a country
// or territory with its own numbering that libphonenumber knows.
func ValidCountry(code string) bool {
	if len(code) != 2 || strings.ToUpper(code) != code {
		return false
	}
	_, ok := phonenumbers.GetSupportedRegions()[code]
	return ok
}

// Country is the workspace's country, DefaultCountry when none is set.
func Country(code string) string {
	if code == "" {
		return DefaultCountry
	}
	return code
}

// numberMarks are the characters people write between a number's digits.
const numberMarks = "+-().–—‐‑/"

// Foreign is the first character of s that is no part of a written phone number ("" when
// there is none): anything but digits, white space and + - ( ) . / and dashes. libphonenumber
// reads letters as a vanity number (1-800-FLOWERS) and "x" or "ext" as an extension, which a
// text message cannot dial, so "(415) 555-0958x" is refused rather than read as 4155550958.
func Foreign(s string) string {
	for _, r := range s {
		if unicode.IsDigit(r) || unicode.IsSpace(r) || strings.ContainsRune(numberMarks, r) {
			continue
		}
		return string(r)
	}
	return ""
}

// Parse reads a number typed in the national format of country ("(415) 555-0123",
// "415.555.0123") or in international format ("+44 20 7183 8750", "0044…" as the country
// dials abroad), and returns it in E.164. A number libphonenumber does not find valid for its
// region (too short, too long, an unassigned range), or one with a letter or mark that is no
// part of a number (see Foreign), is refused with ErrUnparsable.
func Parse(s, country string) (string, error) {
	s = strings.TrimSpace(s)
	if s == "" || len(s) > 64 || Foreign(s) != "" {
		return "", ErrUnparsable
	}
	n, err := phonenumbers.Parse(s, Country(country))
	if err != nil || !phonenumbers.IsValidNumber(n) {
		return "", ErrUnparsable
	}
	return phonenumbers.Format(n, phonenumbers.E164), nil
}

// Format writes an E.164 number for a reader in country: a number of that country in its
// national format ("(415) 555-0123"), any other in international format ("+44 20 7183 8750").
// A string that is not a number it can read comes back as it was.
func Format(e164, country string) string {
	if !strings.HasPrefix(e164, "+") {
		return e164
	}
	n, err := phonenumbers.Parse(e164, "")
	if err != nil {
		return e164
	}
	if phonenumbers.GetRegionCodeForNumber(n) == Country(country) {
		return phonenumbers.Format(n, phonenumbers.NATIONAL)
	}
	return phonenumbers.Format(n, phonenumbers.INTERNATIONAL)
}

// Example is an example number of country in its national format ("(201) 555-0123"), for
// hints and error messages; "" when libphonenumber has none.
func Example(country string) string {
	n := phonenumbers.GetExampleNumber(Country(country))
	if n == nil {
		return ""
	}
	return phonenumbers.Format(n, phonenumbers.NATIONAL)
}
