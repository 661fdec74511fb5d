package store_test

import (
	"encoding/json"
	"math"
	"net/url"
	"regexp"
	"strings"
	"testing"
	"time"
	"unicode/utf8"

	"switchboard/store"
)

func TestValidE164(t *testing.T) {
	for _, tc := range []struct {
		in   string
		want bool
	}{
		{"+14155550123", true},
		{"+442071234567", true},
		{"+12", true},                // 2 digits is the shortest
		{"+123456789012345", true},   // 15 digits is the longest
		{"+1234567890123456", false}, // 16 digits
		{"+1", false},
		{"+", false},
		{"", false},
		{"14155550123", false},     // no plus
		{"+04155550123", false},    // leading zero
		{"+1 415 555 0123", false}, // formatted
		{"+1-415-555-0123", false},
		{"+1(415)5550123", false},
		{" +14155550123", false},
		{"+14155550123\n", false},
		{"+1415555012a", false},
		{"+１４１５５５５０１２３", false}, // full-width digits
		{"++14155550123", false},
	} {
		if got := store.ValidE164(tc.in); got != tc.want {
			t.Errorf("ValidE164(%q) = %v, want %v", tc.in, got, tc.want)
		}
	}
}

func TestValidMediaURL(t *testing.T) {
	long := "https://example.com/" + strings.Repeat("a", store.MaxMediaURL-len("https://example.com/"))
	for _, tc := range []struct {
		in   string
		want bool
	}{
		{"https://example.com/cat.jpg", true},
		{"http://example.com", true},
		{"HTTPS://EXAMPLE.COM/x.png", true},
		{"https://192.0.2.1:8443/a?b=c#d", true},
		{long, true},        // exactly 2048
		{long + "a", false}, // 2049
		{"ftp://example.com/x", false},
		{"file:///etc/passwd", false},
		{"javascript:alert(1)", false},
		{"//example.com/x", false},
		{"/x.png", false},
		{"example.com/x.png", false},
		{"https://", false},
		{"https:///x", false},
		{"https://:80/x", false},
		{"", false},
		{"https://exa mple.com/", false},
		{"https://user:pw@example.com/x.png", false},
		{"https://[2001:db8::1]/x.png", false},
		{"https://example.com/a b.png", false},
		{"https://example.com/100%.png", false},
		{"https://example.com/100%25.png?q=%E2%9C%93#top", true},
		{"https://example.com:/x", true},
		{"https://cdn.example.com/caf%C3%A9.jpg", true},
		// Not URI characters: refused, not rewritten (issue 38, item 8).
		{"https://cdn.example.com/café.jpg", false},
		{"https://example.com/a[1].png", false},
		{"https://example.com/a.png?x={y}", false},
		{"https://example.com/a^b", false},
		{"https://example.com/<a>", false},
		{"https://example.com/a|b", false},
		{"https://example.com/a\\b", false},
		{"https://example.com/a\"b", false},
		{"https://example.com/a`b", false},
		{"https://example.com/a#b#c", false},
		{"https://example.com?q=1", true},
		{"https://example.com#top", true},
		{"https://example.com/a/b;v=1,2?x=(1)&y=*'!$@:/?#f/?", true},
		{"https://example.com/\x00", false},
	} {
		if got := store.ValidMediaURL(tc.in); got != tc.want {
			t.Errorf("ValidMediaURL(%q) = %v, want %v", tc.in, got, tc.want)
		}
	}
}

func TestValidDate(t *testing.T) {
	for _, tc := range []struct {
		in   string
		want bool
	}{
		{"2027-02-28", true},
		{"2028-02-29", true}, // leap year
		{"2000-02-29", true}, // divisible by 400
		{"1999-12-31", true},
		{"2027-02-29", false},
		{"2027-02-30", false},
		{"1900-02-29", false}, // divisible by 100
		{"2027-04-31", false},
		{"2027-13-01", false},
		{"2027-00-10", false},
		{"2027-01-00", false},
		{"2027-1-5", false},
		{"27-01-05", false},
		{"2027/01/05", false},
		{"2027-01-05T00:00:00Z", false},
		{" 2027-01-05", false},
		{"2027-01-05 ", false},
		{"", false},
		{"２０２７-01-05", false},
	} {
		if got := store.ValidDate(tc.in); got != tc.want {
			t.Errorf("ValidDate(%q) = %v, want %v", tc.in, got, tc.want)
		}
	}
}

