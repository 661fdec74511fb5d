package carrier

import (
	"strconv"
	"strings"
	"testing"
	"unicode/utf8"

	"switchboard/store"
)

// Seeds: the documented answers, and their near misses.
var accountSeeds = []string{
	`{"incoming_phone_numbers":[{"sid":"PN0123","phone_number":"+14155550177","friendly_name":"(415) 555-0177","sms_url":"https://x/sms","sms_method":"POST","status_callback":"","sms_application_sid":null,"capabilities":{"voice":true,"sms":true,"mms":true,"fax":false}}],"page":0,"page_size":50,"next_page_uri":"/2010-04-01/Accounts/AC1/IncomingPhoneNumbers.json?PageSize=50&Page=1&PageToken=PA1","previous_page_uri":null}`,
	`{"incoming_phone_numbers":[],"page":-5,"next_page_uri":null}`,
	`{"incoming_phone_numbers":[{"sid":"","phone_number":"not a phone"},{"sid":"PN1","phone_number":"+1"}]}`,
	`{"sid":"PN0123","phone_number":"+14155550177","capabilities":{"sms":false}}`,
	`{"available_phone_numbers":[{"phone_number":"+14155550123","locality":"San Francisco","region":"CA","capabilities":{"SMS":true}}]}`,
	`{"phone_number_prices":[{"number_type":"local","base_price":"1.15","current_price":1.15},{"number_type":"toll free","base_price":"2.15"}],"price_unit":"usd"}`,
	`{"phone_number_prices":[{"number_type":"local","base_price":"-1","current_price":"1e9"}],"price_unit":"US Dollars"}`,
	`{"data":[{"id":"1293384261075731499","phone_number":"+14155550188","messaging_profile_id":null,"customer_reference":"front"}],"meta":{"page_number":2,"total_pages":3}}`,
	`{"data":{"id":"1293384261075731499","phone_number":"+14155550188","messaging_profile_id":"4001767e"}}`,
	`{"data":[{"phone_number":"+14155550150","region_information":[{"region_type":"rate_center","region_name":"SAN FRANCISCO"},{"region_type":"state","region_name":"CA"}],"cost_information":{"monthly_cost":"1.00","upfront_cost":"1.00","currency":"USD"}}]}`,
	`{"data":[{"phone_number":"+14155550150","cost_information":{"monthly_cost":null}}]}`,
	`{"code":20003,"message":"Authenticate","more_info":"https://www.twilio.com/docs/errors/20003","status":401}`,
	`{"code":"21422","message":"PhoneNumber requested is not available"}`,
	`{"errors":[{"code":"10009","title":"Authentication failed","detail":"…"}]}`,
	`{"errors":[{"code":10005}]}`,
	`null`, `[]`, `{`, ``, `{"data":null}`, "\xff\xfe",
}

