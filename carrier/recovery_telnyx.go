package carrier

import (
	"context"
	"encoding/json"
	"log/slog"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"time"
)

// Telnyx's message listings as the inbound recovery reads them (Authorization: Bearer, JSON): the
// Detail Record Search lists the messages a number received, and each one not seen yet is read
// whole from the Messages API, whose answer is the message as its webhook carries it. A message
// can be read there for ten days, far more than the recovery looks back.
//
//	GET /v2/detail_records?filter[record_type]=messaging&filter[direction]=inbound&filter[cld]=+1…
//	    &filter[created_at][gte]=2024-02-01T10:00:00Z&sort=created_at&page[number]=N&page[size]=50
//	    {"data":[{"record_type":"message_detail_record","uuid":"…","direction":"inbound","cli":"+1…",
//	              "cld":"+1…","status":"received","created_at":"2024-02-01T10:00:00Z","message_type":"SMS",…}],
//	     "meta":{"page_number":1,"page_size":50,"total_pages":1,"total_results":1}}
//	GET /v2/messages/{id}
//	    {"data":{"id":"…","record_type":"message","direction":"inbound","from":{"phone_number":"+1…"},
//	             "to":[{"phone_number":"+1…","status":"webhook_delivered"}],"text":"…","media":[{"url":"…"}],
//	             "errors":[],"received_at":"…"}}
//
// A send's status is the same message read again: to[0].status delivered, or sending_failed or
// delivery_failed with errors[0].code, as message.finalized reports it.

// telnyxDetailPageSize is the most the Detail Record Search gives in one page.
const telnyxDetailPageSize = 50

// telnyxListings reads one Telnyx account's messages.
type telnyxListings struct {
	api  apiClient
	base string // {base}/v2
}

func newTelnyxListings(a TelnyxAccount, base string, client *http.Client, cfg apiConfig) *telnyxListings {
	n := newTelnyxNumbers(a, base, client, cfg)
	return &telnyxListings{api: n.api, base: n.base}
}

func (t *telnyxListings) received(ctx context.Context, number string, since time.Time, known knownFunc) ([]InboundSMS, error) {
	var out []InboundSMS
	for page := 1; ; page++ {
		if page > maxListingPages {
			return nil, &APIError{Carrier: "Telnyx", Kind: KindGarbage, Status: http.StatusOK}
		}
		q := url.Values{"filter[record_type]": {"messaging"}, "filter[direction]": {"inbound"}, "filter[cld]": {number},
			"filter[created_at][gte]": {since.UTC().Format(time.RFC3339)}, "sort": {"created_at"},
			"page[number]": {strconv.Itoa(page)}, "page[size]": {strconv.Itoa(telnyxDetailPageSize)}}
		var raw json.RawMessage
		if err := t.api.do(ctx, http.MethodGet, t.base+"/detail_records?"+q.Encode(), "", nil, &raw); err != nil {
			return nil, err
		}
		p, err := decodeTelnyxDetailPage(raw)
		if err != nil {
			return nil, t.api.garbage(http.StatusOK)
		}
		var ids []string
		for _, r := range p.Records {
			ids = append(ids, r.ID)
		}
		seen, err := known(ids)
		if err != nil {
			return nil, err
		}
		for _, r := range p.Records {
			if r.Direction != "inbound" || r.To != number || seen[r.ID] {
				continue
			}
			in, ok, err := t.message(ctx, r, since)
			if err != nil {
				return nil, err
			}
			if ok {
				out = append(out, in)
			}
		}
		// meta.total_pages says when to stop; without it, a short page does.
		if len(p.Records) == 0 || (p.TotalPages > 0 && page >= p.TotalPages) || (p.TotalPages == 0 && len(p.Records) < telnyxDetailPageSize) {
			return out, nil
		}
	}
}

