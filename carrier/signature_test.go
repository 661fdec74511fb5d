package carrier_test

import (
	"crypto/hmac"
	"crypto/sha1"
	"encoding/base64"
	"net/url"
	"sort"
	"testing"

	"github.com/twilio/twilio-go/client"

	"switchboard/carrier"
)

const sigToken = "12345"

// The inbound SMS form Twilio posts, as its docs show it.
func signedSMSForm() url.Values {
	return url.Values{
		"AccountSid":    {"AC0123456789abcdef0123456789abcdef"},
		"ApiVersion":    {"2010-04-01"},
		"Body":          {"Hello & welcome = yes? ünïcødé 👋"},
		"From":          {"+14155550123"},
		"FromCountry":   {"US"},
		"MessageSid":    {"SM1234567890abcdef1234567890abcdef"},
		"NumMedia":      {"1"},
		"MediaUrl0":     {"https://api.twilio.com/2010-04-01/Accounts/AC0/Messages/MM1/Media/ME1"},
		"SmsStatus":     {"received"},
		"To":            {"+14155550100"},
		"Reason":        {"x"},
		"ReasonEnded":   {"y"}, // sorts after Reason byte-wise: a sort that is not byte-wise breaks it
		"Empty":         {""},
		"lowercaseLast": {"z"},
	}
}

func firstValues(form url.Values) map[string]string {
	m := map[string]string{}
	for k, v := range form {
		m[k] = v[0]
	}
	return m
}

func TestTwilioSignatureKnownVector(t *testing.T) {
	// twilio-go's own test vector (client/request_validator_test.go).
	form := url.Values{
		"Digits": {"1234"}, "CallSid": {"CA1234567890ABCDE"}, "To": {"+18005551212"},
		"Caller": {"+14158675309"}, "From": {"+14158675309"},
		"ReasonConferenceEnded": {"test"}, "Reason": {"Participant"},
	}
	const u = "https://mycompany.com/myapp.php?foo=1&bar=2"
	if got, want := carrier.TwilioSignature(sigToken, u, form), "vOEb5UThFn24KEfnOFLQY2AE5FY="; got != want {
		t.Errorf("TwilioSignature = %q, want %q", got, want)
	}
}

func TestTwilioSignatureAgreesWithTwilioGo(t *testing.T) {
	urls := []string{
		"https://sb.example.com/carrier/twilio/sms",
		"https://sb.example.com/carrier/twilio/sms?workspace=acme&x=%20y",
		"http://localhost:8080/carrier/twilio/status",
		"https://sb.example.com:443/carrier/twilio/voice",
	}
	forms := []url.Values{signedSMSForm(), {}, {"CallSid": {"CA1"}, "From": {"+1415"}, "To": {"+1416"}}}
	for _, u := range urls {
		for i, form := range forms {
			theirs := client.NewRequestValidator(sigToken)
			ours := carrier.TwilioSignature(sigToken, u, form)
			if !theirs.Validate(u, firstValues(form), ours) {
				t.Errorf("twilio-go rejects our signature %q of %s form %d", ours, u, i)
			}
			// twilio-go has no signer; its validator checks the URL as given and with its port
			// toggled, so a signature it accepts for one of our variants is what Twilio would send.
			if !carrier.ValidTwilioSignature(sigToken, u, form, ours) {
				t.Errorf("we reject our own signature of %s form %d", u, i)
			}
		}
	}
}

func TestTwilioSignatureTheirsVerifiesWithOurs(t *testing.T) {
	// twilio-go exposes only a validator, so "theirs" is a signature it accepts that we did not
	// compute with TwilioSignature: the HMAC by hand, the way Twilio's docs describe it.
	form := signedSMSForm()
	const u = "https://sb.example.com/carrier/twilio/sms?b=2&a=1"
	sig := handSignature(sigToken, u, firstValues(form))
	v := client.NewRequestValidator(sigToken)
	if !v.Validate(u, firstValues(form), sig) {
		t.Fatalf("twilio-go rejects the hand-computed signature %q: the test is wrong", sig)
	}
	if !carrier.ValidTwilioSignature(sigToken, u, form, sig) {
		t.Errorf("a signature twilio-go accepts (%q) is rejected by ValidTwilioSignature", sig)
	}
	// Twilio may sign the URL with or without the default port; twilio-go accepts both, so do we.
	withPort := "https://sb.example.com:443/carrier/twilio/sms?b=2&a=1"
	sig443 := handSignature(sigToken, withPort, firstValues(form))
	if !v.Validate(u, firstValues(form), sig443) {
		t.Fatalf("twilio-go rejects the :443 signature for %s", u)
	}
	if !carrier.ValidTwilioSignature(sigToken, u, form, sig443) {
		t.Errorf("the signature of %s is rejected for %s; twilio-go accepts it", withPort, u)
	}
	if !carrier.ValidTwilioSignature(sigToken, withPort, form, sig) {
		t.Errorf("the signature of %s is rejected for %s; twilio-go accepts it", u, withPort)
	}
}

