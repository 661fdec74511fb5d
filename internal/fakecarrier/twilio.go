package fakecarrier

import (
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"net/url"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"
)

// TwilioNumber is a number of the fake Twilio account.
type TwilioNumber struct {
	SID, Phone, FriendlyName            string
	SMSURL, SMSMethod, StatusCallback   string
	SMSApplicationSID, Locality, Region string
	NoSMS                               bool
}

// Twilio is a fake of api.twilio.com and pricing.twilio.com for one account: Basic auth with the
// Account SID and Auth Token, or with the API key, on /2010-04-01/Accounts/{AccountSID}/….
type Twilio struct {
	recorder
	Srv                     *httptest.Server
	AccountSID, AuthToken   string
	APIKeySID, APIKeySecret string
	// Price is the monthly price of a local number, in USD.
	Price string
	// Now dates the messages (nil: time.Now); set it before the fake is used.
	Now func() time.Time

	numbers   []*TwilioNumber
	available []TwilioNumber
	sent      []url.Values
	messages  []*TwilioMessage
	nextSID   int
}

// NewTwilio starts a fake Twilio; it stops with the test.
func NewTwilio(t testing.TB, accountSID, authToken string) *Twilio {
	f := &Twilio{AccountSID: accountSID, AuthToken: authToken, Price: "1.15"}
	f.Srv = httptest.NewServer(http.HandlerFunc(f.serve))
	t.Cleanup(f.Srv.Close)
	return f
}

// URL is the fake's root: both -twilio-base-url and -twilio-pricing-url.
func (f *Twilio) URL() string { return f.Srv.URL }

// Own gives the account a number, returning it.
func (f *Twilio) Own(n TwilioNumber) *TwilioNumber {
	f.mu.Lock()
	defer f.mu.Unlock()
	if n.SID == "" {
		f.nextSID++
		n.SID = fmt.Sprintf("PN%032x", 0xa000+f.nextSID)
	}
	if n.FriendlyName == "" {
		n.FriendlyName = n.Phone
	}
	if n.SMSMethod == "" {
		n.SMSMethod = "POST"
	}
	p := &n
	f.numbers = append(f.numbers, p)
	return p
}

// Offer puts numbers up for sale.
func (f *Twilio) Offer(ns ...TwilioNumber) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.available = append(f.available, ns...)
}

// TakeAway sells phone to someone else: buying it is then refused.
func (f *Twilio) TakeAway(phone string) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.available = slices.DeleteFunc(f.available, func(a TwilioNumber) bool { return a.Phone == phone })
}

// Number is the account's number with that phone, as it is now (false when there is none).
func (f *Twilio) Number(phone string) (TwilioNumber, bool) {
	f.mu.Lock()
	defer f.mu.Unlock()
	for _, n := range f.numbers {
		if n.Phone == phone {
			return *n, true
		}
	}
	return TwilioNumber{}, false
}

// SetWebhook changes a number's SmsUrl at the "console", behind Switchboard's back.
func (f *Twilio) SetWebhook(phone, smsURL string) {
	f.mu.Lock()
	defer f.mu.Unlock()
	for _, n := range f.numbers {
		if n.Phone == phone {
			n.SMSURL = smsURL
		}
	}
}

// Sent are the Messages API sends accepted so far.
func (f *Twilio) Sent() []url.Values {
	f.mu.Lock()
	defer f.mu.Unlock()
	return append([]url.Values(nil), f.sent...)
}

