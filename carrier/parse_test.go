package carrier_test

import (
	"net/url"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"
	"unicode/utf8"

	"switchboard/carrier"
)

func TestParseInboundSMS(t *testing.T) {
	// Abridged from a real Twilio inbound MMS webhook.
	form := url.Values{
		"ToCountry":         {"US"},
		"MediaContentType0": {"image/jpeg"},
		"SmsMessageSid":     {"MM0123456789abcdef0123456789abcdef"},
		"NumMedia":          {"5"},
		"MessageSid":        {"MM0123456789abcdef0123456789abcdef"},
		"SmsSid":            {"MM0123456789abcdef0123456789abcdef"},
		"SmsStatus":         {"received"},
		"Body":              {"  see attached  "},
		"To":                {" +14155550100"},
		"NumSegments":       {"1"},
		"From":              {"+14155550123 "},
		"MediaUrl0":         {"https://api.twilio.com/2010-04-01/Accounts/AC0/Messages/MM0/Media/ME0"},
		"MediaUrl1":         {"javascript:alert(1)"},
		"MediaUrl2":         {"http://media.example.com/b.png"},
		"MediaUrl3":         {"https:///no-host.png"},
		"MediaUrl4":         {"/relative.png"},
		"MediaUrl5":         {"https://beyond.example.com/not-counted.png"},
		"ApiVersion":        {"2010-04-01"},
	}
	got, err := carrier.ParseInboundSMS(form)
	if err != nil {
		t.Fatalf("ParseInboundSMS: %v", err)
	}
	want := carrier.InboundSMS{
		MessageSID: "MM0123456789abcdef0123456789abcdef",
		From:       "+14155550123",
		To:         "+14155550100",
		Text:       "  see attached  ",
		Media: []string{
			"https://api.twilio.com/2010-04-01/Accounts/AC0/Messages/MM0/Media/ME0",
			"http://media.example.com/b.png",
		},
	}
	if got.MessageSID != want.MessageSID || got.From != want.From || got.To != want.To || got.Text != want.Text || !slices.Equal(got.Media, want.Media) {
		t.Errorf("ParseInboundSMS =\n%+v\nwant\n%+v", got, want)
	}
}

func TestParseInboundSMSSenders(t *testing.T) {
	base := url.Values{"MessageSid": {"SM1"}, "To": {"+14155550100"}, "Body": {"hi"}}
	for _, from := range []string{"+14155550123", "12345", "ACME", "Acme Co"} {
		f := cloneCallbackForm(base)
		f.Set("From", from)
		got, err := carrier.ParseInboundSMS(f)
		if err != nil || got.From != from {
			t.Errorf("From %q: got %q, %v; want it as given", from, got.From, err)
		}
	}
	// No NumMedia at all is a plain SMS.
	got, err := carrier.ParseInboundSMS(withCallbackField(base, "From", "+14155550123"))
	if err != nil || len(got.Media) != 0 {
		t.Errorf("SMS without NumMedia: %+v, %v; want no media, no error", got, err)
	}
}

func TestParseInboundSMSRejects(t *testing.T) {
	good := url.Values{"MessageSid": {"SM1"}, "From": {"+14155550123"}, "To": {"+14155550100"}, "Body": {"hi"}, "NumMedia": {"0"}}
	if _, err := carrier.ParseInboundSMS(good); err != nil {
		t.Fatalf("the good form fails: %v", err)
	}
	tests := []struct {
		name, field, value, inErr string
	}{
		{"no MessageSid", "MessageSid", "", "MessageSid"},
		{"MessageSid with space", "MessageSid", "SM 1", "MessageSid"},
		{"MessageSid too long", "MessageSid", strings.Repeat("S", 65), "MessageSid"},
		{"no From", "From", "  ", "From"},
		{"From with control", "From", "+1415\x00", "From"},
		{"no To", "To", "", "To"},
		{"To not E.164", "To", "4155550100", "To"},
		{"To with punctuation", "To", "+1 (415) 555-0100", "To"},
		{"To with leading zero", "To", "+04155550100", "To"},
		{"To too long", "To", "+1234567890123456", "To"},
		{"NumMedia not a number", "NumMedia", "two", "NumMedia"},
		{"NumMedia negative", "NumMedia", "-1", "NumMedia"},
		{"NumMedia too many", "NumMedia", "11", "NumMedia"},
		{"NumMedia huge", "NumMedia", "99999999999999999999", "NumMedia"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got, err := carrier.ParseInboundSMS(withCallbackField(good, tc.field, tc.value))
			if err == nil {
				t.Fatalf("accepted %s=%q as %+v, want an error", tc.field, tc.value, got)
			}
			if !strings.Contains(err.Error(), tc.inErr) {
				t.Errorf("error %q does not name %s", err, tc.inErr)
			}
		})
	}
}

