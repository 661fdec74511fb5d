package store_test

import (
	"slices"
	"testing"

	"switchboard/store"
)

// TestContactMessagesAcrossConversations: the contact page's history holds the messages of every
// 1:1 conversation of the number (here with two of the workspace's numbers), newest first, in
// pages that neither repeat nor skip a message.
func TestContactMessagesAcrossConversations(t *testing.T) {
	f := newFixture(t)
	const second, phone = "+14155550177", "+14155550123"
	if _, err := f.s.AddNumber(f.ws, second, "Second"); err != nil {
		t.Fatal(err)
	}
	var sent []string
	for i, from := range []string{f.number, second, f.number, second, f.number} {
		m, err := f.s.SendMessage(f.ws, store.SendInput{From: from, To: []string{phone}, Text: "m" + string(rune('1'+i))})
		if err != nil {
			t.Fatal(err)
		}
		sent = append(sent, m.ID)
	}
	slices.Reverse(sent)
	var got []string
	before, pages := "", 0
	for {
		msgs, next, err := f.s.ContactMessages(f.ws, phone, before, 2)
		if err != nil {
			t.Fatal(err)
		}
		pages++
		for _, m := range msgs {
			got = append(got, m.ID)
		}
		if next == "" {
			break
		}
		before = next
		if pages > 5 {
			t.Fatal("the pages do not end")
		}
	}
	if !slices.Equal(got, sent) || pages != 3 {
		t.Errorf("history in %d pages %v, want newest first in 3 pages %v", pages, got, sent)
	}
}
