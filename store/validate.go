package store

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math"
	"net/url"
	"regexp"
	"strconv"
	"time"
	"unicode/utf8"

	"switchboard/store/kv"
)

// E164Message is the validation message for a phone number that is not strict E.164.
const E164Message = "must be an E.164 phone number such as +14155550123 (a plus sign, then 2 to 15 digits, no spaces or punctuation)"

// ValidE164 reports whether s is a strict E.164 number: ^\+[1-9][0-9]{1,14}$ (checked byte by
// byte: every API call with a phone checks one or two, and the regular expression cost a
// microsecond each; FuzzValidE164 holds it to the pattern).
func ValidE164(s string) bool {
	if len(s) < 3 || len(s) > 16 || s[0] != '+' || s[1] < '1' || s[1] > '9' {
		return false
	}
	for i := 2; i < len(s); i++ {
		if s[i] < '0' || s[i] > '9' {
			return false
		}
	}
	return true
}

// MaxMediaURL is the longest accepted mediaUrl.
const MaxMediaURL = 2048

// MediaURLPattern is the whole rule for a mediaUrl besides its length, written so that the
// OpenAPI document can state it exactly (ECMA-262 and RE2 read it alike): an RFC 3986 URI with an
// http or https scheme in any case, "://", a host name or IPv4 address (letters, digits and
// -._~) with an optional numeric port, then an optional path, query and fragment made of the
// characters RFC 3986 allows there (letters, digits, -._~!$&'()*+,;=:@ and / ?, with every %
// starting a %XX escape). Spaces, non-ASCII letters and [ ] { } < > ^ " \ | ` are not URI
// characters: a URL holding them is refused, never rewritten, so the URL given is the one the
// carrier fetches and the one the answers carry (format: uri). No user:password@ and no IPv6
// literal (net/url's rules for those cannot be stated as a pattern both sides read alike).
const MediaURLPattern = `^[Hh][Tt][Tt][Pp][Ss]?://[A-Za-z0-9._~-]+(?::[0-9]*)?` +
	`(?:/(?:[A-Za-z0-9._~!$&'()*+,;=:@/-]|%[0-9A-Fa-f]{2})*)?` +
	`(?:\?(?:[A-Za-z0-9._~!$&'()*+,;=:@/?-]|%[0-9A-Fa-f]{2})*)?` +
	`(?:#(?:[A-Za-z0-9._~!$&'()*+,;=:@/?-]|%[0-9A-Fa-f]{2})*)?$`

// MediaURLMessage is the validation message for a mediaUrl that is not one.
var MediaURLMessage = fmt.Sprintf("must be an absolute http or https URL of at most %d characters, with spaces, accented letters and characters such as [ ] { } < > ^ written as %%XX escapes (%%20 for a space)", MaxMediaURL)

var mediaURL = regexp.MustCompile(MediaURLPattern)

// ValidMediaURL reports whether s is an absolute http(s) URL of at most 2048 characters that
// matches MediaURLPattern. Everything the pattern admits parses with net/url to an http(s) URL
// with a host (the fuzz test holds it to that); the parse stays as a second guard.
func ValidMediaURL(s string) bool {
	if runeLen(s) > MaxMediaURL || !utf8.ValidString(s) || !mediaURL.MatchString(s) {
		return false
	}
	u, err := url.Parse(s)
	return err == nil && (u.Scheme == "http" || u.Scheme == "https") && u.Host != "" && u.Hostname() != ""
}

// ValidateProperty checks one custom property value against its type; it returns the
// problem or "".
func ValidateProperty(typ string, v any) string {
	switch typ {
	case PropertyText:
		s, ok := v.(string)
		if !ok {
			return "must be a string"
		}
		if runeLen(s) > 255 {
			return "must be at most 255 characters"
		}
	case PropertyNumber:
		// The value is stored as JSON and read back as a float64: NaN, ±Inf and numbers beyond
		// float64's range would make the contact unreadable.
		var f float64
		switch n := v.(type) {
		case float64:
			f = n
		case json.Number:
			var err error
			if f, err = strconv.ParseFloat(string(n), 64); err != nil || !json.Valid([]byte(n)) {
				return "must be a number within ±1.8e308"
			}
		default:
			return "must be a number"
		}
		if math.IsNaN(f) || math.IsInf(f, 0) {
			return "must be a number within ±1.8e308"
		}
	case PropertyBoolean:
		if _, ok := v.(bool); !ok {
			return "must be true or false"
		}
	case PropertyDate:
		s, ok := v.(string)
		if !ok || !ValidDate(s) {
			return "must be a calendar date YYYY-MM-DD"
		}
	default:
		return fmt.Sprintf("has an unknown type %q", typ)
	}
	return ""
}

// ValidDate reports whether s is a real calendar date written YYYY-MM-DD.
func ValidDate(s string) bool {
	if len(s) != 10 {
		return false
	}
	t, err := time.Parse("2006-01-02", s)
	return err == nil && t.Format("2006-01-02") == s
}

func runeLen(s string) int { return utf8.RuneCountInString(s) }

func jsonUnmarshal(data []byte, v any) error {
	if err := json.Unmarshal(data, v); err != nil {
		return fmt.Errorf("store: decode: %w", err)
	}
	return nil
}

// forEachPrefix calls fn for every key starting with prefix, in key order.
func forEachPrefix(b *kv.Bucket, prefix []byte, fn func(k, v []byte) error) error {
	c := b.Cursor()
	for k, v := c.Seek(prefix); k != nil && bytes.HasPrefix(k, prefix); k, v = c.Next() {
		if err := fn(k, v); err != nil {
			return err
		}
	}
	return nil
}
