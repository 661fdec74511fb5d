package carrier

import (
	"context"
	"encoding/json"
	"log/slog"
	"net/http"
	"net/url"
	"slices"
	"strconv"
	"strings"
	"time"
)

// Twilio's message listings as the inbound recovery reads them, HTTP Basic as for the account
// API, answers JSON:
//
//	GET …/Messages.json?To=+1…&DateSent>=2024-02-01T10:00:00Z&PageSize=100
//	    {"messages":[{"sid":"SM…","from":"+1…","to":"+1…","body":"…","direction":"inbound","status":"received",
//	                  "date_sent":"Thu, 01 Feb 2024 10:00:00 +0000","num_media":"1","error_code":null,
//	                  "subresource_uris":{"media":"/2010-04-01/Accounts/AC…/Messages/SM…/Media.json"}}],
//	     "next_page_uri":"/2010-04-01/Accounts/AC…/Messages.json?…&Page=1&PageToken=PA…"|null, …}
//	GET …/Messages/{Sid}/Media.json    {"media_list":[{"sid":"ME…","content_type":"image/jpeg",
//	                                     "uri":"/2010-04-01/Accounts/AC…/Messages/SM…/Media/ME….json"}],"next_page_uri":…}
//	GET …/Messages/{Sid}.json          one message resource: its status and error_code
//
// The newest come first; the recovery puts them in order. A media file's URL is its resource's
// without ".json", as Twilio's webhook gives it (MediaUrl0).

// twilioListings reads one Twilio account's messages.
type twilioListings struct {
	api      apiClient
	account  string // {base}/2010-04-01/Accounts/{sid}
	path     string // /2010-04-01/Accounts/{sid}: the prefix of every URI Twilio gives back
	base     string
	pageSize int
}

func newTwilioListings(a TwilioAccount, base string, client *http.Client, cfg apiConfig, pageSize int) *twilioListings {
	n := newTwilioNumbers(a, base, "", client, cfg)
	return &twilioListings{api: n.api, account: n.account, path: n.path, base: base, pageSize: pageSize}
}

// own reports whether uri is one of this account's message resources under suffix: only such
// paths are ever requested, whatever an answer points to.
func (t *twilioListings) own(uri, suffix string) bool {
	return strings.HasPrefix(uri, t.path+suffix) && !strings.ContainsAny(uri, "#\\\r\n") && !strings.Contains(uri, "..")
}

func (t *twilioListings) received(ctx context.Context, number string, since time.Time, known knownFunc) ([]InboundSMS, error) {
	q := url.Values{"To": {number}, "DateSent>": {since.UTC().Format(time.RFC3339)}, "PageSize": {strconv.Itoa(t.pageSize)}}
	next := t.account + "/Messages.json?" + q.Encode()
	var out []InboundSMS
	for pages := 0; next != ""; pages++ {
		if pages == maxListingPages {
			return nil, &APIError{Carrier: "Twilio", Kind: KindGarbage, Status: http.StatusOK}
		}
		var raw json.RawMessage
		if err := t.api.do(ctx, http.MethodGet, next, "", nil, &raw); err != nil {
			return nil, err
		}
		page, err := decodeTwilioMessagePage(raw)
		if err != nil {
			return nil, t.api.garbage(http.StatusOK)
		}
		var ids []string
		for _, m := range page.Messages {
			ids = append(ids, m.SID)
		}
		seen, err := known(ids)
		if err != nil {
			return nil, err
		}
		for _, m := range page.Messages {
			if m.Direction != "inbound" || m.Status == "receiving" || seen[m.SID] {
				continue // a send, a text still arriving (the next check takes it), or one we have
			}
			in, ok, err := t.inbound(ctx, m, since)
			if err != nil {
				return nil, err
			}
			if ok {
				out = append(out, in)
			}
		}
		next = ""
		if page.Next != "" {
			if !t.own(page.Next, "/Messages.json?") {
				return nil, t.api.garbage(http.StatusOK)
			}
			next = t.base + page.Next
		}
	}
	// Twilio lists the newest first: oldest first is the order they came in, even within the
	// second its dates are given to.
	slices.Reverse(out)
	return out, nil
}

// inbound is a listed text as its webhook would have posted it, read by the webhook's own
// parser; false for one it would refuse (no E.164 To, say), which is left out.
func (t *twilioListings) inbound(ctx context.Context, m twilioMessage, since time.Time) (InboundSMS, bool, error) {
	form := url.Values{"MessageSid": {m.SID}, "From": {m.From}, "To": {m.To}, "Body": {m.Body}}
	if m.NumMedia > 0 {
		media, err := t.media(ctx, m.MediaURI)
		if err != nil {
			return InboundSMS{}, false, err
		}
		form.Set("NumMedia", strconv.Itoa(len(media)))
		for i, u := range media {
			form.Set("MediaUrl"+strconv.Itoa(i), u)
		}
	}
	in, err := ParseInboundSMS(form)
	if err != nil {
		slog.Warn("inbound recovery: listed text not recorded", "carrier", "twilio", "sid", m.SID, "reason", err.Error())
		return InboundSMS{}, false, nil
	}
	in.SentAt = m.SentAt
	if in.SentAt.IsZero() {
		in.SentAt = since // no date to read: it came at the earliest when the window opens
	}
	return in, true, nil
}

