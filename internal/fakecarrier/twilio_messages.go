package fakecarrier

import (
	"fmt"
	"net/http"
	"net/url"
	"slices"
	"strconv"
	"strings"
	"time"
)

// The fake Twilio's messages: the texts its numbers received and the sends it accepted, listed
// and read the way Twilio's Messages resource documents it — newest first, filtered by To, From
// and DateSent (DateSent>=, DateSent<=, as a date or an instant), paged by PageSize, Page and
// PageToken with next_page_uri — with each text's media as a Media subresource.

// TwilioMedia is a media file of a text the fake received.
type TwilioMedia struct {
	SID, ContentType string
	Data             []byte
}

// TwilioMessage is a message of the fake account. Direction is "inbound" for a text it received
// and "outbound-api" for a send; Status is Twilio's ("received", "queued", "sent", "delivered",
// "undelivered", "failed"); ErrorCode is Twilio's error code (0: none).
type TwilioMessage struct {
	SID, From, To, Body, Direction, Status string
	ErrorCode                              int
	DateSent                               time.Time
	Media                                  []TwilioMedia
}

// Receive is a text arriving at the account's number to from a phone: it is listed from now on,
// whatever became of its webhook (the fake posts none). It returns the message.
func (f *Twilio) Receive(from, to, body string, media ...TwilioMedia) TwilioMessage {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.nextSID++
	m := &TwilioMessage{SID: fmt.Sprintf("SM%032x", 0xc0000+f.nextSID), From: from, To: to, Body: body,
		Direction: "inbound", Status: "received", DateSent: f.now().UTC()}
	for i, md := range media {
		if md.SID == "" {
			md.SID = fmt.Sprintf("ME%032x", 0xd0000+f.nextSID*16+i)
		}
		m.Media = append(m.Media, md)
	}
	f.messages = append(f.messages, m)
	return *m
}

// SetStatus changes a message's status, as the network's receipt does (errorCode 0: none).
func (f *Twilio) SetStatus(sid, status string, errorCode int) {
	f.mu.Lock()
	defer f.mu.Unlock()
	for _, m := range f.messages {
		if m.SID == sid {
			m.Status, m.ErrorCode = status, errorCode
		}
	}
}

// Messages are the account's messages as they are now, oldest first.
func (f *Twilio) Messages() []TwilioMessage {
	f.mu.Lock()
	defer f.mu.Unlock()
	out := make([]TwilioMessage, 0, len(f.messages))
	for _, m := range f.messages {
		out = append(out, *m)
	}
	return out
}

func (f *Twilio) now() time.Time {
	if f.Now != nil {
		return f.Now()
	}
	return time.Now()
}

// messageResource is a message as Twilio's Message resource.
func (f *Twilio) messageResource(m *TwilioMessage) map[string]any {
	uri := "/2010-04-01/Accounts/" + f.AccountSID + "/Messages/" + m.SID
	date := m.DateSent.UTC().Format(time.RFC1123Z)
	var code, message any
	if m.ErrorCode != 0 {
		code, message = m.ErrorCode, "Unknown error"
	}
	return map[string]any{"account_sid": f.AccountSID, "api_version": "2010-04-01", "sid": m.SID, "from": m.From, "to": m.To,
		"body": m.Body, "direction": m.Direction, "status": m.Status, "error_code": code, "error_message": message,
		"num_media": strconv.Itoa(len(m.Media)), "num_segments": "1", "price": nil, "price_unit": "USD",
		"messaging_service_sid": nil, "date_created": date, "date_sent": date, "date_updated": date,
		"subresource_uris": map[string]string{"media": uri + "/Media.json", "feedback": uri + "/Feedback.json"},
		"uri":              uri + ".json"}
}

// twilioDateFilter reads a DateSent filter: an instant (RFC 3339) or a date (YYYY-MM-DD, its
// first instant); false when it is neither.
func twilioDateFilter(v string) (time.Time, bool) {
	if t, err := time.Parse(time.RFC3339, v); err == nil {
		return t, true
	}
	if t, err := time.Parse("2006-01-02", v); err == nil {
		return t, true
	}
	return time.Time{}, false
}

