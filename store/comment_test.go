package store_test

import (
	"slices"
	"testing"

	"switchboard/store"
)

func TestCreateComment(t *testing.T) {
	f := newFixture(t)
	bob, err := f.s.CreateUser(store.NewUser{Email: "bob@example.com", Name: "Bob"})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := f.s.AddMember(f.ws, bob.ID, ""); err != nil {
		t.Fatal(err)
	}
	c, err := f.s.CreateComment(f.ws, store.CommentInput{From: f.number, To: "+14155550123", Text: "call her back",
		Mentions: []string{bob.ID, f.user.ID, bob.ID}, AuthorID: f.user.ID})
	if err != nil {
		t.Fatalf("CreateComment: %v", err)
	}
	conv, created, err := f.s.CreateConversation(f.ws, f.number, "+14155550123")
	if err != nil || created || c.ConversationID != conv.ID {
		t.Errorf("comment in %s; create-conversation gives %s (created %v, %v); want the same", c.ConversationID, conv.ID, created, err)
	}
	if want := store.NormalizeGroup([]string{bob.ID, f.user.ID}); !slices.Equal(c.Mentions, want) {
		t.Errorf("mentions = %v, want %v (de-duplicated)", c.Mentions, want)
	}
	if c.UserID != f.user.ID || c.Text != "call her back" || c.Media == nil {
		t.Errorf("comment = %+v", c)
	}
	got, err := f.s.ConversationComments(f.ws, conv.ID)
	if err != nil || len(got) != 1 || got[0].ID != c.ID {
		t.Errorf("ConversationComments = %v, %v; want the comment", got, err)
	}
	// Internal: never queued for the carrier, and not a message of the conversation.
	if box, _ := f.s.Outbox(10); len(box) != 0 {
		t.Errorf("a comment queued %d outbound messages", len(box))
	}
	if msgs, _ := f.s.ConversationMessages(f.ws, conv.ID); len(msgs) != 0 {
		t.Errorf("a comment shows as %d messages", len(msgs))
	}

	// Mentions must be members; `from` must be the workspace's number; both are reported.
	stranger, err := f.s.CreateUser(store.NewUser{Email: "eve@example.com", Name: "Eve"})
	if err != nil {
		t.Fatal(err)
	}
	_, err = f.s.CreateComment(f.ws, store.CommentInput{From: f.number, To: "+14155550123", Text: "x", Mentions: []string{stranger.ID}})
	wantFields(t, err, "mentions")
	_, err = f.s.CreateComment(f.ws, store.CommentInput{From: "+14155550999", To: "+14155550124", Text: "x", Mentions: []string{"bogus"}})
	wantFields(t, err, "from", "mentions")
	if n, _ := f.s.CountConversations(f.ws); n != 1 {
		t.Errorf("refused comments stored conversations: %d, want 1", n)
	}
}
