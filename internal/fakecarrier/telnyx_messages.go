package fakecarrier

import (
	"net/http"
	"slices"
	"strconv"
	"strings"
	"time"
)

// The fake Telnyx's messages: the texts its numbers received and the sends it accepted, as the
// Detail Record Search lists them (message detail records: filter[record_type]=messaging, and
// filters on direction, cld, cli and created_at, sorted and paged with page[number] and
// page[size] of at most 50) and as the Messages API retrieves them (GET /v2/messages/{id}, the
// message in the shape of its webhook's payload).

// TelnyxMessage is a message of the fake account. Direction is "inbound" or "outbound"; Status
// is the status of its addressee as Telnyx reports it ("webhook_delivered" for a text received,
// "queued", "sent", "delivered", "sending_failed", "delivery_failed" for a send); ErrorCode is
// Telnyx's error code when it failed.
type TelnyxMessage struct {
	ID, From, To, Text, Direction, Status, ErrorCode string
	Media                                            []string
	At                                               time.Time
}

// Receive is a text arriving at the account's number to from a phone: it is listed from now on,
// whatever became of its webhook (the fake posts none). It returns the message.
func (f *Telnyx) Receive(from, to, text string, media ...string) TelnyxMessage {
	f.mu.Lock()
	defer f.mu.Unlock()
	m := &TelnyxMessage{ID: f.id("4031938e-60d3"), From: from, To: to, Text: text, Direction: "inbound",
		Status: "webhook_delivered", Media: media, At: f.now().UTC()}
	f.messages = append(f.messages, m)
	return *m
}

// SetStatus changes a message's status, as the network's receipt does.
func (f *Telnyx) SetStatus(id, status, errorCode string) {
	f.mu.Lock()
	defer f.mu.Unlock()
	for _, m := range f.messages {
		if m.ID == id {
			m.Status, m.ErrorCode = status, errorCode
		}
	}
}

// Messages are the account's messages as they are now, oldest first.
func (f *Telnyx) Messages() []TelnyxMessage {
	f.mu.Lock()
	defer f.mu.Unlock()
	out := make([]TelnyxMessage, 0, len(f.messages))
	for _, m := range f.messages {
		out = append(out, *m)
	}
	return out
}

func (f *Telnyx) now() time.Time {
	if f.Now != nil {
		return f.Now()
	}
	return time.Now()
}

// detailRecord is a message as a message detail record.
func (f *Telnyx) detailRecord(m *TelnyxMessage) map[string]any {
	at := m.At.UTC().Format(time.RFC3339)
	status := map[string]string{"webhook_delivered": "received", "delivered": "delivered", "sending_failed": "failed",
		"delivery_failed": "failed"}[m.Status]
	errs := []string{}
	if m.ErrorCode != "" {
		errs = append(errs, m.ErrorCode)
	}
	return map[string]any{"record_type": "message_detail_record", "uuid": m.ID, "user_id": "3ca7bd3d-7d82-4e07-9df4-009123068320",
		"created_at": at, "updated_at": at, "sent_at": at, "completed_at": at, "carrier": "T-Mobile USA", "carrier_fee": "0.000",
		"cli": m.From, "cld": m.To, "country_code": "US", "source_country_code": "US", "direction": m.Direction,
		"delivery_status": "success: webhook succeeded", "delivery_status_webhook_url": nil, "delivery_status_failover_url": nil,
		"fteu": false, "mcc": "", "mnc": "", "message_type": map[bool]string{true: "MMS", false: "SMS"}[len(m.Media) > 0],
		"on_net": false, "parts": 1, "profile_id": nil, "profile_name": nil, "status": status, "tags": "",
		"rate": "0.004", "currency": "USD", "cost": "0.004", "errors": errs}
}

// messagePayload is a message as the Messages API retrieves it.
func (f *Telnyx) messagePayload(m *TelnyxMessage) map[string]any {
	at := m.At.UTC().Format(time.RFC3339)
	media := []map[string]any{}
	for _, u := range m.Media {
		media = append(media, map[string]any{"url": u, "content_type": "image/jpeg", "size": 1024, "hash_sha256": nil})
	}
	errs := []map[string]any{}
	if m.ErrorCode != "" {
		errs = append(errs, map[string]any{"code": m.ErrorCode, "title": "Message failed", "detail": "The message could not be delivered."})
	}
	kind := "SMS"
	if len(media) > 0 {
		kind = "MMS"
	}
	return map[string]any{"record_type": "message", "id": m.ID, "direction": m.Direction, "type": kind,
		"from": map[string]any{"phone_number": m.From, "carrier": "T-Mobile USA", "line_type": "Wireless"},
		"to":   []map[string]any{{"phone_number": m.To, "status": m.Status, "carrier": "Telnyx", "line_type": "Wireless"}},
		"text": m.Text, "media": media, "errors": errs, "parts": 1, "encoding": "GSM-7", "tags": []string{},
		"messaging_profile_id": nil, "received_at": at, "sent_at": at, "completed_at": nil, "valid_until": nil,
		"webhook_url": nil, "webhook_failover_url": nil, "cost": nil}
}

// detailRecords answers GET /v2/detail_records for messaging records (f.mu held).
func (f *Telnyx) detailRecords(w http.ResponseWriter, r *http.Request) {
	q := r.URL.Query()
	if q.Get("filter[record_type]") != "messaging" {
		writeJSON(w, 422, telnyxErrors("10015", "Invalid parameter", "filter[record_type] must be specified."))
		return
	}
	num, _ := strconv.Atoi(first(q["page[number]"]))
	size, _ := strconv.Atoi(first(q["page[size]"]))
	if num < 1 {
		num = 1
	}
	if size == 0 {
		size = 20
	}
	if size < 1 || size > 50 {
		writeJSON(w, 422, telnyxErrors("10015", "Invalid parameter", "page[size] must be between 1 and 50."))
		return
	}
	var gte, lt time.Time
	for field, to := range map[string]*time.Time{"filter[created_at][gte]": &gte, "filter[created_at][lt]": &lt} {
		if v := q.Get(field); v != "" {
			t, ok := twilioDateFilter(v) // the same two forms: an instant or a date
			if !ok {
				writeJSON(w, 422, telnyxErrors("10015", "Invalid parameter", field+" is not a date."))
				return
			}
			*to = t
		}
	}
	var match []*TelnyxMessage
	for _, m := range f.messages {
		switch {
		case q.Get("filter[direction]") != "" && m.Direction != q.Get("filter[direction]"),
			q.Get("filter[cld]") != "" && m.To != q.Get("filter[cld]"), q.Get("filter[cli]") != "" && m.From != q.Get("filter[cli]"),
			!gte.IsZero() && m.At.Before(gte), !lt.IsZero() && !m.At.Before(lt):
			continue
		}
		match = append(match, m)
	}
	slices.SortStableFunc(match, func(a, b *TelnyxMessage) int { return a.At.Compare(b.At) })
	if strings.HasPrefix(q.Get("sort"), "-") {
		slices.Reverse(match)
	}
	data := []map[string]any{}
	for i := (num - 1) * size; i < len(match) && i < num*size; i++ {
		data = append(data, f.detailRecord(match[i]))
	}
	writeJSON(w, 200, map[string]any{"data": data, "meta": meta(num, size, len(match))})
}

// oneMessage answers GET /v2/messages/{id} (f.mu held).
func (f *Telnyx) oneMessage(w http.ResponseWriter, id string) {
	for _, m := range f.messages {
		if m.ID == id {
			writeJSON(w, 200, map[string]any{"data": f.messagePayload(m)})
			return
		}
	}
	f.notFound(w)
}
