package fakecarrier

import (
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"
)

// TelnyxNumber is a number of the fake Telnyx account.
type TelnyxNumber struct {
	ID, Phone, ProfileID, Reference string
	Locality, Region, MonthlyCost   string
}

// TelnyxProfile is a messaging profile of the fake account.
type TelnyxProfile struct {
	ID, Name, WebhookURL, APIVersion string
	Destinations                     []string
}

// Telnyx is a fake of api.telnyx.com's v2 API for one account (Authorization: Bearer APIKey).
type Telnyx struct {
	recorder
	Srv    *httptest.Server
	APIKey string
	// Now dates the messages (nil: time.Now); set it before the fake is used.
	Now func() time.Time

	messages  []*TelnyxMessage
	numbers   []*TelnyxNumber
	available []TelnyxNumber
	profiles  []*TelnyxProfile
	sent      []map[string]any
	next      int
}

// NewTelnyx starts a fake Telnyx; it stops with the test.
func NewTelnyx(t testing.TB, apiKey string) *Telnyx {
	f := &Telnyx{APIKey: apiKey}
	f.Srv = httptest.NewServer(http.HandlerFunc(f.serve))
	t.Cleanup(f.Srv.Close)
	return f
}

// URL is the fake's root (-telnyx-base-url).
func (f *Telnyx) URL() string { return f.Srv.URL }

func (f *Telnyx) id(prefix string) string {
	f.next++
	return fmt.Sprintf("%s-%04x-4000-8000-%012x", prefix, f.next, f.next)
}

// Own gives the account a number.
func (f *Telnyx) Own(n TelnyxNumber) *TelnyxNumber {
	f.mu.Lock()
	defer f.mu.Unlock()
	if n.ID == "" {
		n.ID = f.id("1293384261075731")
	}
	p := &n
	f.numbers = append(f.numbers, p)
	return p
}

// Profile adds a messaging profile to the account.
func (f *Telnyx) Profile(p TelnyxProfile) *TelnyxProfile {
	f.mu.Lock()
	defer f.mu.Unlock()
	if p.ID == "" {
		p.ID = f.id("4001767e-ce0f")
	}
	pp := &p
	f.profiles = append(f.profiles, pp)
	return pp
}

// Offer puts numbers up for sale, each with its monthly cost (default "1.00").
func (f *Telnyx) Offer(ns ...TelnyxNumber) {
	f.mu.Lock()
	defer f.mu.Unlock()
	for _, n := range ns {
		if n.MonthlyCost == "" {
			n.MonthlyCost = "1.00"
		}
		f.available = append(f.available, n)
	}
}

// Number is the account's number with that phone and the webhook URL of its profile.
func (f *Telnyx) Number(phone string) (TelnyxNumber, string, bool) {
	f.mu.Lock()
	defer f.mu.Unlock()
	for _, n := range f.numbers {
		if n.Phone == phone {
			return *n, f.hookOf(n.ProfileID), true
		}
	}
	return TelnyxNumber{}, "", false
}

func (f *Telnyx) hookOf(profile string) string {
	for _, p := range f.profiles {
		if p.ID == profile {
			return p.WebhookURL
		}
	}
	return ""
}

// Profiles are the account's messaging profiles as they are now.
func (f *Telnyx) Profiles() []TelnyxProfile {
	f.mu.Lock()
	defer f.mu.Unlock()
	var out []TelnyxProfile
	for _, p := range f.profiles {
		out = append(out, *p)
	}
	return out
}

// Sent are the Messages API sends accepted so far.
func (f *Telnyx) Sent() []map[string]any {
	f.mu.Lock()
	defer f.mu.Unlock()
	return append([]map[string]any(nil), f.sent...)
}

