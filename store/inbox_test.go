package store_test

import (
	"fmt"
	"path/filepath"
	"slices"
	"testing"
	"time"

	bolt "go.etcd.io/bbolt"

	"switchboard/internal/testutil"
	"switchboard/store"
)

func inboxPhones(items []store.InboxItem) []string {
	var out []string
	for _, it := range items {
		out = append(out, it.Conversation.InboundChannelAddresses)
	}
	return out
}

// TestInboxNewestActivityFirst: the inbox follows the activity index, which moves with every
// message in and out, and the filters narrow it.
func TestInboxNewestActivityFirst(t *testing.T) {
	clock := testutil.NewClock(time.Date(2026, 11, 1, 9, 0, 0, 0, time.UTC))
	s := openStore(t, store.Options{Now: clock.Now})
	f := newFixtureOn(t, s)
	f.contact(t, "+14155550101", "Ada", "Lovelace")
	for _, to := range []string{"+14155550101", "+14155550102", "+14155550103"} {
		clock.Advance(time.Minute)
		if _, err := s.SendMessage(f.ws, store.SendInput{From: f.number, To: []string{to}, Text: "hi"}); err != nil {
			t.Fatal(err)
		}
	}
	items, err := s.Inbox(f.ws, store.InboxFilter{})
	if err != nil {
		t.Fatal(err)
	}
	if got, want := inboxPhones(items), []string{"+14155550103", "+14155550102", "+14155550101"}; !slices.Equal(got, want) {
		t.Fatalf("inbox order %v, want %v", got, want)
	}
	// An inbound text to the oldest moves it to the top and reopens it.
	c1 := items[2].Conversation
	if _, err := s.UpdateConversation(f.ws, c1.ID, store.ConversationUpdate{Status: ptr(store.ConversationClosed)}); err != nil {
		t.Fatal(err)
	}
	clock.Advance(time.Minute)
	if _, err := s.ReceiveMessage(f.ws, store.InboundMessage{From: "+14155550101", To: f.number, Text: "back"}); err != nil {
		t.Fatal(err)
	}
	items, _ = s.Inbox(f.ws, store.InboxFilter{})
	if got, want := inboxPhones(items), []string{"+14155550101", "+14155550103", "+14155550102"}; !slices.Equal(got, want) {
		t.Fatalf("inbox order after an inbound text %v, want %v", got, want)
	}
	if items[0].Conversation.Status != store.ConversationOpen || items[0].Last != "back" || items[0].ContactName != "Ada Lovelace" {
		t.Fatalf("top item %+v: want open, last text \"back\", contact Ada Lovelace", items[0])
	}
	// Filters.
	assignees := []string{f.user.ID}
	labels := []string{"vip", " ", "vip"}
	if _, err := s.UpdateConversation(f.ws, items[1].Conversation.ID, store.ConversationUpdate{
		Status: ptr(store.ConversationSnoozed), AssignedUserIDs: &assignees, Labels: &labels}); err != nil {
		t.Fatal(err)
	}
	check := func(name string, fl store.InboxFilter, want ...string) {
		t.Helper()
		items, err := s.Inbox(f.ws, fl)
		if err != nil {
			t.Fatal(err)
		}
		if got := inboxPhones(items); !slices.Equal(got, want) {
			t.Errorf("%s: %v, want %v", name, got, want)
		}
	}
	check("snoozed", store.InboxFilter{Status: "snoozed"}, "+14155550103")
	check("open", store.InboxFilter{Status: "open"}, "+14155550101", "+14155550102")
	check("assigned to me", store.InboxFilter{AssignedTo: f.user.ID}, "+14155550103")
	check("unassigned", store.InboxFilter{Unassigned: true}, "+14155550101", "+14155550102")
	check("label", store.InboxFilter{Label: "vip"}, "+14155550103")
	check("search by name", store.InboxFilter{Search: "lovel"}, "+14155550101")
	check("search by digits", store.InboxFilter{Search: "550102"}, "+14155550102")
	check("limit", store.InboxFilter{Limit: 1}, "+14155550101")
	// Pages follow each other through the cursor of the last row.
	var paged []string
	for before := ""; ; {
		page, err := s.Inbox(f.ws, store.InboxFilter{Limit: 1, Before: before})
		if err != nil {
			t.Fatal(err)
		}
		if len(page) == 0 {
			break
		}
		paged = append(paged, inboxPhones(page)...)
		before = page[len(page)-1].Cursor
	}
	if want := []string{"+14155550101", "+14155550103", "+14155550102"}; !slices.Equal(paged, want) {
		t.Errorf("paging one by one: %v, want %v", paged, want)
	}
	if got, _ := s.Labels(f.ws); !slices.Equal(got, []string{"vip"}) {
		t.Errorf("labels %v, want [vip]", got)
	}
	// Bad updates are refused field by field; another workspace's id is not found.
	stranger := []string{"01JZZZZZZZZZZZZZZZZZZZZZZZ"}
	wantFields(t, func() error {
		_, err := s.UpdateConversation(f.ws, c1.ID, store.ConversationUpdate{Status: ptr("done")})
		return err
	}(), "status")
	wantFields(t, func() error {
		_, err := s.UpdateConversation(f.ws, c1.ID, store.ConversationUpdate{AssignedUserIDs: &stranger})
		return err
	}(), "assignedUserIds")
	other := newFixtureOn(t, s)
	_, err = s.UpdateConversation(other.ws, c1.ID, store.ConversationUpdate{Status: ptr("open")})
	wantKind(t, err, store.ErrNotFound, "conversation not found")
	if items, _ := s.Inbox(other.ws, store.InboxFilter{}); len(items) != 0 {
		t.Fatalf("another workspace's inbox shows %d conversations, want 0", len(items))
	}
}