func TestTwilioSignatureInvalid(t *testing.T) {
	form := signedSMSForm()
	const u = "https://sb.example.com/carrier/twilio/sms?ws=acme"
	sig := carrier.TwilioSignature(sigToken, u, form)
	changed := func(f func(url.Values)) url.Values {
		c := url.Values{}
		for k, v := range form {
			c[k] = append([]string(nil), v...)
		}
		f(c)
		return c
	}
	tests := []struct {
		name  string
		token string
		url   string
		form  url.Values
		sig   string
	}{
		{"wrong token", "54321", u, form, sig},
		{"empty token", "", u, form, carrier.TwilioSignature("", u, form)},
		{"changed field", sigToken, u, changed(func(c url.Values) { c.Set("Body", "STOP") }), sig},
		{"added field", sigToken, u, changed(func(c url.Values) { c.Set("Extra", "1") }), sig},
		{"added empty field", sigToken, u, changed(func(c url.Values) { c.Set("Extra", "") }), sig},
		{"removed field", sigToken, u, changed(func(c url.Values) { c.Del("MediaUrl0") }), sig},
		{"changed path", sigToken, "https://sb.example.com/carrier/twilio/status?ws=acme", form, sig},
		{"changed query", sigToken, "https://sb.example.com/carrier/twilio/sms?ws=other", form, sig},
		{"dropped query", sigToken, "https://sb.example.com/carrier/twilio/sms", form, sig},
		{"changed scheme", sigToken, "http://sb.example.com/carrier/twilio/sms?ws=acme", form, sig},
		{"changed host", sigToken, "https://evil.example.com/carrier/twilio/sms?ws=acme", form, sig},
		{"other port", sigToken, "https://sb.example.com:8443/carrier/twilio/sms?ws=acme", form, sig},
		{"empty signature", sigToken, u, form, ""},
		{"truncated signature", sigToken, u, form, sig[:len(sig)-1]},
		{"garbage signature", sigToken, u, form, "not base64 at all"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if carrier.ValidTwilioSignature(tc.token, tc.url, tc.form, tc.sig) {
				t.Errorf("ValidTwilioSignature accepted it, want rejected")
			}
		})
	}
	if !carrier.ValidTwilioSignature(sigToken, u, form, sig) {
		t.Errorf("the unchanged request is rejected; the cases above prove nothing")
	}
}

func TestTwilioSignatureRepeatedValues(t *testing.T) {
	// Twilio's reference validators sort a repeated field's values and count each once; the
	// order the values arrived in must not matter.
	const u = "https://sb.example.com/x"
	a := url.Values{"MediaUrl": {"https://b", "https://a"}, "To": {"+1"}}
	b := url.Values{"MediaUrl": {"https://a", "https://b"}, "To": {"+1"}}
	c := url.Values{"MediaUrl": {"https://a", "https://b", "https://a"}, "To": {"+1"}}
	sa, sb, sc := carrier.TwilioSignature(sigToken, u, a), carrier.TwilioSignature(sigToken, u, b), carrier.TwilioSignature(sigToken, u, c)
	if sa != sb || sb != sc {
		t.Errorf("signatures differ by value order or repetition: %q %q %q", sa, sb, sc)
	}
	want := handSignatureString(sigToken, u+"MediaUrlhttps://aMediaUrlhttps://bTo+1")
	if sa != want {
		t.Errorf("signature %q, want %q (name+value for each sorted value)", sa, want)
	}
}

// handSignature follows Twilio's documented recipe step by step, independently of
// TwilioSignature: sort the names, append name+value to the URL, HMAC-SHA1, base64.
func handSignature(token, u string, params map[string]string) string {
	names := make([]string, 0, len(params))
	for k := range params {
		names = append(names, k)
	}
	sort.Strings(names)
	s := u
	for _, k := range names {
		s += k + params[k]
	}
	return handSignatureString(token, s)
}

func handSignatureString(token, s string) string {
	mac := hmac.New(sha1.New, []byte(token))
	mac.Write([]byte(s))
	return base64.StdEncoding.EncodeToString(mac.Sum(nil))
}

// FuzzTwilioSignature: a signature made for a request verifies for it under the same token and
// fails under another token or with a field changed; twilio-go agrees whenever the form has
// one value per name (all its validator can express).
func FuzzTwilioSignature(f *testing.F) {
	f.Add("12345", "https://sb.example.com/carrier/twilio/sms?a=1", "From=%2B14155550123&Body=hi")
	f.Add("t", "http://localhost:8080/x", "")
	f.Add("", "", "a=1&a=2&b=")
	f.Add("tok", "https://h:443/p", "MediaUrl=x&MediaUrl=x")
	f.Fuzz(func(t *testing.T, token, u, body string) {
		form, err := url.ParseQuery(body)
		if err != nil {
			return
		}
		sig := carrier.TwilioSignature(token, u, form)
		valid := carrier.ValidTwilioSignature(token, u, form, sig)
		if valid != (token != "") {
			t.Fatalf("ValidTwilioSignature(own signature) = %v with token %q", valid, token)
		}
		if token == "" {
			return
		}
		if carrier.ValidTwilioSignature(token+"x", u, form, sig) {
			t.Errorf("a signature verified under another token")
		}
		changed := url.Values{}
		for k, v := range form {
			changed[k] = v
		}
		extra := "Zz"
		for form.Has(extra) {
			extra += "z" // a repeated value would count once, so the new field must be new
		}
		changed.Set(extra, "1")
		if carrier.ValidTwilioSignature(token, u, changed, sig) {
			t.Errorf("a signature verified with a field added")
		}
		single := true
		for _, v := range form {
			if len(v) != 1 {
				single = false
			}
		}
		if single {
			v := client.NewRequestValidator(token)
			if !v.Validate(u, firstValues(form), sig) {
				t.Errorf("twilio-go rejects our signature of %q %q", u, body)
			}
		}
	})
}