func (f *Telnyx) serve(w http.ResponseWriter, r *http.Request) {
	raw, _ := io.ReadAll(io.LimitReader(r.Body, 1<<20))
	ok := f.APIKey != "" && r.Header.Get("Authorization") == "Bearer "+f.APIKey
	f.record(Request{Method: r.Method, Path: r.URL.Path, Query: r.URL.Query(), Body: string(raw), User: "bearer", OK: ok, At: time.Now()})
	if !ok {
		writeJSON(w, 401, telnyxErrors("10009", "Authentication failed", "Could not understand the provided credentials."))
		return
	}
	var body map[string]any
	if len(raw) > 0 && json.Unmarshal(raw, &body) != nil {
		writeJSON(w, 400, telnyxErrors("10015", "Invalid JSON", "The request body is not valid JSON."))
		return
	}
	path := strings.TrimPrefix(r.URL.Path, "/v2")
	route, id := telnyxRoute(r.Method, path)
	if f.fault(route, w, r) {
		return
	}
	f.mu.Lock()
	defer f.mu.Unlock()
	switch route {
	case "balance":
		writeJSON(w, 200, map[string]any{"data": map[string]any{"record_type": "balance", "balance": "300.00", "credit_limit": "100.00",
			"available_credit": "400.00", "currency": "USD", "pending": "0.00"}})
	case "list":
		f.list(w, r)
	case "messaging", "update":
		n := f.find(id)
		if n == nil {
			f.notFound(w)
			return
		}
		if route == "update" {
			if v, has := body["messaging_profile_id"]; has && v != nil {
				s, _ := v.(string)
				if s != "" && f.profile(s) == nil {
					writeJSON(w, 422, telnyxErrors("10015", "Invalid messaging profile", "The messaging profile "+s+" does not exist."))
					return
				}
				n.ProfileID = s
			}
		}
		writeJSON(w, 200, map[string]any{"data": f.settings(n)})
	case "release":
		for i, n := range f.numbers {
			if n.ID == id {
				f.numbers = append(f.numbers[:i], f.numbers[i+1:]...)
				writeJSON(w, 200, map[string]any{"data": f.phoneNumber(n)})
				return
			}
		}
		f.notFound(w)
	case "profiles":
		f.listProfiles(w, r)
	case "profile", "profileUpdate":
		p := f.profile(id)
		if p == nil {
			f.notFound(w)
			return
		}
		if hook, ok := body["webhook_url"].(string); ok && route == "profileUpdate" {
			p.WebhookURL = hook
		}
		writeJSON(w, 200, map[string]any{"data": profileJSON(p)})
	case "profileCreate":
		name, _ := body["name"].(string)
		dests, _ := body["whitelisted_destinations"].([]any)
		if name == "" || len(dests) == 0 {
			writeJSON(w, 422, telnyxErrors("10015", "Invalid parameter", "name and whitelisted_destinations are required."))
			return
		}
		p := &TelnyxProfile{ID: f.id("4001767e-ce0f"), Name: name}
		p.WebhookURL, _ = body["webhook_url"].(string)
		p.APIVersion, _ = body["webhook_api_version"].(string)
		for _, d := range dests {
			s, _ := d.(string)
			p.Destinations = append(p.Destinations, s)
		}
		f.profiles = append(f.profiles, p)
		writeJSON(w, 200, map[string]any{"data": profileJSON(p)})
	case "search":
		f.search(w, r)
	case "order":
		f.order(w, body)
	case "send":
		f.sent = append(f.sent, body)
		from, _ := body["from"].(string)
		to, _ := body["to"].(string)
		text, _ := body["text"].(string)
		m := &TelnyxMessage{ID: f.id("40385f64-5717"), From: from, To: to, Text: text, Direction: "outbound", Status: "queued", At: f.now().UTC()}
		f.messages = append(f.messages, m)
		writeJSON(w, 200, map[string]any{"data": f.messagePayload(m)})
	case "records":
		f.detailRecords(w, r)
	case "message":
		f.oneMessage(w, id)
	default:
		f.notFound(w)
	}
}

// telnyxRoute names a request's route (the names Fail takes) and the id in its path.
func telnyxRoute(method, path string) (route, id string) {
	parts := strings.Split(strings.Trim(path, "/"), "/")
	switch {
	case method == "GET" && path == "/balance":
		return "balance", ""
	case method == "GET" && path == "/phone_numbers":
		return "list", ""
	case len(parts) == 3 && parts[0] == "phone_numbers" && parts[2] == "messaging" && method == "GET":
		return "messaging", parts[1]
	case len(parts) == 3 && parts[0] == "phone_numbers" && parts[2] == "messaging" && method == "PATCH":
		return "update", parts[1]
	case len(parts) == 2 && parts[0] == "phone_numbers" && method == "DELETE":
		return "release", parts[1]
	case method == "GET" && path == "/messaging_profiles":
		return "profiles", ""
	case method == "POST" && path == "/messaging_profiles":
		return "profileCreate", ""
	case len(parts) == 2 && parts[0] == "messaging_profiles" && method == "GET":
		return "profile", parts[1]
	case len(parts) == 2 && parts[0] == "messaging_profiles" && method == "PATCH":
		return "profileUpdate", parts[1]
	case method == "GET" && path == "/available_phone_numbers":
		return "search", ""
	case method == "POST" && path == "/number_orders":
		return "order", ""
	case method == "POST" && path == "/messages":
		return "send", ""
	case method == "GET" && path == "/detail_records":
		return "records", ""
	case len(parts) == 2 && parts[0] == "messages" && method == "GET":
		return "message", parts[1]
	}
	return "", ""
}