// TestMigrationBuildsActivityIndex opens a file as schema 3 left it (no activity index): the
// migration indexes every conversation, so the inbox lists them in order.
func TestMigrationBuildsActivityIndex(t *testing.T) {
	path := filepath.Join(t.TempDir(), "old.db")
	clock := testutil.NewClock(time.Date(2026, 11, 1, 9, 0, 0, 0, time.UTC))
	s, err := store.Open(path, store.Options{Now: clock.Now})
	if err != nil {
		t.Fatal(err)
	}
	f := newFixtureOn(t, s)
	for _, to := range []string{"+14155550101", "+14155550102"} {
		clock.Advance(time.Minute)
		if _, err := s.SendMessage(f.ws, store.SendInput{From: f.number, To: []string{to}, Text: "hi"}); err != nil {
			t.Fatal(err)
		}
	}
	clock.Advance(time.Minute)
	if _, _, err := s.CreateConversation(f.ws, f.number, "+14155550103"); err != nil { // no message yet
		t.Fatal(err)
	}
	s.Close()

	db, err := bolt.Open(path, 0o600, nil)
	if err != nil {
		t.Fatal(err)
	}
	if err := db.Update(func(tx *bolt.Tx) error {
		if err := tx.DeleteBucket([]byte("idx_conversation_activity")); err != nil {
			return err
		}
		return tx.Bucket([]byte("meta")).Put([]byte("schema_version"), []byte{0, 0, 0, 0, 0, 0, 0, 3})
	}); err != nil {
		t.Fatal(err)
	}
	db.Close()

	s = openStoreAt(t, path, store.Options{Now: clock.Now})
	if v, _ := s.SchemaVersion(); v != store.SchemaVersion {
		t.Fatalf("schema %d after open, want %d", v, store.SchemaVersion)
	}
	items, err := s.Inbox(f.ws, store.InboxFilter{})
	if err != nil {
		t.Fatal(err)
	}
	if got, want := inboxPhones(items), []string{"+14155550103", "+14155550102", "+14155550101"}; !slices.Equal(got, want) {
		t.Fatalf("inbox after the migration %v, want %v", got, want)
	}
}

// TestInboxPageScansABoundedNumber: a filter that matches little returns what a bounded walk
// found and a cursor to go on; following the cursors reaches every match.
func TestInboxPageScansABoundedNumber(t *testing.T) {
	f := newFixture(t)
	defer store.SetInboxScan(5)()
	closed, _, err := f.s.CreateConversation(f.ws, f.number, "+14155550300")
	if err != nil {
		t.Fatal(err)
	}
	if err := store.SetConversationStatus(f.s, f.ws, closed.ID, store.ConversationClosed); err != nil {
		t.Fatal(err)
	}
	for i := range 12 {
		send(t, f, fmt.Sprintf("+1415555031%d", i%10)+fmt.Sprint(i/10), "newer")
	}
	var found []string
	cursor, pages := "", 0
	for {
		items, next, err := f.s.InboxPage(f.ws, store.InboxFilter{Status: store.ConversationClosed, Before: cursor})
		if err != nil {
			t.Fatal(err)
		}
		pages++
		for _, it := range items {
			found = append(found, it.Conversation.ID)
		}
		if next == "" {
			break
		}
		if pages > 10 {
			t.Fatal("the cursors never end")
		}
		cursor = next
	}
	if len(found) != 1 || found[0] != closed.ID || pages < 3 {
		t.Errorf("found %v in %d pages, want the closed conversation after several bounded pages", found, pages)
	}
}