func (f *Twilio) serve(w http.ResponseWriter, r *http.Request) {
	_ = r.ParseForm()
	user, pass, _ := r.BasicAuth()
	ok := (user == f.AccountSID && pass == f.AuthToken && f.AuthToken != "") ||
		(f.APIKeySID != "" && user == f.APIKeySID && pass == f.APIKeySecret)
	form := url.Values{}
	if r.Method == http.MethodPost {
		form = r.PostForm
	}
	f.record(Request{Method: r.Method, Path: r.URL.Path, Query: r.URL.Query(), Form: form, User: user, OK: ok, At: time.Now()})
	w.Header().Set("Content-Type", "application/json")

	if rest, found := strings.CutPrefix(r.URL.Path, "/v1/PhoneNumbers/Countries/"); found {
		if !ok {
			f.unauthorized(w)
			return
		}
		if !f.fault("pricing", w, r) {
			f.pricing(w, rest)
		}
		return
	}
	prefix := "/2010-04-01/Accounts/" + f.AccountSID
	rest, found := strings.CutPrefix(r.URL.Path, prefix)
	if !found {
		if strings.HasPrefix(r.URL.Path, "/2010-04-01/Accounts/") {
			f.unauthorized(w) // another account's path: Twilio answers 401, not 404
			return
		}
		f.notFound(w, r.URL.Path)
		return
	}
	if !ok {
		f.unauthorized(w)
		return
	}
	switch {
	case rest == ".json" && r.Method == http.MethodGet:
		if !f.fault("account", w, r) {
			writeJSON(w, 200, map[string]any{"sid": f.AccountSID, "friendly_name": "Acme Dental", "status": "active", "type": "Full",
				"date_created": "Thu, 01 Feb 2024 10:00:00 +0000", "uri": prefix + ".json"})
		}
	case rest == "/IncomingPhoneNumbers.json" && r.Method == http.MethodGet:
		if !f.fault("list", w, r) {
			f.list(w, r, prefix)
		}
	case rest == "/IncomingPhoneNumbers.json" && r.Method == http.MethodPost:
		if !f.fault("buy", w, r) {
			f.buy(w, r.PostForm.Get("PhoneNumber"))
		}
	case strings.HasPrefix(rest, "/IncomingPhoneNumbers/") && strings.HasSuffix(rest, ".json"):
		sid := strings.TrimSuffix(strings.TrimPrefix(rest, "/IncomingPhoneNumbers/"), ".json")
		route := map[string]string{http.MethodGet: "number", http.MethodPost: "update", http.MethodDelete: "release"}[r.Method]
		if !f.fault(route, w, r) {
			f.one(w, r, sid)
		}
	case strings.HasPrefix(rest, "/AvailablePhoneNumbers/") && strings.HasSuffix(rest, "/Local.json"):
		if !f.fault("search", w, r) {
			f.search(w, r, strings.TrimSuffix(strings.TrimPrefix(rest, "/AvailablePhoneNumbers/"), "/Local.json"))
		}
	case rest == "/Messages.json" && r.Method == http.MethodPost:
		if !f.fault("messages", w, r) {
			f.mu.Lock()
			f.sent = append(f.sent, r.PostForm)
			m := &TwilioMessage{SID: fmt.Sprintf("SM%032x", len(f.sent)), From: r.PostForm.Get("From"), To: r.PostForm.Get("To"),
				Body: r.PostForm.Get("Body"), Direction: "outbound-api", Status: "queued", DateSent: f.now().UTC()}
			f.messages = append(f.messages, m)
			res := f.messageResource(m)
			f.mu.Unlock()
			writeJSON(w, 201, res)
		}
	case rest == "/Messages.json" && r.Method == http.MethodGet:
		if !f.fault("messages-list", w, r) {
			f.listMessages(w, r, prefix)
		}
	case strings.HasPrefix(rest, "/Messages/") && r.Method == http.MethodGet:
		route := "message"
		if strings.Contains(rest, "/Media") {
			route = "media"
		}
		if !f.fault(route, w, r) {
			f.oneMessage(w, r, prefix, strings.TrimPrefix(rest, "/Messages/"))
		}
	default:
		f.notFound(w, r.URL.Path)
	}
}

func (f *Twilio) unauthorized(w http.ResponseWriter) {
	writeJSON(w, 401, map[string]any{"code": 20003, "message": "Authenticate", "more_info": "https://www.twilio.com/docs/errors/20003", "status": 401})
}

func (f *Twilio) notFound(w http.ResponseWriter, path string) {
	writeJSON(w, 404, map[string]any{"code": 20404, "message": "The requested resource " + path + " was not found",
		"more_info": "https://www.twilio.com/docs/errors/20404", "status": 404})
}

// resource is a number as Twilio's IncomingPhoneNumber resource.
func (f *Twilio) resource(n *TwilioNumber) map[string]any {
	return map[string]any{
		"account_sid": f.AccountSID, "sid": n.SID, "phone_number": n.Phone, "friendly_name": n.FriendlyName,
		"sms_url": n.SMSURL, "sms_method": n.SMSMethod, "sms_fallback_url": "", "sms_fallback_method": "POST",
		"sms_application_sid": n.SMSApplicationSID, "status_callback": n.StatusCallback, "status_callback_method": "POST",
		"voice_url": "", "voice_method": "POST", "api_version": "2010-04-01", "origin": "twilio", "status": "in-use",
		"capabilities": map[string]bool{"voice": true, "sms": !n.NoSMS, "mms": !n.NoSMS, "fax": false},
		"date_created": "Thu, 01 Feb 2024 10:00:00 +0000", "date_updated": "Thu, 01 Feb 2024 10:00:00 +0000",
		"uri": "/2010-04-01/Accounts/" + f.AccountSID + "/IncomingPhoneNumbers/" + n.SID + ".json",
	}
}

