package store_test

import (
	"errors"
	"testing"

	"switchboard/automation"
	"switchboard/store"
)

// A member outside the teams a number is limited to sees none of its conversations and
// cannot send from it, on every reader the store has; a team member and an admin see them.
func TestNumberLimitedToTeam(t *testing.T) {
	f := newAutoFixture(t, at(t, 4, "10:00"))
	ids := f.members(t, 2)
	inside, outside := ids[0], ids[1]
	admin, err := f.s.CreateUser(store.NewUser{Email: "boss@example.com", Name: "Boss"})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := f.s.AddMember(f.ws, admin.ID, "admin"); err != nil {
		t.Fatal(err)
	}
	// Before the limit, the outsider hears of the text like everyone.
	r := f.text(t, "+14155550900", "hello before")
	conv := r.Message.ConversationID
	if n, _ := f.s.UnreadCount(f.ws, outside); n != 1 {
		t.Fatalf("unread before the limit: %d", n)
	}
	team, err := f.s.CreateTeam(f.ws, store.TeamInput{Name: "Clinic", Members: []string{inside}})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := f.s.SetNumberAccess(f.ws, f.numberID(t), store.NumberAccess{Teams: &[]string{team.ID}}); err != nil {
		t.Fatal(err)
	}
	// The limit takes the outsider's unread mark away at once.
	if n, _ := f.s.UnreadCount(f.ws, outside); n != 0 {
		t.Fatalf("the outsider's unread count after the limit: %d", n)
	}
	last, _ := f.s.LastLiveEvent(f.ws)
	f.text(t, "+14155550900", "hello after")
	if n, _ := f.s.UnreadCount(f.ws, outside); n != 0 {
		t.Fatalf("unread for the outsider: %d", n)
	}
	if n, _ := f.s.UnreadCount(f.ws, inside); n != 1 {
		t.Fatalf("unread for the team member: %d", n)
	}
	evs, _, _, err := f.s.LiveEventsAfter(f.ws, last, 100)
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range evs {
		if e.UserID == outside {
			t.Fatalf("an event for the outsider: %s %s", e.Type, e.Data)
		}
	}

	sees := func(user string) map[string]int {
		t.Helper()
		out := map[string]int{}
		count := func(name string, n int, err error) {
			t.Helper()
			if err != nil {
				t.Fatalf("%s: %v", name, err)
			}
			out[name] = n
		}
		items, _, err := f.s.InboxPage(f.ws, store.InboxFilter{Viewer: user})
		count("inbox", len(items), err)
		items, _, err = f.s.InboxPage(f.ws, store.InboxFilter{Viewer: user, Search: "hello"})
		count("search", len(items), err)
		items, _, err = f.s.UnreadInbox(f.ws, user, store.InboxFilter{Viewer: user})
		count("unread", len(items), err)
		convs, err := f.s.ContactConversationsFor(f.ws, "+14155550900", user)
		count("contact conversations", len(convs), err)
		msgs, _, err := f.s.ContactMessagesFor(f.ws, "+14155550900", "", 20, user)
		count("contact messages", len(msgs), err)
		msgs, err = f.s.ListMessages(f.ws, store.MessageFilter{Viewer: user, Limit: 25})
		count("list-messages", len(msgs), err)
		n := 0
		err = f.s.ExportMessagesFor(f.ws, at(t, 1, "00:00"), at(t, 9, "00:00"), user, func(store.Message) error { n++; return nil })
		count("export", n, err)
		trials, err := f.s.TryRule(f.ws, user, mustRule(t, `{"name":"t","trigger":"message.received","actions":[{"type":"close"}]}`))
		count("rule test", len(trials), err)
		return out
	}
	for name, n := range sees(outside) {
		if n != 0 {
			t.Fatalf("the outsider sees %d in %s", n, name)
		}
	}
	for _, u := range []string{inside, admin.ID} {
		for name, n := range sees(u) {
			if n == 0 && name != "unread" {
				t.Fatalf("%s sees nothing in %s", u, name)
			}
		}
	}
	// Sends and reads by conversation from the number are refused to the outsider.
	_, err = f.s.SendMessage(f.ws, store.SendInput{From: f.number, To: []string{"+14155550900"}, Text: "hi", AuthorID: outside})
	if !errors.Is(err, store.ErrForbidden) || err.Error() != "not allowed to use this number" {
		t.Fatalf("send by the outsider: %v", err)
	}
	if _, err := f.s.ListMessages(f.ws, store.MessageFilter{Viewer: outside, ConversationID: conv, Limit: 5}); !errors.Is(err, store.ErrForbidden) {
		t.Fatalf("list-messages of the conversation by the outsider: %v", err)
	}
	if _, err := f.s.LookupConversation(outside, f.ws, f.number, "+14155550900"); !errors.Is(err, store.ErrForbidden) {
		t.Fatalf("create-conversation by the outsider: %v", err)
	}
	if _, err := f.s.CreateComment(f.ws, store.CommentInput{From: f.number, To: "+14155550900", Text: "x", AuthorID: outside}); !errors.Is(err, store.ErrForbidden) {
		t.Fatalf("comment by the outsider: %v", err)
	}
	if _, err := f.s.SendMessage(f.ws, store.SendInput{From: f.number, To: []string{"+14155550900"}, Text: "hi", AuthorID: inside}); err != nil {
		t.Fatalf("send by the team member: %v", err)
	}
	if _, err := f.s.SendMessage(f.ws, store.SendInput{From: f.number, To: []string{"+14155550900"}, Text: "hi", AuthorID: admin.ID}); err != nil {
		t.Fatalf("send by an admin: %v", err)
	}
	// A default assignee outside the teams is refused.
	var verr store.ValidationError
	if _, err := f.s.SetNumberAccess(f.ws, f.numberID(t), store.NumberAccess{DefaultAssignee: &outside}); !errors.As(err, &verr) || verr[0].Field != "defaultAssignee" {
		t.Fatalf("default assignee outside the team: %v", err)
	}
}