func TestParseInboundSMSInvalidUTF8Body(t *testing.T) {
	form := url.Values{"MessageSid": {"SM1"}, "From": {"+14155550123"}, "To": {"+14155550100"}, "Body": {"ok\xffok"}}
	got, err := carrier.ParseInboundSMS(form)
	if err != nil {
		t.Fatalf("ParseInboundSMS: %v", err)
	}
	if !utf8.ValidString(got.Text) || got.Text != "ok\uFFFDok" {
		t.Errorf("Text = %q, want invalid bytes replaced: %q", got.Text, "ok\uFFFDok")
	}
}

func TestParseStatus(t *testing.T) {
	got, err := carrier.ParseStatus(url.Values{
		"MessageSid": {"SM1"}, "MessageStatus": {" Undelivered "}, "ErrorCode": {"30003"},
		"AccountSid": {"AC1"}, "SmsStatus": {"undelivered"},
	})
	want := carrier.StatusUpdate{MessageSID: "SM1", Status: "undelivered", ErrorCode: "30003"}
	if err != nil || got != want {
		t.Errorf("ParseStatus = %+v, %v; want %+v", got, err, want)
	}
	got, err = carrier.ParseStatus(url.Values{"MessageSid": {"SM1"}, "MessageStatus": {"delivered"}})
	if want := (carrier.StatusUpdate{MessageSID: "SM1", Status: "delivered"}); err != nil || got != want {
		t.Errorf("ParseStatus without ErrorCode = %+v, %v; want %+v", got, err, want)
	}
	for _, bad := range []url.Values{
		{"MessageStatus": {"sent"}},
		{"MessageSid": {"SM1"}},
		{"MessageSid": {"SM1"}, "MessageStatus": {"sent!"}},
		{"MessageSid": {"SM1"}, "MessageStatus": {"sent"}, "ErrorCode": {"30003x"}},
		{"MessageSid": {"SM1"}, "MessageStatus": {"sent"}, "ErrorCode": {"-1"}},
	} {
		if got, err := carrier.ParseStatus(bad); err == nil {
			t.Errorf("ParseStatus(%v) = %+v, want an error", bad, got)
		}
	}
}

func TestParseCall(t *testing.T) {
	got, err := carrier.ParseCall(url.Values{
		"CallSid": {"CA0123456789abcdef0123456789abcdef"}, "From": {"+14155550123"}, "To": {"+14155550100"},
		"CallStatus": {"ringing"}, "Direction": {"inbound"},
	})
	want := carrier.InboundCall{CallSID: "CA0123456789abcdef0123456789abcdef", From: "+14155550123", To: "+14155550100"}
	if err != nil || got != want {
		t.Errorf("ParseCall = %+v, %v; want %+v", got, err, want)
	}
	for _, bad := range []url.Values{
		{"From": {"+14155550123"}, "To": {"+14155550100"}},
		{"CallSid": {"CA1"}, "To": {"+14155550100"}},
		{"CallSid": {"CA1"}, "From": {"+14155550123"}, "To": {"client:alice"}},
	} {
		if got, err := carrier.ParseCall(bad); err == nil {
			t.Errorf("ParseCall(%v) = %+v, want an error", bad, got)
		}
	}
}

func cloneCallbackForm(f url.Values) url.Values {
	c := url.Values{}
	for k, v := range f {
		c[k] = append([]string(nil), v...)
	}
	return c
}

func withCallbackField(f url.Values, k, v string) url.Values {
	c := cloneCallbackForm(f)
	if v == "" {
		c.Del(k)
	} else {
		c.Set(k, v)
	}
	return c
}

var (
	fuzzE164Re    = regexp.MustCompile(`^\+[1-9][0-9]{1,14}$`)
	fuzzSIDRe     = regexp.MustCompile(`^[!-~]{1,64}$`)
	fuzzStatusRe  = regexp.MustCompile(`^[a-z_]{1,32}$`)
	fuzzErrCodeRe = regexp.MustCompile(`^[0-9]{0,10}$`)
)

