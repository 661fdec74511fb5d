package carrier

import (
	"context"
	"encoding/json"
	"net/http"
	"net/url"
	"strconv"
	"strings"
)

// Twilio's account API as Switchboard uses it, HTTP Basic AccountSid:AuthToken (or
// ApiKeySid:ApiKeySecret) on the account's own paths, writes form-encoded, answers JSON:
//
//	GET    /2010-04-01/Accounts/{sid}.json                            the account (check)
//	GET    …/IncomingPhoneNumbers.json?PageSize=50                    {"incoming_phone_numbers":[…],"page":0,"next_page_uri":"…"|null,"previous_page_uri":…}
//	GET    …/IncomingPhoneNumbers.json?PhoneNumber=%2B1…              the same list, filtered (find)
//	GET    …/IncomingPhoneNumbers/{PN…}.json                          {"sid","phone_number","friendly_name","sms_url","sms_method","status_callback","sms_application_sid","capabilities":{"sms":true,…}}
//	POST   …/IncomingPhoneNumbers/{PN…}.json  SmsUrl, SmsMethod, StatusCallback, SmsApplicationSid
//	GET    …/AvailablePhoneNumbers/{country}/Local.json?AreaCode=…|InLocality=…&SmsEnabled=true&PageSize=20
//	                                                                  {"available_phone_numbers":[{"phone_number","locality","region",…}]}
//	POST   …/IncomingPhoneNumbers.json  PhoneNumber=+1…               buy: 201 and the number
//	DELETE …/IncomingPhoneNumbers/{PN…}.json                          release: 204
//	GET    {pricing}/v1/PhoneNumbers/Countries/{country}              {"phone_number_prices":[{"number_type":"local","base_price":"1.15","current_price":"1.15"}],"price_unit":"USD"}
//	4xx, 5xx → {"code":20003,"message":"Authenticate","more_info":"…","status":401}
const (
	// DefaultTwilioPricingURL is Twilio's Pricing API root (-twilio-pricing-url).
	DefaultTwilioPricingURL = "https://pricing.twilio.com"

	twilioPageSize = 50
	// Twilio's codes with a plain message of their own: the number was bought by someone else
	// meanwhile, and no number matches a search.
	twilioCodeNotAvailable = 21422
	twilioCodeNoNumbers    = 21452
)

// twilioNumbers is numberAPI over Twilio's account API.
type twilioNumbers struct {
	api     apiClient
	account string // {base}/2010-04-01/Accounts/{sid}
	path    string // /2010-04-01/Accounts/{sid}: the prefix of the page tokens Twilio gives
	base    string
	pricing string
}

var _ numberAPI = (*twilioNumbers)(nil)

func newTwilioNumbers(a TwilioAccount, base, pricing string, client *http.Client, cfg apiConfig) *twilioNumbers {
	user, pass := a.apiCredentials()
	path := "/2010-04-01/Accounts/" + url.PathEscape(a.AccountSID)
	return &twilioNumbers{
		api: apiClient{name: "Twilio", client: client, timeout: cfg.timeout, refusal: twilioRefusal,
			sign: func(r *http.Request) { r.SetBasicAuth(user, pass) }, secrets: []string{a.AuthToken, a.APIKeySecret}},
		account: base + path, path: path, base: base, pricing: pricing,
	}
}

// twilioRefusal reads Twilio's error answer.
func twilioRefusal(status int, body []byte) *APIError {
	e := &APIError{Kind: classifyStatus(status)}
	var ans struct {
		Code    json.Number `json:"code"`
		Message string      `json:"message"`
	}
	if json.Unmarshal(body, &ans) != nil {
		return e
	}
	e.Code, e.Detail = ans.Code.String(), strings.TrimSpace(ans.Message)
	switch code, _ := strconv.Atoi(e.Code); code {
	case 20003:
		e.Kind = KindAuth
	case 20404:
		e.Kind = KindNotFound
	case twilioCodeNotAvailable:
		e.Kind = KindTaken
	case twilioCodeNoNumbers:
		e.Kind = KindNoNumbers
	}
	return e
}

func (t *twilioNumbers) check(ctx context.Context) error {
	var acct struct {
		SID    string `json:"sid"`
		Status string `json:"status"`
	}
	if err := t.api.do(ctx, http.MethodGet, t.account+".json", "", nil, &acct); err != nil {
		return err
	}
	if acct.SID == "" {
		return t.api.garbage(http.StatusOK)
	}
	if acct.Status != "" && acct.Status != "active" {
		return &APIError{Carrier: "Twilio", Kind: KindRefused, Status: http.StatusOK, Detail: "the account is " + acct.Status}
	}
	return nil
}

