package store_test

import (
	"fmt"
	"slices"
	"testing"
	"time"

	"switchboard/internal/testutil"
	"switchboard/store"
)

func receive(t testing.TB, f *fixture, from, text string) store.Message {
	t.Helper()
	m, err := f.s.RecordInboundMessage(f.ws, store.InboundMessage{From: from, To: f.number, Text: text})
	if err != nil {
		t.Fatalf("RecordInboundMessage: %v", err)
	}
	return m
}

func searchPhones(t testing.TB, f *fixture, fl store.InboxFilter) []string {
	t.Helper()
	items, _, err := f.s.InboxPage(f.ws, fl)
	if err != nil {
		t.Fatal(err)
	}
	return inboxPhones(items)
}

// TestInboxSearchKinds: the contact's folded name, the number in any formatting and the words
// of one message each find the conversation; words spread over two messages do not.
func TestInboxSearchKinds(t *testing.T) {
	f := newFixture(t)
	f.contact(t, "+14155550123", "José", "Núñez")
	f.contact(t, "+14155550124", "Ana", "Lima")
	receive(t, f, "+14155550123", "Hello, I need a refund for my order")
	receive(t, f, "+14155550124", "Where is the parcel?")
	send(t, f, "+14155550124", "Your refund is on its way")
	send(t, f, "+14155550125", "Reminder: appointment tomorrow")

	for _, c := range []struct {
		q    string
		want []string
	}{
		{"jose", []string{"+14155550123"}},
		{"JOSÉ núñ", []string{"+14155550123"}},
		{"nunez", []string{"+14155550123"}},
		{"(415) 555-0123", []string{"+14155550123"}},
		{"4155550123", []string{"+14155550123"}},
		{"+1 415 555 0123", []string{"+14155550123"}},
		{"+14155550123", []string{"+14155550123"}},
		{"555-012", []string{"+14155550125", "+14155550124", "+14155550123"}},
		{"refund", []string{"+14155550124", "+14155550123"}},
		{"REF ord", []string{"+14155550123"}},
		{"appoint tomorrow", []string{"+14155550125"}},
		// "parcel" and "refund" were said in two different messages of the same conversation.
		{"parcel refund", nil},
		{"nothing-like-this", nil},
	} {
		if got := searchPhones(t, f, store.InboxFilter{Search: c.q}); !slices.Equal(got, c.want) {
			t.Errorf("search %q = %v, want %v", c.q, got, c.want)
		}
	}
	// Combined with the filters: the contact's text reopened José's conversation; closed
	// conversations that match are found with the closed filter only.
	items, _ := f.s.Inbox(f.ws, store.InboxFilter{Search: "refund"})
	closed := store.ConversationClosed
	if _, err := f.s.UpdateConversation(f.ws, items[0].Conversation.ID, store.ConversationUpdate{Status: &closed}); err != nil {
		t.Fatal(err)
	}
	if got := searchPhones(t, f, store.InboxFilter{Search: "refund", Status: store.ConversationOpen}); !slices.Equal(got, []string{"+14155550123"}) {
		t.Errorf("refund among open = %v, want José's", got)
	}
	if got := searchPhones(t, f, store.InboxFilter{Search: "refund", Status: store.ConversationClosed}); !slices.Equal(got, []string{"+14155550124"}) {
		t.Errorf("refund among closed = %v, want Ana's", got)
	}
}