func telnyxErrors(code, title, detail string) map[string]any {
	return map[string]any{"errors": []map[string]any{{"code": code, "title": title, "detail": detail,
		"meta": map[string]string{"url": "https://developers.telnyx.com/docs/overview/errors/" + code}}}}
}

func (f *Telnyx) notFound(w http.ResponseWriter) {
	writeJSON(w, 404, telnyxErrors("10005", "Resource not found", "The requested resource or URL could not be found."))
}

func (f *Telnyx) find(id string) *TelnyxNumber {
	for _, n := range f.numbers {
		if n.ID == id || n.Phone == id {
			return n
		}
	}
	return nil
}

func (f *Telnyx) profile(id string) *TelnyxProfile {
	for _, p := range f.profiles {
		if p.ID == id {
			return p
		}
	}
	return nil
}

func nullable(s string) any {
	if s == "" {
		return nil
	}
	return s
}

func (f *Telnyx) phoneNumber(n *TelnyxNumber) map[string]any {
	var profileName any
	if p := f.profile(n.ProfileID); p != nil {
		profileName = p.Name
	}
	return map[string]any{"id": n.ID, "record_type": "phone_number", "phone_number": n.Phone, "status": "active",
		"tags": []string{}, "connection_id": nil, "connection_name": nil, "customer_reference": nullable(n.Reference),
		"messaging_profile_id": nullable(n.ProfileID), "messaging_profile_name": profileName, "billing_group_id": nil,
		"emergency_enabled": false, "call_forwarding_enabled": true, "cnam_listing_enabled": false, "caller_id_name_enabled": false,
		"call_recording_enabled": false, "t38_fax_gateway_enabled": false, "phone_number_type": "local", "country_iso_alpha2": "US",
		"purchased_at": "2024-02-01T10:00:00Z", "created_at": "2024-02-01T10:00:00Z", "updated_at": "2024-02-01T10:00:00Z"}
}

func (f *Telnyx) settings(n *TelnyxNumber) map[string]any {
	return map[string]any{"id": n.ID, "record_type": "messaging_settings", "phone_number": n.Phone,
		"messaging_profile_id": nullable(n.ProfileID), "country_code": "US", "type": "long-code", "traffic_type": "A2P",
		"messaging_product": "P2P", "eligible_messaging_products": []string{"A2P"},
		"features":   map[string]any{"sms": map[string]any{"domestic_two_way": true, "international_inbound": true, "international_outbound": true}, "mms": nil},
		"health":     map[string]any{"message_count": 0, "inbound_outbound_ratio": 0, "success_ratio": 1, "spam_ratio": 0},
		"created_at": "2024-02-01T10:00:00Z", "updated_at": "2024-02-01T10:00:00Z"}
}

func profileJSON(p *TelnyxProfile) map[string]any {
	version := p.APIVersion
	if version == "" {
		version = "2"
	}
	return map[string]any{"id": p.ID, "record_type": "messaging_profile", "name": p.Name, "enabled": true,
		"webhook_url": nullable(p.WebhookURL), "webhook_failover_url": nil, "webhook_api_version": version,
		"whitelisted_destinations": p.Destinations, "number_pool_settings": nil, "url_shortener_settings": nil,
		"created_at": "2024-02-01T10:00:00Z", "updated_at": "2024-02-01T10:00:00Z", "v1_secret": "rP1VamejkU2v0qIUxntqLW2c"}
}

// page reads Telnyx's page[number] and page[size] (defaults 1 and 20, size at most 250).
func page(q map[string][]string, def int) (num, size int) {
	num, _ = strconv.Atoi(first(q["page[number]"]))
	size, _ = strconv.Atoi(first(q["page[size]"]))
	if num < 1 {
		num = 1
	}
	if size < 1 || size > 250 {
		size = def
	}
	return num, size
}