func (t *twilioNumbers) list(ctx context.Context, page string) (NumberPage, error) {
	u := t.account + "/IncomingPhoneNumbers.json?PageSize=" + strconv.Itoa(twilioPageSize)
	if page != "" {
		if !t.ownPage(page) {
			return NumberPage{}, &APIError{Carrier: "Twilio", Kind: KindRefused, Detail: "that page is not one Twilio gave"}
		}
		u = t.base + page
	}
	var raw json.RawMessage
	if err := t.api.do(ctx, http.MethodGet, u, "", nil, &raw); err != nil {
		return NumberPage{}, err
	}
	p, err := decodeTwilioNumberList(raw)
	if err != nil {
		return NumberPage{}, t.api.garbage(http.StatusOK)
	}
	if !t.ownPage(p.Next) {
		p.Next = ""
	}
	if !t.ownPage(p.Prev) {
		p.Prev = ""
	}
	return p, nil
}

// ownPage reports whether a page token is a page of this account's numbers: only such paths
// are ever requested, whatever a form sends back.
func (t *twilioNumbers) ownPage(uri string) bool {
	return strings.HasPrefix(uri, t.path+"/IncomingPhoneNumbers.json?") && !strings.ContainsAny(uri, "#\\\r\n")
}

func (t *twilioNumbers) number(ctx context.Context, id string) (OwnedNumber, error) {
	var raw json.RawMessage
	if err := t.api.do(ctx, http.MethodGet, t.numberURL(id), "", nil, &raw); err != nil {
		return OwnedNumber{}, err
	}
	n, err := decodeTwilioNumber(raw)
	if err != nil {
		return OwnedNumber{}, t.api.garbage(http.StatusOK)
	}
	return n, nil
}

func (t *twilioNumbers) numberURL(id string) string {
	return t.account + "/IncomingPhoneNumbers/" + url.PathEscape(id) + ".json"
}

func (t *twilioNumbers) find(ctx context.Context, phone string) (OwnedNumber, bool, error) {
	var raw json.RawMessage
	u := t.account + "/IncomingPhoneNumbers.json?PhoneNumber=" + url.QueryEscape(phone)
	if err := t.api.do(ctx, http.MethodGet, u, "", nil, &raw); err != nil {
		return OwnedNumber{}, false, err
	}
	p, err := decodeTwilioNumberList(raw)
	if err != nil {
		return OwnedNumber{}, false, t.api.garbage(http.StatusOK)
	}
	// Twilio's filter matches parts of numbers too: only the number itself counts.
	for _, n := range p.Numbers {
		if n.Phone == phone {
			return n, true, nil
		}
	}
	return OwnedNumber{}, false, nil
}

func (t *twilioNumbers) search(ctx context.Context, q Search) ([]AvailableNumber, error) {
	v := url.Values{"SmsEnabled": {"true"}, "PageSize": {"20"}}
	if q.AreaCode != "" {
		v.Set("AreaCode", q.AreaCode)
	}
	if q.Locality != "" {
		v.Set("InLocality", q.Locality)
	}
	var raw json.RawMessage
	u := t.account + "/AvailablePhoneNumbers/" + url.PathEscape(q.Country) + "/Local.json?" + v.Encode()
	if err := t.api.do(ctx, http.MethodGet, u, "", nil, &raw); err != nil {
		return nil, err
	}
	found, err := decodeTwilioAvailable(raw)
	if err != nil {
		return nil, t.api.garbage(http.StatusOK)
	}
	if len(found) == 0 {
		return nil, &APIError{Carrier: "Twilio", Kind: KindNoNumbers, Status: http.StatusOK}
	}
	price, err := t.price(ctx, q.Country)
	if err != nil {
		return nil, err
	}
	for i := range found {
		found[i].Monthly = price
	}
	return found, nil
}

// price is Twilio's monthly price of a local number in country, from the Pricing API.
func (t *twilioNumbers) price(ctx context.Context, country string) (Price, error) {
	var raw json.RawMessage
	if err := t.api.do(ctx, http.MethodGet, t.pricing+"/v1/PhoneNumbers/Countries/"+url.PathEscape(country), "", nil, &raw); err != nil {
		return Price{}, err
	}
	p, ok, err := decodeTwilioPrice(raw, "local")
	if err != nil || !ok {
		return Price{}, &APIError{Carrier: "Twilio", Kind: KindGarbage, Status: http.StatusOK}
	}
	return p, nil
}

