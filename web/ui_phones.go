package web

import (
	"strings"

	"switchboard/internal/phone"
	"switchboard/store"
)

// readPhone reads a number a person typed in a form of the admin UI: in the national format of
// the workspace's country, or international with + and the country code. It returns E.164, or
// a validation error on field with an example of what it takes; the caller stores nothing then.
func (u *ui) readPhone(field, typed string) (string, error) {
	e164, err := phone.Parse(typed, u.ws.Region())
	if err != nil {
		return "", store.ValidationError{{Field: field, Message: phoneMessage(u.ws.Region())}}
	}
	return e164, nil
}

// phoneMessage says what a phone field takes, for the workspace's country.
func phoneMessage(country string) string {
	msg := "is not a phone number of " + phone.Country(country)
	if ex := phone.Example(country); ex != "" {
		msg += ": type it as " + ex
	}
	return msg + ", or with + and the country code, e.g. +44 20 7183 8750"
}

// showPhone writes a stored (E.164) number for the reader: national format for the
// workspace's country, international for others.
func (u *ui) showPhone(e164 string) string { return phone.Format(e164, u.ws.Region()) }

// showPhones writes the numbers of a conversation for the reader, comma-separated.
func (u *ui) showPhones(addrs []string) string {
	out := make([]string, len(addrs))
	for i, a := range addrs {
		out[i] = u.showPhone(a)
	}
	return strings.Join(out, ", ")
}
