package testutil

import (
	"errors"
	"strings"
)

// ErrNotURI is CheckURI's answer for a string that is not an RFC 3986 URI.
var ErrNotURI = errors.New("is not an RFC 3986 URI")

// CheckURI is the OpenAPI format "uri" (RFC 3986, section 3): a scheme, ":", then an optional
// "//" authority (where [ ] may hold an IP literal) and a path, query and fragment of URI
// characters only, every % starting two hex digits, one # at most. The contract tests register
// it with kin-openapi, which otherwise takes any string as a uri.
func CheckURI(s string) error {
	scheme, rest, ok := strings.Cut(s, ":")
	if !ok || scheme == "" || !isAlpha(scheme[0]) {
		return ErrNotURI
	}
	for i := 1; i < len(scheme); i++ {
		if c := scheme[i]; !isAlpha(c) && !isDigit(c) && c != '+' && c != '-' && c != '.' {
			return ErrNotURI
		}
	}
	authority := ""
	if strings.HasPrefix(rest, "//") {
		rest = rest[2:]
		end := strings.IndexAny(rest, "/?#")
		if end < 0 {
			end = len(rest)
		}
		authority, rest = rest[:end], rest[end:]
	}
	if !uriChars(authority, "[]") {
		return ErrNotURI
	}
	pathQuery, fragment, _ := strings.Cut(rest, "#")
	if !uriChars(pathQuery, "/?") || !uriChars(fragment, "/?") {
		return ErrNotURI
	}
	return nil
}

// uriChars reports whether s holds only unreserved characters, sub-delims, ":" "@", the extra
// characters more, and %XX escapes.
func uriChars(s, more string) bool {
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case isAlpha(c) || isDigit(c) || strings.IndexByte("-._~!$&'()*+,;=:@", c) >= 0 || strings.IndexByte(more, c) >= 0:
		case c == '%' && i+2 < len(s) && isHex(s[i+1]) && isHex(s[i+2]):
			i += 2
		default:
			return false
		}
	}
	return true
}

func isAlpha(c byte) bool { return c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' }
func isDigit(c byte) bool { return c >= '0' && c <= '9' }
func isHex(c byte) bool   { return isDigit(c) || c >= 'a' && c <= 'f' || c >= 'A' && c <= 'F' }
