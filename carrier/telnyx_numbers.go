package carrier

import (
	"bytes"
	"context"
	"encoding/json"
	"net/http"
	"net/url"
	"strconv"
)

// Telnyx's v2 account API as Switchboard uses it, Authorization: Bearer {API key}, JSON both ways:
//
//	GET    /v2/balance                                             the account (check)
//	GET    /v2/phone_numbers?page[number]=N&page[size]=50          {"data":[{"id","phone_number","messaging_profile_id",…}],"meta":{"page_number","total_pages",…}}
//	GET    /v2/phone_numbers?filter[phone_number]=+1…              the same list, filtered (find)
//	GET    /v2/phone_numbers/{id}/messaging                        {"data":{"id","phone_number","messaging_profile_id",…}}
//	PATCH  /v2/phone_numbers/{id}/messaging  {"messaging_profile_id":"…"}   ("" takes it out of its profile)
//	GET    /v2/messaging_profiles/{id}                             {"data":{"id","name","webhook_url",…}}
//	GET    /v2/messaging_profiles?page[number]=N&page[size]=250    the profiles, to find the one that posts to us
//	POST   /v2/messaging_profiles  {"name","whitelisted_destinations","webhook_url","webhook_api_version":"2"}
//	PATCH  /v2/messaging_profiles/{id}  {"webhook_url":"…"}
//	GET    /v2/available_phone_numbers?filter[country_code]=US&filter[national_destination_code]=415|filter[locality]=…&filter[features]=sms&filter[limit]=20
//	       {"data":[{"phone_number","region_information":[{"region_type","region_name"}],"cost_information":{"monthly_cost","upfront_cost","currency"}}]}
//	POST   /v2/number_orders  {"phone_numbers":[{"phone_number":"+1…"}]}   {"data":{"id","status","phone_numbers":[…]}}
//	DELETE /v2/phone_numbers/{id}
//	4xx, 5xx → {"errors":[{"code":"10009","title":"Authentication failed","detail":"…"}]}
const (
	telnyxPageSize = 50
	// telnyxProfileName names the messaging profile Switchboard makes for the numbers it wires.
	telnyxProfileName = "Switchboard"
	// telnyxProfilePages bounds the search for our profile among the account's profiles.
	telnyxProfilePages = 20
)

// ErrOrderPending is a Telnyx order accepted but not active yet: the number appears among the
// account's numbers once Telnyx has activated it.
var ErrOrderPending = &APIError{Carrier: "Telnyx", Kind: KindRefused,
	Detail: "the order is accepted but the number is not active yet; it appears under Add a number once Telnyx has activated it"}

// telnyxNumbers is numberAPI over Telnyx's v2 API.
type telnyxNumbers struct {
	api  apiClient
	base string // {base}/v2
}

var _ numberAPI = (*telnyxNumbers)(nil)

func newTelnyxNumbers(a TelnyxAccount, base string, client *http.Client, cfg apiConfig) *telnyxNumbers {
	key := a.APIKey
	return &telnyxNumbers{
		api: apiClient{name: "Telnyx", client: client, timeout: cfg.timeout, refusal: telnyxRefusal,
			sign: func(r *http.Request) { r.Header.Set("Authorization", "Bearer "+key) }, secrets: []string{key}},
		base: base + "/v2",
	}
}

// telnyxRefusal reads Telnyx's error answer: its first error says what happened.
func telnyxRefusal(status int, body []byte) *APIError {
	e := &APIError{Kind: classifyStatus(status)}
	if first, ok := firstTelnyxError(body); ok {
		e.Code, e.Detail = first.Code, first.Title
		switch first.Code {
		case "10009":
			e.Kind = KindAuth
		case "10005":
			e.Kind = KindNotFound
		}
	}
	return e
}

func (t *telnyxNumbers) check(ctx context.Context) error {
	var ans struct {
		Data *struct {
			Currency string `json:"currency"`
		} `json:"data"`
	}
	if err := t.api.do(ctx, http.MethodGet, t.base+"/balance", "", nil, &ans); err != nil {
		return err
	}
	if ans.Data == nil {
		return t.api.garbage(http.StatusOK)
	}
	return nil
}