// listMessages answers GET Messages.json.
func (f *Twilio) listMessages(w http.ResponseWriter, r *http.Request, prefix string) {
	q := r.URL.Query()
	size, _ := strconv.Atoi(q.Get("PageSize"))
	if size <= 0 || size > 1000 {
		size = 50
	}
	page, _ := strconv.Atoi(q.Get("Page"))
	after, before := time.Time{}, time.Time{}
	for field, to := range map[string]*time.Time{"DateSent>": &after, "DateSent<": &before} {
		if v := q.Get(field); v != "" {
			t, ok := twilioDateFilter(v)
			if !ok {
				writeJSON(w, 400, map[string]any{"code": 20001, "message": "Invalid " + field + " " + v, "status": 400})
				return
			}
			*to = t
		}
	}
	f.mu.Lock()
	var match []*TwilioMessage
	for _, m := range slices.Backward(f.messages) { // newest first, the later of a second's first
		switch {
		case q.Get("To") != "" && m.To != q.Get("To"), q.Get("From") != "" && m.From != q.Get("From"),
			!after.IsZero() && m.DateSent.Before(after), !before.IsZero() && m.DateSent.After(before):
			continue
		}
		match = append(match, m)
	}
	slices.SortStableFunc(match, func(a, b *TwilioMessage) int { return b.DateSent.Compare(a.DateSent) })
	items := []map[string]any{}
	for i := page * size; i < len(match) && i < (page+1)*size; i++ {
		items = append(items, f.messageResource(match[i]))
	}
	f.mu.Unlock()
	pageURI := func(p int) string {
		v := url.Values{}
		for _, k := range []string{"To", "From", "DateSent>", "DateSent<"} {
			if q.Has(k) {
				v.Set(k, q.Get(k))
			}
		}
		v.Set("PageSize", strconv.Itoa(size))
		v.Set("Page", strconv.Itoa(p))
		if p > 0 {
			v.Set("PageToken", fmt.Sprintf("PASM%032x", p*size))
		}
		return prefix + "/Messages.json?" + v.Encode()
	}
	var next, prev any
	if (page+1)*size < len(match) {
		next = pageURI(page + 1)
	}
	if page > 0 {
		prev = pageURI(page - 1)
	}
	writeJSON(w, 200, map[string]any{"messages": items, "page": page, "page_size": size, "start": page * size,
		"end": page*size + len(items) - 1, "first_page_uri": pageURI(0), "next_page_uri": next, "previous_page_uri": prev,
		"uri": r.URL.RequestURI()})
}

// oneMessage answers GET Messages/{sid}.json, …/Media.json and …/Media/{ME…} (the file).
func (f *Twilio) oneMessage(w http.ResponseWriter, r *http.Request, prefix, rest string) {
	sid, sub, _ := strings.Cut(rest, "/")
	sid = strings.TrimSuffix(sid, ".json")
	f.mu.Lock()
	var m *TwilioMessage
	for _, x := range f.messages {
		if x.SID == sid {
			c := *x
			m = &c
		}
	}
	f.mu.Unlock()
	if m == nil {
		f.notFound(w, r.URL.Path)
		return
	}
	switch {
	case sub == "":
		writeJSON(w, 200, f.messageResource(m))
	case sub == "Media.json":
		list := []map[string]any{}
		for _, md := range m.Media {
			list = append(list, map[string]any{"sid": md.SID, "account_sid": f.AccountSID, "parent_sid": m.SID,
				"content_type": md.ContentType, "date_created": m.DateSent.UTC().Format(time.RFC1123Z),
				"uri": prefix + "/Messages/" + m.SID + "/Media/" + md.SID + ".json"})
		}
		writeJSON(w, 200, map[string]any{"media_list": list, "page": 0, "page_size": 50, "next_page_uri": nil,
			"previous_page_uri": nil, "uri": r.URL.RequestURI()})
	default:
		for _, md := range m.Media {
			if sub == "Media/"+md.SID {
				w.Header().Set("Content-Type", md.ContentType)
				w.WriteHeader(http.StatusOK)
				_, _ = w.Write(md.Data)
				return
			}
		}
		f.notFound(w, r.URL.Path)
	}
}