// message reads a listed text whole, as its webhook would have carried it; false for one the
// webhook's parser would refuse, or one Telnyx no longer has.
func (t *telnyxListings) message(ctx context.Context, r telnyxDetail, since time.Time) (InboundSMS, bool, error) {
	var raw json.RawMessage
	err := t.api.do(ctx, http.MethodGet, t.base+"/messages/"+url.PathEscape(r.ID), "", nil, &raw)
	if IsKind(err, KindNotFound) {
		return InboundSMS{}, false, nil
	}
	if err != nil {
		return InboundSMS{}, false, err
	}
	p, err := decodeTelnyxMessage(raw)
	if err != nil || p.ID != r.ID {
		return InboundSMS{}, false, t.api.garbage(http.StatusOK)
	}
	in, err := p.inbound("data")
	if err != nil {
		slog.Warn("inbound recovery: listed text not recorded", "carrier", "telnyx", "id", r.ID, "reason", err.Error())
		return InboundSMS{}, false, nil
	}
	in.SentAt = r.At
	if in.SentAt.IsZero() {
		in.SentAt = since // no date to read: it came at the earliest when the window opens
	}
	return in, true, nil
}

func (t *telnyxListings) status(ctx context.Context, id string) (StatusUpdate, bool, error) {
	var raw json.RawMessage
	err := t.api.do(ctx, http.MethodGet, t.base+"/messages/"+url.PathEscape(id), "", nil, &raw)
	if IsKind(err, KindNotFound) {
		return StatusUpdate{}, false, nil
	}
	if err != nil {
		return StatusUpdate{}, false, err
	}
	p, err := decodeTelnyxMessage(raw)
	if err != nil || p.ID != id {
		return StatusUpdate{}, false, t.api.garbage(http.StatusOK)
	}
	st, err := p.receipt(TelnyxMessageFinalized, "data")
	if err != nil {
		return StatusUpdate{}, false, t.api.garbage(http.StatusOK)
	}
	return st, true, nil
}

// telnyxDetail is a message detail record, the fields the recovery reads.
type telnyxDetail struct {
	ID, Direction, From, To string
	At                      time.Time
}

// telnyxDetailPage is one page of the Detail Record Search.
type telnyxDetailPage struct {
	Records    []telnyxDetail
	TotalPages int
}

// decodeTelnyxDetailPage reads a page of message detail records; records of another type or
// without an id are left out.
func decodeTelnyxDetailPage(body []byte) (telnyxDetailPage, error) {
	var j struct {
		Data *[]struct {
			RecordType string `json:"record_type"`
			UUID       string `json:"uuid"`
			Direction  string `json:"direction"`
			CLI        string `json:"cli"`
			CLD        string `json:"cld"`
			CreatedAt  string `json:"created_at"`
		} `json:"data"`
		Meta struct {
			TotalPages int `json:"total_pages"`
		} `json:"meta"`
	}
	if err := json.Unmarshal(body, &j); err != nil {
		return telnyxDetailPage{}, err
	}
	if j.Data == nil {
		return telnyxDetailPage{}, errUnreadable
	}
	p := telnyxDetailPage{TotalPages: max(j.Meta.TotalPages, 0)}
	for _, r := range *j.Data {
		if r.UUID == "" || len(r.UUID) > maxSIDLen || (r.RecordType != "" && r.RecordType != "message_detail_record") {
			continue
		}
		d := telnyxDetail{ID: r.UUID, Direction: strings.ToLower(strings.TrimSpace(r.Direction)),
			From: strings.TrimSpace(r.CLI), To: strings.TrimSpace(r.CLD)}
		if at, err := time.Parse(time.RFC3339, r.CreatedAt); err == nil {
			d.At = at.UTC()
		}
		p.Records = append(p.Records, d)
	}
	return p, nil
}

// decodeTelnyxMessage reads a retrieved message: data, in the shape of a webhook's payload.
func decodeTelnyxMessage(body []byte) (telnyxPayload, error) {
	var j struct {
		Data *telnyxPayload `json:"data"`
	}
	if err := json.Unmarshal(body, &j); err != nil {
		return telnyxPayload{}, err
	}
	if j.Data == nil || j.Data.ID == "" {
		return telnyxPayload{}, errUnreadable
	}
	return *j.Data, nil
}