// quote is the price Twilio asks for phone now. Twilio quotes by country and kind of number, so
// whether this one is still for sale shows only when it is bought.
func (t *twilioNumbers) quote(ctx context.Context, phone string) (AvailableNumber, bool, error) {
	p, err := t.price(ctx, regionOf(phone))
	if err != nil {
		return AvailableNumber{}, false, err
	}
	return AvailableNumber{Phone: phone, Monthly: p}, true, nil
}

func (t *twilioNumbers) buy(ctx context.Context, phone string) (OwnedNumber, error) {
	var raw json.RawMessage
	form := url.Values{"PhoneNumber": {phone}}
	if err := t.api.do(ctx, http.MethodPost, t.account+"/IncomingPhoneNumbers.json", formType, strings.NewReader(form.Encode()), &raw); err != nil {
		return OwnedNumber{}, err
	}
	n, err := decodeTwilioNumber(raw)
	if err != nil {
		return OwnedNumber{}, t.api.garbage(http.StatusCreated)
	}
	return n, nil
}

func (t *twilioNumbers) ours(_ context.Context, base, _ string) (Wiring, error) {
	return Wiring{SMSURL: base + "/carrier/twilio/sms", SMSMethod: http.MethodPost, StatusURL: base + "/carrier/twilio/status"}, nil
}

func (t *twilioNumbers) setWiring(ctx context.Context, id string, w Wiring) error {
	form := url.Values{"SmsUrl": {w.SMSURL}, "StatusCallback": {w.StatusURL}, "SmsApplicationSid": {w.AppSID}}
	if w.SMSMethod != "" { // Twilio takes GET or POST only; an empty one keeps what is there
		form.Set("SmsMethod", w.SMSMethod)
	}
	return t.api.do(ctx, http.MethodPost, t.numberURL(id), formType, strings.NewReader(form.Encode()), nil)
}

func (t *twilioNumbers) problem(got Wiring, base string) string {
	want, _ := t.ours(context.Background(), base, "")
	switch {
	case got.AppSID != "":
		return "its texts go to the TwiML app " + got.AppSID + ", not to Switchboard"
	case got.SMSURL == "":
		return "it has no messaging webhook: texts to it reach nobody"
	case got.SMSURL != want.SMSURL:
		return "its texts go to " + got.SMSURL + ", not to Switchboard"
	case !strings.EqualFold(got.SMSMethod, want.SMSMethod):
		return "Twilio sends its texts with " + got.SMSMethod + " instead of POST"
	case got.StatusURL != want.StatusURL && got.StatusURL == "":
		return "it has no status callback"
	case got.StatusURL != want.StatusURL:
		return "its status callback goes to " + got.StatusURL + ", not to Switchboard"
	}
	return ""
}

func (t *twilioNumbers) release(ctx context.Context, id string) error {
	return t.api.do(ctx, http.MethodDelete, t.numberURL(id), "", nil, nil)
}

const formType = "application/x-www-form-urlencoded"

// twilioNumberJSON is an IncomingPhoneNumber resource, the fields Switchboard reads.
type twilioNumberJSON struct {
	SID            string `json:"sid"`
	PhoneNumber    string `json:"phone_number"`
	FriendlyName   string `json:"friendly_name"`
	SMSURL         string `json:"sms_url"`
	SMSMethod      string `json:"sms_method"`
	StatusCallback string `json:"status_callback"`
	SMSApplication string `json:"sms_application_sid"`
	Capabilities   *struct {
		SMS *bool `json:"sms"`
	} `json:"capabilities"`
}

// owned is the resource as an OwnedNumber; false when it lacks a sid or an E.164 number.
func (j twilioNumberJSON) owned() (OwnedNumber, bool) {
	if j.SID == "" || !validE164(j.PhoneNumber) {
		return OwnedNumber{}, false
	}
	n := OwnedNumber{ID: j.SID, Phone: j.PhoneNumber, Name: clip(j.FriendlyName, 64),
		Wiring: Wiring{SMSURL: j.SMSURL, SMSMethod: j.SMSMethod, StatusURL: j.StatusCallback, AppSID: j.SMSApplication}}
	if j.Capabilities != nil && j.Capabilities.SMS != nil && !*j.Capabilities.SMS {
		n.NoSMS = true
	}
	return n, true
}

