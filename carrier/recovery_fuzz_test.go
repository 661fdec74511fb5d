package carrier

import (
	"net/url"
	"strings"
	"testing"
	"unicode/utf8"

	"switchboard/store"
)

// Seeds: the listings' documented answers, and their near misses.
var listingSeeds = []string{
	`{"messages":[{"sid":"SM0123","from":"+14155550111","to":"+14155550100","body":"STOP","direction":"inbound","status":"received","date_sent":"Tue, 04 Mar 2025 11:00:00 +0000","date_created":"Tue, 04 Mar 2025 11:00:00 +0000","num_media":"1","error_code":null,"subresource_uris":{"media":"/2010-04-01/Accounts/AC1/Messages/SM0123/Media.json"}}],"next_page_uri":"/2010-04-01/Accounts/AC1/Messages.json?To=%2B14155550100&Page=1&PageToken=PA1","page":0}`,
	`{"messages":[{"sid":"SM1","direction":"outbound-api","status":"undelivered","error_code":30003,"num_media":0,"date_sent":null}],"next_page_uri":null}`,
	`{"messages":[{"sid":"","body":"no sid"},{"sid":"SM2","num_media":"99","error_code":"3x","date_sent":"yesterday"}]}`,
	`{"sid":"SM0123","status":"delivered","error_code":null,"to":"+14155550111","from":"+14155550100"}`,
	`{"media_list":[{"sid":"ME1","content_type":"image/jpeg","uri":"/2010-04-01/Accounts/AC1/Messages/SM1/Media/ME1.json"},{"uri":""}],"next_page_uri":null}`,
	`{"data":[{"record_type":"message_detail_record","uuid":"3ca7bd3d-7d82-4e07-9df4-009123068320","direction":"inbound","cli":"+14155550111","cld":"+14155550200","status":"received","created_at":"2025-03-04T11:00:00Z","message_type":"SMS","errors":[]}],"meta":{"page_number":1,"page_size":50,"total_pages":2,"total_results":52}}`,
	`{"data":[{"record_type":"conference_detail_record","id":"x"},{"uuid":""}],"meta":{"total_pages":-3}}`,
	`{"data":{"id":"40385f64","record_type":"message","direction":"inbound","from":{"phone_number":"+14155550111"},"to":[{"phone_number":"+14155550200","status":"webhook_delivered"}],"text":"START","media":[{"url":"https://media.example/a.jpg"}],"errors":[]}}`,
	`{"data":{"id":"40385f64","direction":"outbound","to":[{"phone_number":"+14155550111","status":"delivery_failed"}],"errors":[{"code":40002,"title":"Blocked"}]}}`,
	`{"data":{"id":"","to":[]}}`,
	`{"errors":[{"code":"10005","title":"Resource not found"}]}`,
	`null`, `[]`, `{`, ``, `{"data":null}`, `{"messages":null}`, "\xff\xfe",
}

// FuzzListingDecoders: whatever a carrier's listing answers, the decoders neither panic nor let
// through a message without its id, an id too long to be a key, a media count past what a text
// can carry, a code that is not digits, or a next page outside the account; and what they let
// through becomes an inbound text or a receipt only through the webhooks' own parsers.
func FuzzListingDecoders(f *testing.F) {
	for _, s := range listingSeeds {
		f.Add([]byte(s))
	}
	tw := &twilioListings{path: "/2010-04-01/Accounts/AC1", base: "https://api.twilio.example"}
	f.Fuzz(func(t *testing.T, body []byte) {
		checkTwilio := func(what string, m twilioMessage) {
			if m.SID == "" || len(m.SID) > maxSIDLen || m.NumMedia < 0 || m.NumMedia > MaxInboundMedia ||
				strings.IndexFunc(m.ErrorCode, func(r rune) bool { return r < '0' || r > '9' }) >= 0 {
				t.Fatalf("%s let through %+v", what, m)
			}
			form := url.Values{"MessageSid": {m.SID}, "From": {m.From}, "To": {m.To}, "Body": {m.Body}}
			if in, err := ParseInboundSMS(form); err == nil && (!store.ValidE164(in.To) || !utf8.ValidString(in.Text)) {
				t.Fatalf("%s became an inbound text %+v", what, in)
			}
		}
		if p, err := decodeTwilioMessagePage(body); err == nil {
			for _, m := range p.Messages {
				checkTwilio("twilio page", m)
			}
			if p.Next != "" && tw.own(p.Next, "/Messages.json?") && !strings.HasPrefix(p.Next, tw.path+"/Messages.json?") {
				t.Fatalf("next page %q taken as the account's", p.Next)
			}
		}
		if m, err := decodeTwilioMessage(body); err == nil {
			checkTwilio("twilio message", m)
		}
		if uris, err := decodeTwilioMediaList(body); err == nil {
			for _, u := range uris {
				if u == "" {
					t.Fatal("an empty media URI")
				}
				if tw.own(u, "/Messages/") && (strings.Contains(u, "..") || strings.ContainsAny(u, "#\\\r\n")) {
					t.Fatalf("media URI %q taken as the account's", u)
				}
			}
		}
		if p, err := decodeTelnyxDetailPage(body); err == nil {
			if p.TotalPages < 0 {
				t.Fatalf("total pages %d", p.TotalPages)
			}
			for _, r := range p.Records {
				if r.ID == "" || len(r.ID) > maxSIDLen {
					t.Fatalf("detail record %+v", r)
				}
			}
		}
		if p, err := decodeTelnyxMessage(body); err == nil {
			if p.ID == "" {
				t.Fatal("a message without its id")
			}
			if in, err := p.inbound("data"); err == nil {
				if in.MessageSID == "" || !store.ValidE164(in.To) || len(in.Media) > MaxInboundMedia || !utf8.ValidString(in.Text) {
					t.Fatalf("telnyx message became %+v", in)
				}
			}
			if st, err := p.receipt(TelnyxMessageFinalized, "data"); err == nil {
				switch st.Status {
				case "", "delivered", "failed":
				default:
					t.Fatalf("telnyx receipt status %q", st.Status)
				}
			}
		}
	})
}