// callbackFormSeeds are encoded callback bodies: real shapes, and the malformed ones worth starting from.
var callbackFormSeeds = []string{
	"MessageSid=SM1&From=%2B14155550123&To=%2B14155550100&Body=Hello&NumMedia=0",
	"MessageSid=MM1&From=%2B14155550123&To=%2B14155550100&Body=&NumMedia=2&MediaUrl0=https%3A%2F%2Fa.example%2F1&MediaUrl1=ftp%3A%2F%2Fx",
	"MessageSid=SM1&MessageStatus=delivered&ErrorCode=",
	"MessageSid=SM1&MessageStatus=UNDELIVERED&ErrorCode=30003",
	"CallSid=CA1&From=%2B14155550123&To=%2B14155550100",
	"CallSid=CA1&From=ACME&To=%2B1",
	"NumMedia=10&MessageSid=a&From=b&To=%2B12",
	"NumMedia=-0&MessageSid=a&From=b&To=%2B12&MediaUrl0=http://%zz",
	"From=%00&To=%2B%2B1&MessageSid=%20",
	"%ff=%fe&Body=%ff%fe&MessageSid=x&From=y&To=%2B199",
	"a;b=c&&&=&==",
	"",
}

func fuzzCallbackForm(f *testing.F, check func(t *testing.T, form url.Values)) {
	for _, s := range callbackFormSeeds {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, body string) {
		form, err := url.ParseQuery(body)
		if err != nil {
			return // the HTTP layer answers a body it cannot decode before any parser sees it
		}
		check(t, form)
	})
}

// FuzzParseInboundSMS: no body panics, and an accepted message is what the inbound path relies
// on: a token SID, an E.164 To, a trimmed non-empty From, UTF-8 text, at most NumMedia absolute
// http(s) media URLs.
func FuzzParseInboundSMS(f *testing.F) {
	fuzzCallbackForm(f, func(t *testing.T, form url.Values) {
		in, err := carrier.ParseInboundSMS(form)
		if err != nil {
			return
		}
		if !fuzzSIDRe.MatchString(in.MessageSID) {
			t.Errorf("accepted MessageSID %q", in.MessageSID)
		}
		if !fuzzE164Re.MatchString(in.To) {
			t.Errorf("accepted To %q", in.To)
		}
		if in.From == "" || strings.TrimSpace(in.From) != in.From || !utf8.ValidString(in.From) {
			t.Errorf("accepted From %q", in.From)
		}
		if !utf8.ValidString(in.Text) {
			t.Errorf("Text %q is not UTF-8", in.Text)
		}
		if len(in.Media) > carrier.MaxInboundMedia {
			t.Errorf("%d media, more than %d", len(in.Media), carrier.MaxInboundMedia)
		}
		for _, m := range in.Media {
			u, err := url.Parse(m)
			if err != nil || u.Host == "" || (u.Scheme != "http" && u.Scheme != "https") {
				t.Errorf("accepted media URL %q", m)
			}
		}
		n, _ := strconv.Atoi(strings.TrimSpace(form.Get("NumMedia")))
		if len(in.Media) > n {
			t.Errorf("%d media with NumMedia %q", len(in.Media), form.Get("NumMedia"))
		}
	})
}

// FuzzParseStatus: no body panics; an accepted receipt has a token SID, a lower-case status
// word and a numeric (or empty) error code.
func FuzzParseStatus(f *testing.F) {
	fuzzCallbackForm(f, func(t *testing.T, form url.Values) {
		st, err := carrier.ParseStatus(form)
		if err != nil {
			return
		}
		if !fuzzSIDRe.MatchString(st.MessageSID) || !fuzzStatusRe.MatchString(st.Status) || !fuzzErrCodeRe.MatchString(st.ErrorCode) {
			t.Errorf("accepted status %+v", st)
		}
	})
}

// FuzzParseCall: no body panics; an accepted call has a token SID, a sender and an E.164 To.
func FuzzParseCall(f *testing.F) {
	fuzzCallbackForm(f, func(t *testing.T, form url.Values) {
		c, err := carrier.ParseCall(form)
		if err != nil {
			return
		}
		if !fuzzSIDRe.MatchString(c.CallSID) || !fuzzE164Re.MatchString(c.To) || c.From == "" || strings.TrimSpace(c.From) != c.From {
			t.Errorf("accepted call %+v", c)
		}
	})
}