// FuzzAccountDecoders: whatever a carrier answers, the decoders neither panic nor let through a
// number that is not E.164 or lacks its id, a price that is not a plain decimal, a page token
// that is not the carrier's, or an error message that is not one readable line.
func FuzzAccountDecoders(f *testing.F) {
	for _, s := range accountSeeds {
		f.Add([]byte(s), 401)
	}
	tw := &twilioNumbers{path: "/2010-04-01/Accounts/AC1"}
	f.Fuzz(func(t *testing.T, body []byte, status int) {
		checkNumbers := func(what string, ns []OwnedNumber) {
			for _, n := range ns {
				if n.ID == "" || !store.ValidE164(n.Phone) || !utf8.ValidString(n.Name) {
					t.Fatalf("%s let through %+v", what, n)
				}
			}
		}
		if p, err := decodeTwilioNumberList(body); err == nil {
			checkNumbers("twilio list", p.Numbers)
			if p.Page < 1 {
				t.Fatalf("twilio page %d", p.Page)
			}
			if p.Next != "" && tw.ownPage(p.Next) && !strings.HasPrefix(p.Next, tw.path+"/IncomingPhoneNumbers.json?") {
				t.Fatalf("next page %q", p.Next)
			}
		}
		if n, err := decodeTwilioNumber(body); err == nil {
			checkNumbers("twilio number", []OwnedNumber{n})
		}
		if p, err := decodeTelnyxNumberList(body); err == nil {
			checkNumbers("telnyx list", p.Numbers)
			if next, err := strconv.Atoi(p.Next); p.Page < 1 || (p.Next != "" && (err != nil || next != p.Page+1)) {
				t.Fatalf("telnyx page %d next %q", p.Page, p.Next)
			}
		}
		if n, err := decodeTelnyxNumber(body); err == nil {
			checkNumbers("telnyx number", []OwnedNumber{n})
		}
		var found []AvailableNumber
		if a, err := decodeTwilioAvailable(body); err == nil {
			found = append(found, a...)
		}
		if a, err := decodeTelnyxAvailable(body); err == nil {
			found = append(found, a...)
			for _, n := range a {
				if n.Monthly.Amount == "" {
					t.Fatalf("telnyx offered %+v without a price", n)
				}
			}
		}
		for _, n := range found {
			if !store.ValidE164(n.Phone) || !utf8.ValidString(n.Locality) || !utf8.ValidString(n.Region) {
				t.Fatalf("offered %+v", n)
			}
		}
		if p, ok, err := decodeTwilioPrice(body, "local"); err == nil && ok {
			found = append(found, AvailableNumber{Monthly: p})
		}
		for _, n := range found {
			if a := n.Monthly.Amount; a != "" && strings.Trim(a, "0123456789.") != "" {
				t.Fatalf("price %q", a)
			}
			if c := n.Monthly.Currency; c != "" && len(c) != 3 {
				t.Fatalf("currency %q", c)
			}
		}
		for _, read := range []func(int, []byte) *APIError{twilioRefusal, telnyxRefusal} {
			c := apiClient{name: "Carrier", refusal: read, secrets: []string{"sekrit-token"}}
			e := c.refusal(status, body)
			e.Carrier, e.Status = c.name, status
			e.Code, e.Detail = clip(c.scrub(e.Code), 20), clip(c.scrub(e.Detail), 300)
			msg := e.Error()
			if strings.ContainsAny(msg, "\n\r") || strings.Contains(msg, "sekrit-token") || e.Kind == 0 {
				t.Fatalf("error %q (kind %d) from %q", msg, e.Kind, body)
			}
		}
	})
}

// FuzzAccountForms: whatever is typed into the connect and search forms, what passes the checks
// is trimmed, one line and of the documented form, so nothing malformed reaches a carrier.
func FuzzAccountForms(f *testing.F) {
	f.Add("AC0123456789abcdef0123456789abcdef", "tw-auth-token-0123", "", "", "US", "415", "San Francisco")
	f.Add(" AC0123456789abcdef0123456789abcdef\n", "tok en", "SK0123456789abcdef0123456789abcdef", "sec", "us", "4a5", "Zürich\x00")
	f.Add("", "", "SK1", "", "USA", "1234567", strings.Repeat("x", 65))
	f.Fuzz(func(t *testing.T, sid, token, keySID, keySecret, country, area, city string) {
		if in, errs := checkTwilioCredentials(TwilioCredentials{sid, token, keySID, keySecret}); errs == nil {
			if !twilioAccountSID.MatchString(in.AccountSID) || strings.ContainsAny(in.AuthToken, " \t\r\n") || len(in.AuthToken) < 8 ||
				(in.APIKeySID != "" && !twilioKeySID.MatchString(in.APIKeySID)) {
				t.Fatalf("accepted %+v", in)
			}
		}
		if in, errs := checkTelnyxCredentials(TelnyxCredentials{token, city}); errs == nil {
			if _, err := ParseTelnyxPublicKey(in.PublicKey); err != nil || strings.ContainsAny(in.APIKey, " \n") {
				t.Fatalf("accepted %+v", in)
			}
		}
		if q, errs := checkSearch(Search{country, area, city}); errs == nil {
			if len(q.Country) != 2 || strings.Trim(q.AreaCode, "0123456789") != "" || strings.ContainsAny(q.Locality, "\x00\n\r") ||
				!utf8.ValidString(q.Locality) || q.Locality != strings.TrimSpace(q.Locality) {
				t.Fatalf("accepted %+v", q)
			}
		}
	})
}