func first(v []string) string {
	if len(v) == 0 {
		return ""
	}
	return v[0]
}

func meta(num, size, total int) map[string]int {
	pages := (total + size - 1) / size
	return map[string]int{"page_number": num, "page_size": size, "total_pages": pages, "total_results": total}
}

func (f *Telnyx) list(w http.ResponseWriter, r *http.Request) {
	q := r.URL.Query()
	num, size := page(q, 20)
	var match []*TelnyxNumber
	for _, n := range f.numbers {
		if p := q.Get("filter[phone_number]"); p == "" || strings.Contains(n.Phone, strings.TrimPrefix(p, "+")) {
			match = append(match, n)
		}
	}
	data := []map[string]any{}
	for i := (num - 1) * size; i < len(match) && i < num*size; i++ {
		data = append(data, f.phoneNumber(match[i]))
	}
	writeJSON(w, 200, map[string]any{"data": data, "meta": meta(num, size, len(match))})
}

func (f *Telnyx) listProfiles(w http.ResponseWriter, r *http.Request) {
	num, size := page(r.URL.Query(), 20)
	data := []map[string]any{}
	for i := (num - 1) * size; i < len(f.profiles) && i < num*size; i++ {
		data = append(data, profileJSON(f.profiles[i]))
	}
	writeJSON(w, 200, map[string]any{"data": data, "meta": meta(num, size, len(f.profiles))})
}

func (f *Telnyx) search(w http.ResponseWriter, r *http.Request) {
	q := r.URL.Query()
	data := []map[string]any{}
	for _, a := range f.available {
		if c := q.Get("filter[national_destination_code]"); c != "" && !strings.HasPrefix(a.Phone, "+1"+c) {
			continue
		}
		if l := q.Get("filter[locality]"); l != "" && !strings.EqualFold(l, a.Locality) {
			continue
		}
		if d := q.Get("filter[phone_number][contains]"); d != "" && !strings.Contains(a.Phone, d) {
			continue
		}
		data = append(data, map[string]any{"record_type": "available_phone_number", "phone_number": a.Phone, "vanity_format": "",
			"best_effort": false, "quickship": true, "reservable": true, "features": []map[string]string{{"name": "sms"}, {"name": "voice"}},
			"region_information": []map[string]string{{"region_type": "country_code", "region_name": "US"},
				{"region_type": "rate_center", "region_name": strings.ToUpper(a.Locality)}, {"region_type": "state", "region_name": a.Region}},
			"cost_information": map[string]string{"upfront_cost": "1.00", "monthly_cost": a.MonthlyCost, "currency": "USD"}})
	}
	writeJSON(w, 200, map[string]any{"data": data, "meta": map[string]int{"total_results": len(data), "best_effort_results": 0}})
}

func (f *Telnyx) order(w http.ResponseWriter, body map[string]any) {
	list, _ := body["phone_numbers"].([]any)
	if len(list) != 1 {
		writeJSON(w, 422, telnyxErrors("10015", "Invalid parameter", "phone_numbers must list the numbers to order."))
		return
	}
	entry, _ := list[0].(map[string]any)
	phone, _ := entry["phone_number"].(string)
	status := "failure"
	for i, a := range f.available {
		if a.Phone == phone {
			f.available = append(f.available[:i], f.available[i+1:]...)
			f.numbers = append(f.numbers, &TelnyxNumber{ID: f.id("1293384261075731"), Phone: phone, Locality: a.Locality, Region: a.Region})
			status = "success"
			break
		}
	}
	writeJSON(w, 200, map[string]any{"data": map[string]any{"id": f.id("12ade33a-21c0"), "record_type": "number_order",
		"phone_numbers_count": 1, "status": status, "connection_id": nil, "messaging_profile_id": nil, "customer_reference": nil,
		"requirements_met": true, "created_at": "2024-02-01T10:00:00Z", "updated_at": "2024-02-01T10:00:00Z",
		"phone_numbers": []map[string]any{{"id": f.id("dc8e4d67-33a0"), "record_type": "number_order_phone_number",
			"phone_number": phone, "status": status, "requirements_met": true, "regulatory_requirements": []any{}}}}})
}

// TakeAway sells phone to someone else: buying it is then refused.
func (f *Telnyx) TakeAway(phone string) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.available = slices.DeleteFunc(f.available, func(a TelnyxNumber) bool { return a.Phone == phone })
}