// TestInboxSearchBeyondTheNewest: a customer behind thousands of newer conversations is found
// on the first page, never a false "no match".
func TestInboxSearchBeyondTheNewest(t *testing.T) {
	if testing.Short() {
		t.Skip("creates 2,100 conversations")
	}
	f := newFixture(t)
	f.contact(t, "+14155550123", "José", "Núñez")
	receive(t, f, "+14155550123", "My invoice number is wrong")
	var many []string
	for i := range 2100 {
		many = append(many, fmt.Sprintf("+1415666%04d", i))
	}
	if _, err := f.s.SendBroadcast(f.ws, store.BroadcastInput{From: f.number, Recipients: many, Text: "Spring sale"}); err != nil {
		t.Fatal(err)
	}
	for _, q := range []string{"jose", "invoice wrong", "(415) 555-0123"} {
		if got := searchPhones(t, f, store.InboxFilter{Search: q, Limit: 50}); !slices.Equal(got, []string{"+14155550123"}) {
			t.Errorf("search %q behind 2,100 newer conversations = %v, want José's", q, got)
		}
	}
	// The broadcast's copies match "sale": 50 a page, then a cursor, until all 2,100 are seen.
	seen, cursor := 0, ""
	for pages := 0; ; pages++ {
		items, next, err := f.s.InboxPage(f.ws, store.InboxFilter{Search: "sale", Before: cursor})
		if err != nil {
			t.Fatal(err)
		}
		if len(items) != 50 && next != "" {
			t.Fatalf("page %d: %d rows with a next page, want 50", pages, len(items))
		}
		seen += len(items)
		if next == "" {
			break
		}
		cursor = next
	}
	if seen != 2100 {
		t.Errorf("paging through \"sale\" saw %d conversations, want 2100", seen)
	}
}

// TestInboxSearchPagesExactly: "Older conversations" exists exactly when more match.
func TestInboxSearchPagesExactly(t *testing.T) {
	f := newFixture(t)
	for i := range 5 {
		send(t, f, fmt.Sprintf("+141555502%02d", i), "winter promo")
		send(t, f, fmt.Sprintf("+141555503%02d", i), "unrelated")
	}
	items, next, err := f.s.InboxPage(f.ws, store.InboxFilter{Search: "promo", Limit: 5})
	if err != nil || len(items) != 5 || next != "" {
		t.Fatalf("5 matches, limit 5: %d rows, next %q, %v; want 5 and no next page", len(items), next, err)
	}
	items, next, _ = f.s.InboxPage(f.ws, store.InboxFilter{Search: "promo", Limit: 4})
	if len(items) != 4 || next == "" {
		t.Fatalf("5 matches, limit 4: %d rows, next %q; want 4 and a next page", len(items), next)
	}
	rest, next2, _ := f.s.InboxPage(f.ws, store.InboxFilter{Search: "promo", Limit: 4, Before: next})
	if len(rest) != 1 || next2 != "" || rest[0].Conversation.ID == items[3].Conversation.ID {
		t.Errorf("second page: %d rows, next %q; want the fifth match alone", len(rest), next2)
	}
}

// TestMessageWordsDeletedWithTheMessage: retention takes a message's words with it.
func TestMessageWordsDeletedWithTheMessage(t *testing.T) {
	clock := testutil.NewClock(mustTime(t, "2026-01-10T10:00:00Z"))
	f := newFixtureOn(t, openStore(t, store.Options{Now: clock.Now}))
	receive(t, f, "+14155550123", "the parcel is damaged")
	clock.Advance(48 * time.Hour)
	receive(t, f, "+14155550124", "the parcel arrived")
	if got := searchPhones(t, f, store.InboxFilter{Search: "parcel"}); len(got) != 2 {
		t.Fatalf("before the sweep: %v, want both", got)
	}
	if n, err := f.s.SweepMessages(f.ws, clock.Now().Add(-24*time.Hour)); err != nil || n != 1 {
		t.Fatalf("sweep deleted %d, %v; want 1", n, err)
	}
	if got := searchPhones(t, f, store.InboxFilter{Search: "damaged"}); len(got) != 0 {
		t.Errorf("a deleted message's words still match: %v", got)
	}
	if got := searchPhones(t, f, store.InboxFilter{Search: "parcel"}); !slices.Equal(got, []string{"+14155550124"}) {
		t.Errorf("after the sweep \"parcel\" = %v, want the kept message's conversation", got)
	}
}

func mustTime(t testing.TB, s string) time.Time {
	t.Helper()
	at, err := time.Parse(time.RFC3339, s)
	if err != nil {
		t.Fatal(err)
	}
	return at
}