// media lists a text's media files, as the URLs its webhook would have given.
func (t *twilioListings) media(ctx context.Context, uri string) ([]string, error) {
	if !t.own(uri, "/Messages/") {
		return nil, t.api.garbage(http.StatusOK)
	}
	var raw json.RawMessage
	if err := t.api.do(ctx, http.MethodGet, t.base+uri, "", nil, &raw); err != nil {
		return nil, err
	}
	uris, err := decodeTwilioMediaList(raw)
	if err != nil {
		return nil, t.api.garbage(http.StatusOK)
	}
	var out []string
	for _, u := range uris {
		if t.own(u, "/Messages/") && len(out) < MaxInboundMedia {
			out = append(out, t.base+strings.TrimSuffix(u, ".json"))
		}
	}
	return out, nil
}

func (t *twilioListings) status(ctx context.Context, id string) (StatusUpdate, bool, error) {
	var raw json.RawMessage
	err := t.api.do(ctx, http.MethodGet, t.account+"/Messages/"+url.PathEscape(id)+".json", "", nil, &raw)
	if IsKind(err, KindNotFound) {
		return StatusUpdate{}, false, nil
	}
	if err != nil {
		return StatusUpdate{}, false, err
	}
	m, err := decodeTwilioMessage(raw)
	if err != nil || m.SID != id {
		return StatusUpdate{}, false, t.api.garbage(http.StatusOK)
	}
	return StatusUpdate{MessageSID: id, Status: m.Status, ErrorCode: m.ErrorCode}, true, nil
}

// twilioMessage is a message resource, the fields the recovery reads.
type twilioMessage struct {
	SID, From, To, Body, Direction, Status string
	ErrorCode                              string // digits, or ""
	SentAt                                 time.Time
	NumMedia                               int
	MediaURI                               string
}

type twilioMessageJSON struct {
	SID         string          `json:"sid"`
	From        string          `json:"from"`
	To          string          `json:"to"`
	Body        string          `json:"body"`
	Direction   string          `json:"direction"`
	Status      string          `json:"status"`
	DateSent    *string         `json:"date_sent"`
	DateCreated *string         `json:"date_created"`
	NumMedia    json.RawMessage `json:"num_media"`
	ErrorCode   json.RawMessage `json:"error_code"`
	URIs        struct {
		Media string `json:"media"`
	} `json:"subresource_uris"`
}

// message is the resource as the recovery reads it; false without a sid.
func (j *twilioMessageJSON) message() (twilioMessage, bool) {
	if j.SID == "" || len(j.SID) > maxSIDLen {
		return twilioMessage{}, false
	}
	m := twilioMessage{SID: j.SID, From: j.From, To: j.To, Body: j.Body, MediaURI: j.URIs.Media,
		Direction: strings.ToLower(strings.TrimSpace(j.Direction)), Status: strings.ToLower(strings.TrimSpace(j.Status))}
	for _, d := range []*string{j.DateSent, j.DateCreated} {
		if d == nil {
			continue
		}
		if at, err := time.Parse(time.RFC1123Z, *d); err == nil {
			m.SentAt = at.UTC()
			break
		}
	}
	if n := twilioNumber(j.NumMedia); n != "" {
		m.NumMedia, _ = strconv.Atoi(n)
		m.NumMedia = min(m.NumMedia, MaxInboundMedia)
	}
	m.ErrorCode = twilioNumber(j.ErrorCode)
	return m, true
}

// twilioNumber reads a count or code Twilio sends as a number or a string of digits ("1", 1);
// "" for null, 0 codes and anything else.
func twilioNumber(raw json.RawMessage) string {
	s := decimal(raw)
	if s == "0" || len(s) > 10 || strings.Contains(s, ".") {
		return ""
	}
	return s
}

// twilioMessagePage is one page of a message listing.
type twilioMessagePage struct {
	Messages []twilioMessage
	Next     string
}

// decodeTwilioMessagePage reads a page of Messages; entries without a sid are left out.
func decodeTwilioMessagePage(body []byte) (twilioMessagePage, error) {
	var j struct {
		Messages *[]twilioMessageJSON `json:"messages"`
		Next     *string              `json:"next_page_uri"`
	}
	if err := json.Unmarshal(body, &j); err != nil {
		return twilioMessagePage{}, err
	}
	if j.Messages == nil {
		return twilioMessagePage{}, errUnreadable
	}
	var p twilioMessagePage
	if j.Next != nil {
		p.Next = *j.Next
	}
	for i := range *j.Messages {
		if m, ok := (*j.Messages)[i].message(); ok {
			p.Messages = append(p.Messages, m)
		}
	}
	return p, nil
}

// decodeTwilioMessage reads one message resource.
func decodeTwilioMessage(body []byte) (twilioMessage, error) {
	var j twilioMessageJSON
	if err := json.Unmarshal(body, &j); err != nil {
		return twilioMessage{}, err
	}
	m, ok := j.message()
	if !ok {
		return twilioMessage{}, errUnreadable
	}
	return m, nil
}

// decodeTwilioMediaList reads a message's media list: the resources' URIs.
func decodeTwilioMediaList(body []byte) ([]string, error) {
	var j struct {
		Media *[]struct {
			URI string `json:"uri"`
		} `json:"media_list"`
	}
	if err := json.Unmarshal(body, &j); err != nil {
		return nil, err
	}
	if j.Media == nil {
		return nil, errUnreadable
	}
	var out []string
	for _, m := range *j.Media {
		if m.URI != "" {
			out = append(out, m.URI)
		}
	}
	return out, nil
}
