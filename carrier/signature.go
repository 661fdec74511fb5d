package carrier

import (
	"crypto/hmac"
	"crypto/sha1"
	"encoding/base64"
	"net/url"
	"slices"
	"strings"
)

// TwilioSignature is the X-Twilio-Signature Twilio sends with a callback to fullURL carrying the
// POST form: base64 of HMAC-SHA1, keyed with the auth token, over fullURL (scheme, host, path and
// query exactly as Twilio requested it) followed by each form field's name and value with no
// separators, fields sorted by name byte-wise. A name given several values contributes
// name+value once per distinct value, values sorted, as Twilio's reference validators
// (twilio-python, twilio-node) do; Twilio's own callbacks never repeat a name.
func TwilioSignature(authToken, fullURL string, form url.Values) string {
	mac := hmac.New(sha1.New, []byte(authToken))
	mac.Write([]byte(fullURL))
	names := make([]string, 0, len(form))
	for name := range form {
		names = append(names, name)
	}
	slices.Sort(names)
	for _, name := range names {
		values := slices.Clone(form[name])
		slices.Sort(values)
		values = slices.Compact(values)
		for _, v := range values {
			mac.Write([]byte(name))
			mac.Write([]byte(v))
		}
	}
	return base64.StdEncoding.EncodeToString(mac.Sum(nil))
}

// ValidTwilioSignature reports whether signature is Twilio's signature of a POST of form to
// fullURL under authToken, comparing in constant time. An empty auth token or signature is
// never valid, so a server started without a token cannot accept unsigned callbacks. Like
// Twilio's own validators it also accepts the signature of fullURL with the scheme's default
// port (:443, :80) added or removed, because Twilio is not consistent about including it; any
// other change to the URL, including its query, invalidates the signature.
func ValidTwilioSignature(authToken, fullURL string, form url.Values, signature string) bool {
	if authToken == "" || signature == "" {
		return false
	}
	got := []byte(signature)
	// Check every candidate without stopping early, so timing does not say which form matched.
	valid := false
	for _, u := range signedURLVariants(fullURL) {
		want := []byte(TwilioSignature(authToken, u, form))
		if hmac.Equal(want, got) {
			valid = true
		}
	}
	return valid
}

// signedURLVariants is fullURL and, when it has an http(s) authority, the same URL with the scheme's
// default port toggled: "https://h/p" ↔ "https://h:443/p". The rest of the URL is kept byte for
// byte (never re-encoded), since the signature is over the exact string Twilio used.
func signedURLVariants(fullURL string) []string {
	variants := []string{fullURL}
	var scheme, port string
	switch {
	case len(fullURL) >= 8 && strings.EqualFold(fullURL[:8], "https://"):
		scheme, port = fullURL[:8], "443"
	case len(fullURL) >= 7 && strings.EqualFold(fullURL[:7], "http://"):
		scheme, port = fullURL[:7], "80"
	default:
		return variants
	}
	rest := fullURL[len(scheme):]
	end := strings.IndexAny(rest, "/?#")
	if end < 0 {
		end = len(rest)
	}
	authority, tail := rest[:end], rest[end:]
	if authority == "" || strings.Contains(authority, "@") {
		return variants
	}
	host, p, hasPort := sigSplitHostPort(authority)
	switch {
	case !hasPort:
		variants = append(variants, scheme+authority+":"+port+tail)
	case p == port:
		variants = append(variants, scheme+host+tail)
	}
	return variants
}

// sigSplitHostPort splits "host:port" and "[v6]:port"; a bare host or "[v6]" has no port.
func sigSplitHostPort(authority string) (host, port string, ok bool) {
	i := strings.LastIndexByte(authority, ':')
	if i < 0 || strings.LastIndexByte(authority, ']') > i {
		return authority, "", false
	}
	return authority[:i], authority[i+1:], true
}