func (t *telnyxNumbers) list(ctx context.Context, page string) (NumberPage, error) {
	n := 1
	if page != "" {
		var err error
		if n, err = strconv.Atoi(page); err != nil || n < 1 || n > 1_000_000 {
			return NumberPage{}, &APIError{Carrier: "Telnyx", Kind: KindRefused, Detail: "that page does not exist"}
		}
	}
	u := t.base + "/phone_numbers?page[number]=" + strconv.Itoa(n) + "&page[size]=" + strconv.Itoa(telnyxPageSize)
	var raw json.RawMessage
	if err := t.api.do(ctx, http.MethodGet, u, "", nil, &raw); err != nil {
		return NumberPage{}, err
	}
	p, err := decodeTelnyxNumberList(raw)
	if err != nil {
		return NumberPage{}, t.api.garbage(http.StatusOK)
	}
	return p, nil
}

func (t *telnyxNumbers) number(ctx context.Context, id string) (OwnedNumber, error) {
	var raw json.RawMessage
	if err := t.api.do(ctx, http.MethodGet, t.base+"/phone_numbers/"+url.PathEscape(id)+"/messaging", "", nil, &raw); err != nil {
		return OwnedNumber{}, err
	}
	n, err := decodeTelnyxNumber(raw)
	if err != nil {
		return OwnedNumber{}, t.api.garbage(http.StatusOK)
	}
	if n.Wiring.ProfileID != "" {
		prof, err := t.profile(ctx, n.Wiring.ProfileID)
		if err != nil && !IsKind(err, KindNotFound) {
			return OwnedNumber{}, err
		}
		n.Wiring.SMSURL = prof.WebhookURL // a profile deleted meanwhile posts nowhere
	}
	return n, nil
}

func (t *telnyxNumbers) find(ctx context.Context, phone string) (OwnedNumber, bool, error) {
	var raw json.RawMessage
	u := t.base + "/phone_numbers?filter[phone_number]=" + url.QueryEscape(phone)
	if err := t.api.do(ctx, http.MethodGet, u, "", nil, &raw); err != nil {
		return OwnedNumber{}, false, err
	}
	p, err := decodeTelnyxNumberList(raw)
	if err != nil {
		return OwnedNumber{}, false, t.api.garbage(http.StatusOK)
	}
	for _, n := range p.Numbers {
		if n.Phone == phone {
			full, err := t.number(ctx, n.ID)
			return full, err == nil, err
		}
	}
	return OwnedNumber{}, false, nil
}

func (t *telnyxNumbers) search(ctx context.Context, q Search) ([]AvailableNumber, error) {
	v := url.Values{"filter[country_code]": {q.Country}, "filter[features]": {"sms"}, "filter[limit]": {"20"}}
	if q.AreaCode != "" {
		v.Set("filter[national_destination_code]", q.AreaCode)
	}
	if q.Locality != "" {
		v.Set("filter[locality]", q.Locality)
	}
	found, err := t.available(ctx, v)
	if err == nil && len(found) == 0 {
		err = &APIError{Carrier: "Telnyx", Kind: KindNoNumbers, Status: http.StatusOK}
	}
	return found, err
}

func (t *telnyxNumbers) available(ctx context.Context, v url.Values) ([]AvailableNumber, error) {
	var raw json.RawMessage
	if err := t.api.do(ctx, http.MethodGet, t.base+"/available_phone_numbers?"+v.Encode(), "", nil, &raw); err != nil {
		return nil, err
	}
	found, err := decodeTelnyxAvailable(raw)
	if err != nil {
		return nil, t.api.garbage(http.StatusOK)
	}
	return found, nil
}

// quote searches for phone itself: Telnyx quotes each number, and one no longer listed is sold.
func (t *telnyxNumbers) quote(ctx context.Context, phone string) (AvailableNumber, bool, error) {
	country := regionOf(phone)
	digits := nationalDigits(phone)
	v := url.Values{"filter[country_code]": {country}, "filter[phone_number][contains]": {digits}, "filter[limit]": {"5"}}
	found, err := t.available(ctx, v)
	if err != nil {
		return AvailableNumber{}, false, err
	}
	for _, a := range found {
		if a.Phone == phone {
			return a, true, nil
		}
	}
	return AvailableNumber{}, false, nil
}