// list answers one page, Twilio's way: PageSize (default 50), Page, and the next and previous
// pages as URIs with a PageToken.
func (f *Twilio) list(w http.ResponseWriter, r *http.Request, prefix string) {
	q := r.URL.Query()
	size, _ := strconv.Atoi(q.Get("PageSize"))
	if size <= 0 || size > 1000 {
		size = 50
	}
	page, _ := strconv.Atoi(q.Get("Page"))
	f.mu.Lock()
	var match []*TwilioNumber
	for _, n := range f.numbers {
		if p := q.Get("PhoneNumber"); p == "" || strings.Contains(n.Phone, strings.TrimPrefix(p, "+")) {
			match = append(match, n)
		}
	}
	items := []map[string]any{}
	for i := page * size; i < len(match) && i < (page+1)*size; i++ {
		items = append(items, f.resource(match[i]))
	}
	f.mu.Unlock()
	base := prefix + "/IncomingPhoneNumbers.json"
	pageURI := func(p int) string {
		v := url.Values{"PageSize": {strconv.Itoa(size)}, "Page": {strconv.Itoa(p)}}
		if p > 0 {
			v.Set("PageToken", fmt.Sprintf("PAPN%032x", p*size))
		}
		return base + "?" + v.Encode()
	}
	var next, prev any
	if (page+1)*size < len(match) {
		next = pageURI(page + 1)
	}
	if page > 0 {
		prev = pageURI(page - 1)
	}
	writeJSON(w, 200, map[string]any{"incoming_phone_numbers": items, "page": page, "page_size": size, "start": page * size,
		"end": page*size + len(items) - 1, "first_page_uri": pageURI(0), "next_page_uri": next, "previous_page_uri": prev,
		"uri": r.URL.RequestURI()})
}

func (f *Twilio) one(w http.ResponseWriter, r *http.Request, sid string) {
	f.mu.Lock()
	defer f.mu.Unlock()
	for i, n := range f.numbers {
		if n.SID != sid {
			continue
		}
		switch r.Method {
		case http.MethodDelete:
			f.numbers = append(f.numbers[:i], f.numbers[i+1:]...)
			w.WriteHeader(http.StatusNoContent)
			return
		case http.MethodPost:
			if m := r.PostForm.Get("SmsMethod"); r.PostForm.Has("SmsMethod") && m != "GET" && m != "POST" {
				writeJSON(w, 400, map[string]any{"code": 21405, "message": "SmsMethod must be GET or POST", "more_info": "https://www.twilio.com/docs/errors/21405", "status": 400})
				return
			}
			set := func(field string, to *string) {
				if r.PostForm.Has(field) {
					*to = r.PostForm.Get(field)
				}
			}
			set("SmsUrl", &n.SMSURL)
			set("SmsMethod", &n.SMSMethod)
			set("StatusCallback", &n.StatusCallback)
			set("SmsApplicationSid", &n.SMSApplicationSID)
			set("FriendlyName", &n.FriendlyName)
		}
		writeJSON(w, 200, f.resource(n))
		return
	}
	f.notFound(w, r.URL.Path)
}

func (f *Twilio) search(w http.ResponseWriter, r *http.Request, country string) {
	q := r.URL.Query()
	f.mu.Lock()
	items := []map[string]any{}
	for _, a := range f.available {
		if code := q.Get("AreaCode"); code != "" && !strings.HasPrefix(a.Phone, "+1"+code) {
			continue
		}
		if loc := q.Get("InLocality"); loc != "" && !strings.EqualFold(loc, a.Locality) {
			continue
		}
		items = append(items, map[string]any{"friendly_name": a.Phone, "phone_number": a.Phone, "locality": a.Locality,
			"region": a.Region, "iso_country": country, "postal_code": nil, "lata": "722", "rate_center": strings.ToUpper(a.Locality),
			"address_requirements": "none", "beta": false, "capabilities": map[string]bool{"voice": true, "SMS": true, "MMS": true}})
	}
	f.mu.Unlock()
	writeJSON(w, 200, map[string]any{"available_phone_numbers": items, "uri": r.URL.RequestURI()})
}

func (f *Twilio) buy(w http.ResponseWriter, phone string) {
	f.mu.Lock()
	for i, a := range f.available {
		if a.Phone != phone {
			continue
		}
		f.available = append(f.available[:i], f.available[i+1:]...)
		f.nextSID++
		n := &TwilioNumber{SID: fmt.Sprintf("PN%032x", 0xb000+f.nextSID), Phone: phone, FriendlyName: phone, SMSMethod: "POST",
			Locality: a.Locality, Region: a.Region}
		f.numbers = append(f.numbers, n)
		res := f.resource(n)
		f.mu.Unlock()
		writeJSON(w, 201, res)
		return
	}
	f.mu.Unlock()
	writeJSON(w, 400, map[string]any{"code": 21422, "message": "PhoneNumber requested is not available",
		"more_info": "https://www.twilio.com/docs/errors/21422", "status": 400})
}

func (f *Twilio) pricing(w http.ResponseWriter, country string) {
	f.mu.Lock()
	price := f.Price
	f.mu.Unlock()
	writeJSON(w, 200, map[string]any{"country": "United States", "iso_country": country, "price_unit": "USD",
		"phone_number_prices": []map[string]string{{"number_type": "local", "base_price": price, "current_price": price},
			{"number_type": "toll free", "base_price": "2.15", "current_price": "2.15"}},
		"url": "https://pricing.twilio.com/v1/PhoneNumbers/Countries/" + country})
}

// SetPrice changes the local number price.
func (f *Twilio) SetPrice(p string) {
	f.mu.Lock()
	f.Price = p
	f.mu.Unlock()
}

func writeJSON(w http.ResponseWriter, status int, v any) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	_ = json.NewEncoder(w).Encode(v)
}