func mustRule(t *testing.T, doc string) automation.Rule {
	t.Helper()
	r, ps := automation.Decode([]byte(doc))
	if len(ps) > 0 {
		t.Fatal(ps)
	}
	return r
}

// A conversation of a number limited to a team cannot be assigned to a member outside it.
func TestAssignOutsideTheTeamIsRefused(t *testing.T) {
	f := newAutoFixture(t, at(t, 4, "10:00"))
	ids := f.members(t, 2)
	team, _ := f.s.CreateTeam(f.ws, store.TeamInput{Name: "Clinic", Members: []string{ids[0]}})
	if _, err := f.s.SetNumberAccess(f.ws, f.numberID(t), store.NumberAccess{Teams: &[]string{team.ID}}); err != nil {
		t.Fatal(err)
	}
	conv := f.text(t, "+14155550950", "hi").Message.ConversationID
	var verr store.ValidationError
	if _, err := f.s.UpdateConversation(f.ws, conv, store.ConversationUpdate{AssignedUserIDs: &[]string{ids[1]}}); !errors.As(err, &verr) ||
		verr[0].Field != "assignedUserIds" {
		t.Fatalf("assigning the outsider: %v", err)
	}
	if _, err := f.s.UpdateConversation(f.ws, conv, store.ConversationUpdate{AssignedUserIDs: &[]string{ids[0]}}); err != nil {
		t.Fatalf("assigning the team member: %v", err)
	}
}

// A number taken out of the workspace keeps its place in the routing; a later change of a
// team still clears the unread marks of every other number its members lose sight of.
func TestTeamChangeAfterANumberIsRemoved(t *testing.T) {
	f := newAutoFixture(t, at(t, 4, "10:00"))
	ids := f.members(t, 2)
	inside, leaving := ids[0], ids[1]
	second, err := f.s.AddNumber(f.ws, "+14155550777", "Second")
	if err != nil {
		t.Fatal(err)
	}
	team, err := f.s.CreateTeam(f.ws, store.TeamInput{Name: "Clinic", Members: []string{inside, leaving}})
	if err != nil {
		t.Fatal(err)
	}
	first := f.numberID(t)
	for _, id := range []string{first, second.ID} {
		if _, err := f.s.SetNumberAccess(f.ws, id, store.NumberAccess{Teams: &[]string{team.ID}}); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := f.s.ReceiveMessage(f.ws, store.InboundMessage{From: "+14155550900", To: second.Phone, Text: "hello"}); err != nil {
		t.Fatal(err)
	}
	if n, _ := f.s.UnreadCount(f.ws, leaving); n != 1 {
		t.Fatalf("unread for a team member: %d, want 1", n)
	}
	if _, err := f.s.RemoveNumber(f.ws, first); err != nil {
		t.Fatal(err)
	}
	if _, err := f.s.UpdateTeam(f.ws, team.ID, store.TeamInput{Name: "Clinic", Members: []string{inside}}); err != nil {
		t.Fatal(err)
	}
	if n, _ := f.s.UnreadCount(f.ws, leaving); n != 0 {
		t.Fatalf("unread for the member who left the team: %d, want 0", n)
	}
	if n, _ := f.s.UnreadCount(f.ws, inside); n != 1 {
		t.Fatalf("unread for the member who stays: %d, want 1", n)
	}
}
