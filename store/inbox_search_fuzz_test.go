package store_test

import (
	"testing"

	"switchboard/store"
)

// FuzzInboxQueryAndCursors: any search text and any cursor give a page (no error, no panic),
// and a thread window of any cursor is at most ThreadMax items.
func FuzzInboxQueryAndCursors(f *testing.F) {
	fx := newFixture(f)
	fx.contact(f, "+14155550123", "José", "Núñez")
	for _, text := range []string{"refund please", "order 1234 shipped", "olá"} {
		if _, err := fx.s.RecordInboundMessage(fx.ws, store.InboundMessage{From: "+14155550123", To: fx.number, Text: text}); err != nil {
			f.Fatal(err)
		}
	}
	items, _ := fx.s.Inbox(fx.ws, store.InboxFilter{})
	conv := items[0].Conversation.ID
	for _, s := range [][2]string{{"jose", ""}, {"(415) 555-0123", items[0].Cursor}, {"ref ord", "zz"}, {"+1 4", "00"}, {"\x00", conv}} {
		f.Add(s[0], s[1])
	}
	f.Fuzz(func(t *testing.T, q, cursor string) {
		if _, _, err := fx.s.InboxPage(fx.ws, store.InboxFilter{Search: q, Before: cursor}); err != nil {
			t.Fatalf("InboxPage(%q, %q): %v", q, cursor, err)
		}
		for _, tq := range []store.ThreadQuery{{Before: cursor}, {From: cursor}} {
			w, err := fx.s.Thread(fx.ws, conv, tq)
			if err != nil || len(w.Items) > store.ThreadMax {
				t.Fatalf("Thread(%+v): %d items, %v", tq, len(w.Items), err)
			}
		}
	})
}
