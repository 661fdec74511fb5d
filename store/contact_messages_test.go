package store_test

import (
	"slices"
	"strings"
	"testing"

	"switchboard/store"
)

// history pages through phone's messages limit at a time and returns their texts (newest
// first) and the number of pages.
func history(t *testing.T, f *fixture, phone string, limit int) ([]string, int) {
	t.Helper()
	var got []string
	before, pages := "", 0
	for {
		msgs, next, err := f.s.ContactMessages(f.ws, phone, before, limit)
		if err != nil {
			t.Fatal(err)
		}
		pages++
		for _, m := range msgs {
			got = append(got, m.Text)
		}
		if next == "" {
			return got, pages
		}
		before = next
		if pages > 50 {
			t.Fatal("the pages do not end")
		}
	}
}

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
		text := "m" + string(rune('1'+i))
		if _, err := f.s.SendMessage(f.ws, store.SendInput{From: from, To: []string{phone}, Text: text}); err != nil {
			t.Fatal(err)
		}
		sent = append(sent, text)
	}
	slices.Reverse(sent)
	got, pages := history(t, f, phone, 2)
	if !slices.Equal(got, sent) || pages != 3 {
		t.Errorf("history in %d pages %v, want newest first in 3 pages %v", pages, got, sent)
	}
}

// TestContactMessagesIncludeGroupConversations: a number texted from two of the workspace's
// numbers and in a group conversation sees the three threads interleaved, newest first, across
// pages; the group's messages are in every member's history, and the 1:1 threads only in their
// own number's.
func TestContactMessagesIncludeGroupConversations(t *testing.T) {
	f := newFixture(t)
	const second, phone, friend = "+14155550177", "+14155550123", "+14155550145"
	if _, err := f.s.AddNumber(f.ws, second, "Second"); err != nil {
		t.Fatal(err)
	}
	steps := []struct {
		text string
		send func(text string) error
	}{
		{"hello from main", func(x string) error { return f.send(f.number, x, phone) }},
		{"group hello", func(x string) error { return f.send(f.number, x, phone, friend) }},
		{"hello from second", func(x string) error { return f.send(second, x, phone) }},
		{"thanks main", func(x string) error {
			_, err := f.s.ReceiveMessage(f.ws, store.InboundMessage{From: phone, To: f.number, Text: x, Provider: "sandbox", ProviderID: "SM1"})
			return err
		}},
		{"group reminder", func(x string) error { return f.send(f.number, x, friend, phone) }},
		{"second again", func(x string) error { return f.send(second, x, phone) }},
		{"friend alone", func(x string) error { return f.send(f.number, x, friend) }},
		{"group last", func(x string) error { return f.send(f.number, x, phone, friend) }},
	}
	for _, st := range steps {
		if err := st.send(st.text); err != nil {
			t.Fatalf("%s: %v", st.text, err)
		}
	}
	want := []string{"group last", "second again", "group reminder", "thanks main", "hello from second", "group hello", "hello from main"}
	for _, limit := range []int{1, 3, 7, 100} {
		got, pages := history(t, f, phone, limit)
		if wantPages := (len(want) + limit - 1) / limit; !slices.Equal(got, want) || pages != wantPages {
			t.Errorf("pages of %d: history in %d pages %q, want %d pages %q", limit, pages, got, wantPages, want)
		}
	}
	if got, _ := history(t, f, friend, 2); !slices.Equal(got, []string{"group last", "friend alone", "group reminder", "group hello"}) {
		t.Errorf("the other member's history: %q", got)
	}
	if msgs, next, err := f.s.ContactMessages(f.ws, phone, "not-an-id", 5); err != nil || len(msgs) != 0 || next != "" {
		t.Errorf("a cursor that is no id: %d messages, next %q, %v; want none", len(msgs), next, err)
	}
}

// send sends text from a number of the workspace to one number or a group.
func (f *fixture) send(from, text string, to ...string) error {
	_, err := f.s.SendMessage(f.ws, store.SendInput{From: from, To: to, Text: text})
	return err
}

// FuzzContactMessagesCursor: any cursor from the address bar gives a page without an error, of
// messages strictly older than the cursor when it is a message id, newest first.
func FuzzContactMessagesCursor(f *testing.F) {
	fx := newFixture(f)
	const phone, friend = "+14155550123", "+14155550145"
	var ids []string
	for i, to := range [][]string{{phone}, {phone, friend}, {phone}, {friend, phone}} {
		m, err := fx.s.SendMessage(fx.ws, store.SendInput{From: fx.number, To: to, Text: "m" + string(rune('1'+i))})
		if err != nil {
			f.Fatal(err)
		}
		ids = append(ids, m.ID)
	}
	for _, seed := range append(ids, "", "x", "00000000000000000000000000", "ZZZZZZZZZZZZZZZZZZZZZZZZZZ", "7ZZZZZZZZZZZZZZZZZZZZZZZZZ", ids[2]+"0") {
		f.Add(seed, 2)
	}
	f.Fuzz(func(t *testing.T, before string, limit int) {
		limit = limit%5 + 1
		if limit < 1 {
			limit += 5
		}
		msgs, next, err := fx.s.ContactMessages(fx.ws, phone, before, limit)
		if err != nil {
			t.Fatal(err)
		}
		if len(msgs) > limit || (next != "" && (len(msgs) != limit || next != msgs[len(msgs)-1].ID)) {
			t.Fatalf("before %q limit %d: %d messages, next %q", before, limit, len(msgs), next)
		}
		for i, m := range msgs {
			if (before != "" && m.ID >= strings.ToUpper(before)) || (i > 0 && m.ID >= msgs[i-1].ID) {
				t.Fatalf("before %q: message %s out of order in %v", before, m.ID, msgs)
			}
		}
	})
}