func TestValidateProperty(t *testing.T) {
	for _, tc := range []struct {
		typ  string
		v    any
		want bool
	}{
		{store.PropertyText, "hello", true},
		{store.PropertyText, "", true},
		{store.PropertyText, strings.Repeat("é", 255), true}, // code points, not bytes
		{store.PropertyText, strings.Repeat("é", 256), false},
		{store.PropertyText, 12.0, false},
		{store.PropertyText, true, false},
		{store.PropertyNumber, 12.5, true},
		{store.PropertyNumber, json.Number("-3e2"), true},
		{store.PropertyNumber, json.Number("0"), true},
		{store.PropertyNumber, "12", false},
		{store.PropertyNumber, true, false},
		{store.PropertyNumber, math.NaN(), false},           // JSON cannot hold it
		{store.PropertyNumber, math.Inf(1), false},          // JSON cannot hold it
		{store.PropertyNumber, json.Number("1e999"), false}, // out of float64 range: unreadable later
		{store.PropertyNumber, json.Number("12abc"), false}, // not a number at all
		{store.PropertyBoolean, true, true},
		{store.PropertyBoolean, false, true},
		{store.PropertyBoolean, "true", false},
		{store.PropertyBoolean, 1.0, false},
		{store.PropertyDate, "2027-02-28", true},
		{store.PropertyDate, "2027-02-30", false},
		{store.PropertyDate, 20270228.0, false},
		{store.PropertyDate, "28/02/2027", false},
		{"colour", "red", false},
	} {
		msg := store.ValidateProperty(tc.typ, tc.v)
		if (msg == "") != tc.want {
			t.Errorf("ValidateProperty(%s, %#v) = %q, want valid %v", tc.typ, tc.v, msg, tc.want)
		}
	}
}

var e164Pattern = regexp.MustCompile(`^\+[1-9][0-9]{1,14}$`)

func FuzzValidE164(f *testing.F) {
	for _, s := range []string{"+14155550123", "+1", "+1 415", "14155550123", "+0123", "+123456789012345", "+١٢٣"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		if got, want := store.ValidE164(s), e164Pattern.MatchString(s); got != want {
			t.Fatalf("ValidE164(%q) = %v, want %v", s, got, want)
		}
	})
}

func FuzzValidMediaURL(f *testing.F) {
	for _, s := range []string{"https://example.com/a.png", "http://x", "ftp://x", "https://", "//x", "https://[::1]:80/", "http://a b", "https://a:/%41?%zz#b", "HTTP://a.b/é",
		"https://a.b/x[1]{2}^<>", "https://a.b/p?q#f#g", "https://a.b?q", "https://a.b#f", "https://a.b/%e2%9C%93"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		if !store.ValidMediaURL(s) {
			if rfc3986HTTP(s) && len(s) <= store.MaxMediaURL {
				t.Fatalf("ValidMediaURL(%q) refused an http(s) URI of the accepted form", s)
			}
			return
		}
		if utf8.RuneCountInString(s) > store.MaxMediaURL {
			t.Fatalf("ValidMediaURL accepted %d characters, more than %d", utf8.RuneCountInString(s), store.MaxMediaURL)
		}
		u, err := url.Parse(s)
		if err != nil {
			t.Fatalf("ValidMediaURL(%q) accepted what url.Parse refuses: %v", s, err)
		}
		if u.Scheme != "http" && u.Scheme != "https" {
			t.Fatalf("ValidMediaURL(%q) accepted scheme %q", s, u.Scheme)
		}
		if u.Hostname() == "" {
			t.Fatalf("ValidMediaURL(%q) accepted a URL without a host", s)
		}
		if !rfc3986HTTP(s) {
			t.Fatalf("ValidMediaURL(%q) accepted what is not an RFC 3986 URI", s)
		}
		// What is accepted survives the JSON round trip a stored message makes.
		data, err := json.Marshal(s)
		if err != nil {
			t.Fatal(err)
		}
		var back string
		if err := json.Unmarshal(data, &back); err != nil || (utf8.ValidString(s) && back != s) {
			t.Fatalf("ValidMediaURL(%q) accepted a URL that does not survive JSON: %q, %v", s, back, err)
		}
	})
}