func (t *telnyxNumbers) buy(ctx context.Context, phone string) (OwnedNumber, error) {
	body, _ := json.Marshal(map[string]any{"phone_numbers": []map[string]string{{"phone_number": phone}}})
	var ans struct {
		Data *struct {
			Status string `json:"status"`
		} `json:"data"`
	}
	if err := t.api.do(ctx, http.MethodPost, t.base+"/number_orders", "application/json", bytes.NewReader(body), &ans); err != nil {
		return OwnedNumber{}, err
	}
	if ans.Data == nil {
		return OwnedNumber{}, t.api.garbage(http.StatusOK)
	}
	if ans.Data.Status == "failure" {
		return OwnedNumber{}, &APIError{Carrier: "Telnyx", Kind: KindTaken, Status: http.StatusOK}
	}
	n, ok, err := t.find(ctx, phone)
	if err != nil {
		return OwnedNumber{}, err
	}
	if !ok {
		return OwnedNumber{}, ErrOrderPending
	}
	return n, nil
}

// telnyxProfile is a messaging profile, the fields Switchboard reads.
type telnyxProfile struct {
	ID         string `json:"id"`
	Name       string `json:"name"`
	WebhookURL string `json:"webhook_url"`
}

func (t *telnyxNumbers) profile(ctx context.Context, id string) (telnyxProfile, error) {
	var ans struct {
		Data telnyxProfile `json:"data"`
	}
	if err := t.api.do(ctx, http.MethodGet, t.base+"/messaging_profiles/"+url.PathEscape(id), "", nil, &ans); err != nil {
		return telnyxProfile{}, err
	}
	if ans.Data.ID == "" {
		return telnyxProfile{}, t.api.garbage(http.StatusOK)
	}
	return ans.Data, nil
}

// ours finds the account's messaging profile that posts to base, or makes one: Switchboard
// keeps no state at Telnyx it could lose, the webhook URL is what marks the profile as its own.
func (t *telnyxNumbers) ours(ctx context.Context, base, phone string) (Wiring, error) {
	hook := base + "/carrier/telnyx/webhook"
	for page := 1; page <= telnyxProfilePages; page++ {
		var ans struct {
			Data []telnyxProfile `json:"data"`
			Meta struct {
				TotalPages int `json:"total_pages"`
			} `json:"meta"`
		}
		u := t.base + "/messaging_profiles?page[number]=" + strconv.Itoa(page) + "&page[size]=250"
		if err := t.api.do(ctx, http.MethodGet, u, "", nil, &ans); err != nil {
			return Wiring{}, err
		}
		for _, p := range ans.Data {
			if p.ID != "" && p.WebhookURL == hook {
				return Wiring{ProfileID: p.ID, SMSURL: hook}, nil
			}
		}
		if page >= ans.Meta.TotalPages {
			break
		}
	}
	countries := []string{"US"}
	if c := regionOf(phone); c != "" {
		countries = []string{c}
	}
	body, _ := json.Marshal(map[string]any{"name": telnyxProfileName, "whitelisted_destinations": countries,
		"webhook_url": hook, "webhook_api_version": "2"})
	var made struct {
		Data telnyxProfile `json:"data"`
	}
	if err := t.api.do(ctx, http.MethodPost, t.base+"/messaging_profiles", "application/json", bytes.NewReader(body), &made); err != nil {
		return Wiring{}, err
	}
	if made.Data.ID == "" {
		return Wiring{}, t.api.garbage(http.StatusOK)
	}
	return Wiring{ProfileID: made.Data.ID, SMSURL: hook}, nil
}

func (t *telnyxNumbers) setWiring(ctx context.Context, id string, w Wiring) error {
	body, _ := json.Marshal(map[string]string{"messaging_profile_id": w.ProfileID})
	return t.api.do(ctx, http.MethodPatch, t.base+"/phone_numbers/"+url.PathEscape(id)+"/messaging", "application/json", bytes.NewReader(body), nil)
}

func (t *telnyxNumbers) problem(got Wiring, base string) string {
	switch hook := base + "/carrier/telnyx/webhook"; {
	case got.ProfileID == "":
		return "it is in no messaging profile: texts to it reach nobody"
	case got.SMSURL == "":
		return "its messaging profile has no webhook: texts to it reach nobody"
	case got.SMSURL != hook:
		return "its texts go to " + got.SMSURL + ", not to Switchboard"
	}
	return ""
}

