package store_test

import (
	"strings"
	"sync"
	"testing"
	"time"

	"switchboard/internal/testutil"
	"switchboard/store"
)

func TestCreateConversationReturnsTheExistingOne(t *testing.T) {
	clock := testutil.NewClock(time.Date(2026, 3, 1, 9, 0, 0, 0, time.UTC))
	f := newFixtureOn(t, openStore(t, store.Options{Now: clock.Now}))
	c, created, err := f.s.CreateConversation(f.ws, f.number, "+14155550123")
	if err != nil || !created {
		t.Fatalf("first CreateConversation = created %v, %v; want created", created, err)
	}
	if c.From != f.number || c.InboundChannelAddresses != "+14155550123" || len(c.Addresses) != 1 ||
		c.Status != store.ConversationOpen || c.CommunicationType != store.CommSMS || c.WorkspaceID != f.ws {
		t.Errorf("conversation = %+v, want an open sms conversation from %s to +14155550123", c, f.number)
	}
	if c.AssignedUserIDs == nil || c.Labels == nil {
		t.Errorf("assignedUserIds %v labels %v, want empty, not nil", c.AssignedUserIDs, c.Labels)
	}

	clock.Advance(time.Minute)
	again, created, err := f.s.CreateConversation(f.ws, f.number, "+14155550123")
	if err != nil || created || again.ID != c.ID {
		t.Errorf("second CreateConversation = %s created %v, %v; want the existing %s", again.ID, created, err, c.ID)
	}

	// Another `to`, another number of the workspace, or another workspace: another conversation.
	other, created, err := f.s.CreateConversation(f.ws, f.number, "+14155550124")
	if err != nil || !created || other.ID == c.ID {
		t.Errorf("CreateConversation to another number = %s created %v, %v; want a new one", other.ID, created, err)
	}
	if _, err := f.s.AddNumber(f.ws, "+14155550200", "Second"); err != nil {
		t.Fatal(err)
	}
	second, created, err := f.s.CreateConversation(f.ws, "+14155550200", "+14155550123")
	if err != nil || !created || second.ID == c.ID {
		t.Errorf("CreateConversation from another number = %s created %v, %v; want a new one", second.ID, created, err)
	}
	g := newFixtureOn(t, f.s)
	theirs, created, err := g.s.CreateConversation(g.ws, g.number, "+14155550123")
	if err != nil || !created || theirs.ID == c.ID {
		t.Errorf("CreateConversation in another workspace = %s created %v, %v; want a new one", theirs.ID, created, err)
	}
	if n, err := f.s.CountConversations(f.ws); err != nil || n != 3 {
		t.Errorf("CountConversations = %d, %v; want 3", n, err)
	}
	got, err := f.s.Conversation(f.ws, c.ID)
	if err != nil || got.ID != c.ID {
		t.Errorf("Conversation(id) = %s, %v", got.ID, err)
	}
	_, err = f.s.Conversation(g.ws, c.ID)
	wantKind(t, err, store.ErrNotFound, "conversation not found")
}

func TestCreateConversationConcurrentCallsMakeOne(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	const n = 50
	var wg sync.WaitGroup
	convIDs := make([]string, n)
	createdN := make([]bool, n)
	errs := make([]error, n)
	start := make(chan struct{})
	for i := range n {
		wg.Go(func() {
			<-start
			c, created, err := f.s.CreateConversation(f.ws, f.number, "+14155550123")
			convIDs[i], createdN[i], errs[i] = c.ID, created, err
		})
	}
	close(start)
	wg.Wait()
	created := 0
	for i := range n {
		if errs[i] != nil {
			t.Fatalf("call %d: %v", i, errs[i])
		}
		if convIDs[i] != convIDs[0] {
			t.Errorf("call %d returned conversation %s, call 0 returned %s", i, convIDs[i], convIDs[0])
		}
		if createdN[i] {
			created++
		}
	}
	if created != 1 {
		t.Errorf("%d calls reported created, want exactly 1", created)
	}
	if c, err := f.s.CountConversations(f.ws); err != nil || c != 1 {
		t.Errorf("CountConversations = %d, %v; want 1", c, err)
	}
	if got := search(t, f.s, f.ws, "4155550123"); len(got) != 1 {
		t.Errorf("contacts with the phone = %d, want 1", len(got))
	}
}

func TestCreateConversationFromMustBeAnActiveNumber(t *testing.T) {
	f := newFixture(t)
	g := newFixtureOn(t, f.s)
	if _, err := g.s.AddNumber(g.ws, "+14155550300", "Theirs"); err != nil {
		t.Fatal(err)
	}
	for _, from := range []string{"+14155550999", "+14155550300", "", "not a number"} {
		_, _, err := f.s.CreateConversation(f.ws, from, "+14155550123")
		ve := wantFields(t, err, "from")
		if !strings.Contains(ve[0].Message, from) {
			t.Errorf("from %q: message %q does not name it", from, ve[0].Message)
		}
	}
	if n, _ := f.s.CountConversations(f.ws); n != 0 {
		t.Errorf("refused calls stored %d conversations", n)
	}
	if got := search(t, f.s, f.ws, ""); len(got) != 0 {
		t.Errorf("refused calls stored contacts %q", labels(got))
	}
	// An unknown workspace has no numbers either.
	_, _, err := f.s.CreateConversation("01JDX0000000000000000000AA", f.number, "+14155550123")
	wantFields(t, err, "from")
}

func TestCreateConversationMakesAnUnnamedContact(t *testing.T) {
	f := newFixture(t)
	known := f.contact(t, "+14155550001", "Ana", "")
	if _, _, err := f.s.CreateConversation(f.ws, f.number, "+14155550001"); err != nil {
		t.Fatal(err)
	}
	if _, _, err := f.s.CreateConversation(f.ws, f.number, "+14155550002"); err != nil {
		t.Fatal(err)
	}
	all := search(t, f.s, f.ws, "")
	if len(all) != 2 || all[0].ID != known.ID {
		t.Fatalf("contacts = %q, want Ana and one new contact", labels(all))
	}
	c := all[1]
	if c.FirstName != "" || c.LastName != "" || c.Phone() != "+14155550002" || c.Source != store.SourceAPI {
		t.Errorf("new contact = %q source %q, want an unnamed contact +14155550002 from the api", label(c), c.Source)
	}
	if len(c.InboundChannels) != 1 || !c.InboundChannels[0].IsDefault {
		t.Errorf("new contact channels = %+v, want one default channel", c.InboundChannels)
	}
}
