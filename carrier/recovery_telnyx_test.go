package carrier_test

import (
	"strings"
	"testing"
	"time"

	"switchboard/internal/fakecarrier"
	"switchboard/store"
)

// TestRecoveryTakesInTelnyxTexts: Telnyx's Detail Record Search lists what the number received
// since the last check (paged by 50), each text not seen is read from the Messages API and taken
// in as its webhook would have been; a START after a recovered STOP leaves the sender opted in.
func TestRecoveryTakesInTelnyxTexts(t *testing.T) {
	e := newRecEnv(t, nil)
	e.clock.Advance(-2 * time.Hour)
	var want []string
	for i := range 52 { // two pages of detail records
		text := "message " + string(rune('A'+i%26)) + string(rune('a'+i/26))
		e.telnyx.Receive(bob, recTelnyxPhone, text)
		want = append(want, bob+": "+text)
		e.clock.Advance(time.Second)
	}
	e.telnyx.Receive(alice, recTelnyxPhone, "stop")
	e.clock.Advance(time.Minute)
	e.telnyx.Receive(alice, recTelnyxPhone, "START", "https://media.telnyx.example/photo.jpg")
	e.clock.Set(time.Date(2025, 3, 4, 12, 0, 0, 0, time.UTC))

	got := e.check(t)[store.ProviderTelnyx]
	if got.Error != "" || got.Texts != 54 {
		t.Fatalf("check: %+v, want 54 texts", got)
	}
	texts := e.texts(t)
	want = append(want, alice+": stop", alice+": START")
	if strings.Join(texts, "\n") != strings.Join(want, "\n") {
		t.Fatalf("inbox:\n%s\nwant:\n%s", strings.Join(texts, "\n"), strings.Join(want, "\n"))
	}
	if in := e.inbox(t); len(in[len(in)-1].Media) != 1 {
		t.Fatalf("recovered MMS media %v", in[len(in)-1].Media)
	}
	if _, opted, _ := e.st.OptOutOf(e.ws, alice); opted {
		t.Fatal("STOP then START, recovered in their order: the sender is still opted out")
	}
	var records []fakecarrier.Request
	for _, r := range e.telnyx.Requests() {
		if r.Path == "/v2/detail_records" {
			records = append(records, r)
		}
	}
	if len(records) != 2 {
		t.Fatalf("detail record searches: %d, want 2 pages", len(records))
	}
	q := records[0].Query
	if q.Get("filter[record_type]") != "messaging" || q.Get("filter[direction]") != "inbound" || q.Get("filter[cld]") != recTelnyxPhone ||
		q.Get("filter[created_at][gte]") != "2025-03-03T12:00:00Z" || q.Get("page[size]") != "50" || records[1].Query.Get("page[number]") != "2" {
		t.Fatalf("detail record search %v", q)
	}
	if v := e.metric(t, "switchboard_inbound_recovered_total", "telnyx"); v != 54 {
		t.Fatalf("switchboard_inbound_recovered_total{carrier=telnyx} = %v", v)
	}
	e.clock.Advance(5 * time.Minute)
	reads := e.telnyx.Count("GET", "")
	if again := e.check(t)[store.ProviderTelnyx]; again.Texts != 0 || len(e.inbox(t)) != 54 {
		t.Fatalf("second check: %+v, inbox %d", again, len(e.inbox(t)))
	}
	for _, r := range e.telnyx.Requests()[reads:] {
		if strings.HasPrefix(r.Path, "/v2/messages/") {
			t.Fatalf("a known text was read again: %s", r.Path)
		}
	}
}

// TestRecoveryTelnyxStatuses: a send still "sent" gets Telnyx's status for it, read one by one
// from the Messages API: delivered, or failed with Telnyx's error code.
func TestRecoveryTelnyxStatuses(t *testing.T) {
	e := newRecEnv(t, nil)
	send := func(to string) (string, string) {
		m, err := e.st.SendMessage(e.ws, store.SendInput{From: recTelnyxPhone, To: []string{to}, Text: "Your order shipped"})
		if err != nil {
			t.Fatal(err)
		}
		return m.ID, e.accept(t, store.ProviderTelnyx, m)
	}
	ok, okID := send(alice)
	bad, badID := send(bob)
	e.telnyx.SetStatus(okID, "delivered", "")
	e.telnyx.SetStatus(badID, "delivery_failed", "40002")
	e.clock.Advance(5 * time.Minute)
	if c := e.check(t)[store.ProviderTelnyx]; c.Statuses != 2 || c.Error != "" {
		t.Fatalf("check %+v, want 2 statuses", c)
	}
	if m := e.message(t, ok); m.Status != store.MessageDelivered {
		t.Fatalf("delivered send: %s", m.Status)
	}
	if m := e.message(t, bad); m.Status != store.MessageFailed || m.ProviderErr != "telnyx 40002" {
		t.Fatalf("failed send: %s %q", m.Status, m.ProviderErr)
	}
}

// TestRecoveryTelnyxFailures: a detail record search that fails or answers garbage fails the
// check, which the next one makes good.
func TestRecoveryTelnyxFailures(t *testing.T) {
	e := newRecEnv(t, nil)
	e.telnyx.Receive(alice, recTelnyxPhone, "anyone there?")
	e.telnyx.Fail("records", fakecarrier.Fault{Status: 200, Body: `{"data":{}}`})
	if c := e.check(t)[store.ProviderTelnyx]; !strings.Contains(c.Error, "Telnyx's answer could not be read") {
		t.Fatalf("garbage: %+v", c)
	}
	e.telnyx.Fail("message", fakecarrier.Fault{Status: 500, Body: `{"errors":[{"code":"10007","title":"Unexpected error"}]}`})
	if c := e.check(t)[store.ProviderTelnyx]; !strings.Contains(c.Error, "Telnyx had a problem (HTTP 500)") {
		t.Fatalf("a message that cannot be read: %+v", c)
	}
	if c := e.check(t)[store.ProviderTelnyx]; c.Error != "" || c.Texts != 1 {
		t.Fatalf("third check: %+v, want the text", c)
	}
}