func (t *telnyxNumbers) release(ctx context.Context, id string) error {
	return t.api.do(ctx, http.MethodDelete, t.base+"/phone_numbers/"+url.PathEscape(id), "", nil, nil)
}

// telnyxNumberJSON is a phone number as Telnyx lists it or shows its messaging settings.
type telnyxNumberJSON struct {
	ID        string  `json:"id"`
	Phone     string  `json:"phone_number"`
	Reference string  `json:"customer_reference"`
	ProfileID *string `json:"messaging_profile_id"`
}

func (j telnyxNumberJSON) owned() (OwnedNumber, bool) {
	if j.ID == "" || !validE164(j.Phone) {
		return OwnedNumber{}, false
	}
	n := OwnedNumber{ID: j.ID, Phone: j.Phone, Name: clip(j.Reference, 64)}
	if j.ProfileID != nil {
		n.Wiring.ProfileID = *j.ProfileID
	}
	return n, true
}

// decodeTelnyxNumber reads a number's messaging settings ({"data":{…}}).
func decodeTelnyxNumber(body []byte) (OwnedNumber, error) {
	var j struct {
		Data telnyxNumberJSON `json:"data"`
	}
	if err := json.Unmarshal(body, &j); err != nil {
		return OwnedNumber{}, err
	}
	n, ok := j.Data.owned()
	if !ok {
		return OwnedNumber{}, errUnreadable
	}
	return n, nil
}

// decodeTelnyxNumberList reads a page of phone numbers; entries without an id or an E.164
// number are left out. Next and Prev are page numbers.
func decodeTelnyxNumberList(body []byte) (NumberPage, error) {
	var j struct {
		Data *[]telnyxNumberJSON `json:"data"`
		Meta struct {
			PageNumber int `json:"page_number"`
			TotalPages int `json:"total_pages"`
		} `json:"meta"`
	}
	if err := json.Unmarshal(body, &j); err != nil {
		return NumberPage{}, err
	}
	if j.Data == nil {
		return NumberPage{}, errUnreadable
	}
	p := NumberPage{Page: j.Meta.PageNumber}
	if p.Page < 1 || p.Page > 1_000_000 {
		p.Page = 1
	}
	if p.Page < j.Meta.TotalPages {
		p.Next = strconv.Itoa(p.Page + 1)
	}
	if p.Page > 1 {
		p.Prev = strconv.Itoa(p.Page - 1)
	}
	for _, raw := range *j.Data {
		if n, ok := raw.owned(); ok {
			p.Numbers = append(p.Numbers, n)
		}
	}
	return p, nil
}

// decodeTelnyxAvailable reads a search for numbers for sale, each with its monthly cost.
func decodeTelnyxAvailable(body []byte) ([]AvailableNumber, error) {
	var j struct {
		Data *[]struct {
			Phone   string `json:"phone_number"`
			Regions []struct {
				Type string `json:"region_type"`
				Name string `json:"region_name"`
			} `json:"region_information"`
			Cost struct {
				Monthly  json.RawMessage `json:"monthly_cost"`
				Currency string          `json:"currency"`
			} `json:"cost_information"`
		} `json:"data"`
	}
	if err := json.Unmarshal(body, &j); err != nil {
		return nil, err
	}
	if j.Data == nil {
		return nil, errUnreadable
	}
	var out []AvailableNumber
	for _, d := range *j.Data {
		amount := decimal(d.Cost.Monthly)
		if !validE164(d.Phone) || amount == "" {
			continue // a number without a quoted price cannot be confirmed, so it is not offered
		}
		a := AvailableNumber{Phone: d.Phone, Monthly: Price{Amount: amount, Currency: currency(d.Cost.Currency)}}
		for _, r := range d.Regions {
			switch r.Type {
			case "rate_center", "location":
				if a.Locality == "" {
					a.Locality = clip(r.Name, 64)
				}
			case "state":
				a.Region = clip(r.Name, 32)
			}
		}
		out = append(out, a)
	}
	return out, nil
}