// decodeTwilioNumber reads one IncomingPhoneNumber resource.
func decodeTwilioNumber(body []byte) (OwnedNumber, error) {
	var j twilioNumberJSON
	if err := json.Unmarshal(body, &j); err != nil {
		return OwnedNumber{}, err
	}
	n, ok := j.owned()
	if !ok {
		return OwnedNumber{}, errUnreadable
	}
	return n, nil
}

// decodeTwilioNumberList reads a page of IncomingPhoneNumbers; entries without a sid or an
// E.164 number are left out.
func decodeTwilioNumberList(body []byte) (NumberPage, error) {
	var j struct {
		Numbers []twilioNumberJSON `json:"incoming_phone_numbers"`
		Page    int                `json:"page"`
		Next    *string            `json:"next_page_uri"`
		Prev    *string            `json:"previous_page_uri"`
	}
	if err := json.Unmarshal(body, &j); err != nil {
		return NumberPage{}, err
	}
	if j.Numbers == nil {
		return NumberPage{}, errUnreadable
	}
	p := NumberPage{Page: max(j.Page, 0) + 1}
	if j.Page < 0 || j.Page > 1_000_000 {
		p.Page = 1
	}
	if j.Next != nil {
		p.Next = *j.Next
	}
	if j.Prev != nil {
		p.Prev = *j.Prev
	}
	for _, raw := range j.Numbers {
		if n, ok := raw.owned(); ok {
			p.Numbers = append(p.Numbers, n)
		}
	}
	return p, nil
}

// decodeTwilioAvailable reads a page of AvailablePhoneNumbers.
func decodeTwilioAvailable(body []byte) ([]AvailableNumber, error) {
	var j struct {
		Numbers *[]struct {
			PhoneNumber string `json:"phone_number"`
			Locality    string `json:"locality"`
			Region      string `json:"region"`
		} `json:"available_phone_numbers"`
	}
	if err := json.Unmarshal(body, &j); err != nil {
		return nil, err
	}
	if j.Numbers == nil {
		return nil, errUnreadable
	}
	var out []AvailableNumber
	for _, n := range *j.Numbers {
		if validE164(n.PhoneNumber) {
			out = append(out, AvailableNumber{Phone: n.PhoneNumber, Locality: clip(n.Locality, 64), Region: clip(n.Region, 32)})
		}
	}
	return out, nil
}

// decodeTwilioPrice reads a Pricing API country and returns the price of numbers of kind
// (current_price, else base_price); false when the country has none.
func decodeTwilioPrice(body []byte, kind string) (Price, bool, error) {
	var j struct {
		Prices []struct {
			NumberType   string          `json:"number_type"`
			BasePrice    json.RawMessage `json:"base_price"`
			CurrentPrice json.RawMessage `json:"current_price"`
		} `json:"phone_number_prices"`
		Unit string `json:"price_unit"`
	}
	if err := json.Unmarshal(body, &j); err != nil {
		return Price{}, false, err
	}
	for _, p := range j.Prices {
		if !strings.EqualFold(p.NumberType, kind) {
			continue
		}
		amount := decimal(p.CurrentPrice)
		if amount == "" {
			amount = decimal(p.BasePrice)
		}
		if amount == "" {
			return Price{}, false, nil
		}
		return Price{Amount: amount, Currency: currency(j.Unit)}, true, nil
	}
	return Price{}, false, nil
}

// decimal reads an amount Twilio or Telnyx sends as a string ("1.15") or a number (1.15), and
// keeps it only when it is a plain non-negative decimal.
func decimal(raw json.RawMessage) string {
	var s string
	if json.Unmarshal(raw, &s) != nil {
		var n json.Number
		if json.Unmarshal(raw, &n) != nil {
			return ""
		}
		s = n.String()
	}
	s = strings.TrimSpace(s)
	if s == "" || len(s) > 16 {
		return ""
	}
	dot := false
	for i, c := range s {
		switch {
		case c >= '0' && c <= '9':
		case c == '.' && !dot && i > 0 && i < len(s)-1:
			dot = true
		default:
			return ""
		}
	}
	return s
}

// currency keeps an ISO 4217 code (three letters), upper case; anything else is "".
func currency(s string) string {
	s = strings.ToUpper(strings.TrimSpace(s))
	if len(s) != 3 {
		return ""
	}
	for _, c := range s {
		if c < 'A' || c > 'Z' {
			return ""
		}
	}
	return s
}
