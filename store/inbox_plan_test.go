package store_test

import (
	"fmt"
	"slices"
	"testing"

	"switchboard/store"
)

// allPages pages through search q, returning every row's conversation id and phone, in order.
func allPages(t *testing.T, f *fixture, q string) []string {
	t.Helper()
	var out []string
	cursor := ""
	for range 100 {
		items, next, err := f.s.InboxPage(f.ws, store.InboxFilter{Search: q, Before: cursor})
		if err != nil {
			t.Fatal(err)
		}
		for _, it := range items {
			out = append(out, it.Conversation.ID+" "+it.Conversation.Addresses[0])
		}
		if next == "" {
			return out
		}
		cursor = next
	}
	t.Fatalf("search %q: more than 100 pages", q)
	return nil
}

// holidaysFixture: 600 conversations got the campaign "Happy holidays from Acme" after 200
// others got "Spring sale"; 20 of the campaign's recipients replied since.
func holidaysFixture(t *testing.T) *fixture {
	t.Helper()
	f := newFixture(t)
	broadcast := func(text string, from, n int) {
		var to []string
		for i := range n {
			to = append(to, fmt.Sprintf("+1415666%04d", from+i))
		}
		if _, err := f.s.SendBroadcast(f.ws, store.BroadcastInput{From: f.number, Recipients: to, Text: text}); err != nil {
			t.Fatal(err)
		}
	}
	broadcast("Spring sale", 0, 200)
	broadcast("Happy holidays from Acme", 200, 600)
	for i := range 20 {
		receive(t, f, fmt.Sprintf("+1415666%04d", 200+i*30), "thanks, you too")
	}
	return f
}

// TestInboxSearchCommonWordReadsAPage: a word in every recent conversation costs about one
// page of work (conversations passed, messages read, postings decoded), not work for every
// conversation that holds it; and the rows are those the postings give.
func TestInboxSearchCommonWordReadsAPage(t *testing.T) {
	if testing.Short() {
		t.Skip("creates 800 conversations")
	}
	f := holidaysFixture(t)
	defer store.SetInboxWalk(100, 2_000)()
	items, next, w, err := store.InboxPageWork(f.s, f.ws, store.InboxFilter{Search: "holidays"})
	if err != nil || len(items) != 50 || next == "" {
		t.Fatalf("holidays: %d rows, next %q, %v; want 50 and more", len(items), next, err)
	}
	if bound := 4 * 51; w.Entries+w.Postings+w.Messages+w.Slots > bound {
		t.Errorf("holidays in 600 conversations did %+v, want at most %d in all", w, bound)
	}
	walked := allPages(t, f, "holidays")
	restore := store.SetInboxWalk(1<<30, 2_000) // the postings' set, whatever the count
	bySet := allPages(t, f, "holidays")
	restore()
	if len(walked) != 600 || !slices.Equal(walked, bySet) {
		t.Errorf("walking found %d conversations, the postings %d; want the same 600 in the same order", len(walked), len(bySet))
	}
}

// TestInboxSearchLongThreadWalk: a long thread, newest, without the word, is decided from the
// postings rather than read whole, and every plan gives the same pages.
func TestInboxSearchLongThreadWalk(t *testing.T) {
	if testing.Short() {
		t.Skip("creates 800 conversations")
	}
	f := holidaysFixture(t)
	for i := range 40 {
		receive(t, f, "+14155550999", fmt.Sprintf("where is my order %d", i))
	}
	receive(t, f, "+14155550998", "Holidays plans?")
	restore := store.SetInboxWalk(1<<30, 2_000)
	bySet := allPages(t, f, "holid")
	restore()
	for _, bounds := range [][2]int{{100, 2_000}, {100, 30}, {100, 0}} {
		restore := store.SetInboxWalk(bounds[0], bounds[1])
		items, _, w, err := store.InboxPageWork(f.s, f.ws, store.InboxFilter{Search: "holid"})
		got := allPages(t, f, "holid")
		restore()
		if err != nil || len(items) != 50 || len(got) != 601 || got[0][27:] != "+14155550998" || !slices.Equal(got, bySet) {
			t.Fatalf("bounds %v: first page %d rows (%v), all %d; want 50, and the postings' 601 in their order, newest first", bounds, len(items), err, len(got))
		}
		if w.Messages > 40+3*51 {
			t.Errorf("bounds %v: read %d messages, want the long thread left to the postings", bounds, w.Messages)
		}
	}
}

// FuzzInboxPlansAgree: whatever the search text, walking the conversations and testing their
// messages gives the same rows as the postings' set.
func FuzzInboxPlansAgree(f *testing.F) {
	fx := newFixture(f)
	texts := []string{"Happy holidays from Acme", "Olá José, ça va?", "order 1234 shipped", "ﬁnance Straße", "holiday-sale: 50% off", "x"}
	for i, text := range texts {
		for j := range 3 {
			if _, err := fx.s.RecordInboundMessage(fx.ws, store.InboundMessage{From: fmt.Sprintf("+1415777%02d%02d", i, j), To: fx.number, Text: text + fmt.Sprint(" ", j)}); err != nil {
				f.Fatal(err)
			}
		}
	}
	for _, s := range []string{"holi", "jose ca", "1234", "finance strasse", "50", "x 2", "ß", ""} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, q string) {
		page := func(postings, messages int) []string {
			defer store.SetInboxWalk(postings, messages)()
			items, next, err := fx.s.InboxPage(fx.ws, store.InboxFilter{Search: q, Limit: 5})
			if err != nil {
				t.Fatalf("InboxPage(%q): %v", q, err)
			}
			out := []string{next}
			for _, it := range items {
				out = append(out, it.Conversation.ID)
			}
			return out
		}
		if walked, bySet := page(0, 2_000), page(1<<30, 2_000); !slices.Equal(walked, bySet) {
			t.Errorf("search %q: walking gives %v, the postings %v", q, walked, bySet)
		}
	})
}