func FuzzValidDate(f *testing.F) {
	for _, s := range []string{"2027-02-28", "2027-02-30", "0000-01-01", "9999-12-31", "2027-1-05", "+002-01-01"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		ok := store.ValidDate(s)
		if !ok {
			return
		}
		if len(s) != 10 || s[4] != '-' || s[7] != '-' {
			t.Fatalf("ValidDate(%q) accepted something not shaped YYYY-MM-DD", s)
		}
		for i, c := range []byte(s) {
			if i != 4 && i != 7 && (c < '0' || c > '9') {
				t.Fatalf("ValidDate(%q) accepted a non-digit at %d", s, i)
			}
		}
		d, err := time.Parse(time.DateOnly, s)
		if err != nil || d.Format(time.DateOnly) != s {
			t.Fatalf("ValidDate(%q) accepted a date that is not on the calendar (%v, %v)", s, d, err)
		}
	})
}

func FuzzValidateProperty(f *testing.F) {
	f.Add("text", `"hello"`)
	f.Add("number", `12.5`)
	f.Add("number", `1e999`)
	f.Add("number", `-0`)
	f.Add("boolean", `true`)
	f.Add("date", `"2027-02-30"`)
	f.Add("date", `null`)
	f.Add("text", `{"a":1}`)
	f.Add("number", `[1]`)
	f.Fuzz(func(t *testing.T, typ, raw string) {
		// Values arrive as the web layer decodes them: JSON with numbers kept exact.
		dec := json.NewDecoder(strings.NewReader(raw))
		dec.UseNumber()
		var v any
		if err := dec.Decode(&v); err != nil {
			return
		}
		msg := store.ValidateProperty(typ, v)
		if msg != "" {
			return
		}
		switch typ {
		case store.PropertyText:
			if s, ok := v.(string); !ok || utf8.RuneCountInString(s) > 255 {
				t.Fatalf("text accepted %#v", v)
			}
		case store.PropertyNumber:
			if _, ok := v.(json.Number); !ok {
				t.Fatalf("number accepted %#v", v)
			}
		case store.PropertyBoolean:
			if _, ok := v.(bool); !ok {
				t.Fatalf("boolean accepted %#v", v)
			}
		case store.PropertyDate:
			if s, ok := v.(string); !ok || !store.ValidDate(s) {
				t.Fatalf("date accepted %#v", v)
			}
		default:
			t.Fatalf("unknown type %q accepted %#v", typ, v)
		}
		// An accepted value is stored as JSON and read back into a contact: that must work.
		data, err := json.Marshal(map[string]any{"p": v})
		if err != nil {
			t.Fatalf("accepted %s value %#v cannot be encoded: %v", typ, v, err)
		}
		var back map[string]any
		if err := json.Unmarshal(data, &back); err != nil {
			t.Fatalf("accepted %s value %s cannot be read back: %v", typ, data, err)
		}
	})
}

// rfc3986HTTP is the mediaUrl rule written out by hand from RFC 3986, apart from the pattern:
// scheme http or https (any case), "://", a host of unreserved characters, an optional numeric
// port, then path ("/" and pchars), query ("?" and pchars, / and ?) and fragment ("#" and the
// same), each optional and in that order, every % starting two hex digits.
func rfc3986HTTP(s string) bool {
	lower := strings.ToLower(s)
	switch {
	case strings.HasPrefix(lower, "http://"):
		s = s[len("http://"):]
	case strings.HasPrefix(lower, "https://"):
		s = s[len("https://"):]
	default:
		return false
	}
	unreserved := func(c byte) bool {
		return c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || strings.IndexByte("-._~", c) >= 0
	}
	i := 0
	for i < len(s) && unreserved(s[i]) {
		i++
	}
	if i == 0 {
		return false
	}
	if i < len(s) && s[i] == ':' {
		for i++; i < len(s) && s[i] >= '0' && s[i] <= '9'; i++ {
		}
	}
	hex := func(c byte) bool { return strings.IndexByte("0123456789abcdefABCDEF", c) >= 0 }
	part := 0 // 0 before the path, 1 path, 2 query, 3 fragment
	for ; i < len(s); i++ {
		c := s[i]
		switch {
		case c == '/' && part <= 1:
			part = max(part, 1)
		case c == '?' && part <= 2:
			part = 2
		case c == '#' && part <= 2:
			part = 3
		case part == 0:
			return false // the authority ends with / ? # or the end
		case c == '%':
			if i+2 >= len(s) || !hex(s[i+1]) || !hex(s[i+2]) {
				return false
			}
			i += 2
		case unreserved(c) || strings.IndexByte("!$&'()*+,;=:@", c) >= 0:
		case (c == '/' || c == '?') && part >= 2:
		default:
			return false
		}
	}
	return true
}
