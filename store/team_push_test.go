package store_test

import (
	"slices"
	"testing"

	"switchboard/store"
)

// pushedUsers lists, sorted, the users of the pushes due now, and marks them sent so the next
// call sees only newer ones.
func pushedUsers(t *testing.T, s *store.Store) []string {
	t.Helper()
	var users []string
	for _, d := range duePushes(t, s) {
		users = append(users, d.Job.UserID)
		if err := s.PushSent(d.Job.ID, s.Now()); err != nil {
			t.Fatal(err)
		}
	}
	slices.Sort(users)
	return users
}

// Web Push follows number access like the live inbox: once a number is limited to a team, a
// member outside it is pushed neither its inbound texts nor a mention in its conversations,
// while the team's members and the workspace's admins still are.
func TestPushOnlyToThoseWhoMayUseTheNumber(t *testing.T) {
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
	for _, id := range []string{inside, outside, admin.ID} {
		u, err := f.s.User(id)
		if err != nil {
			t.Fatal(err)
		}
		ss, _ := signedIn(t, f.s, u)
		device(t, f.s, ss, 1)
		// Every inbound text, whoever it is assigned to.
		if err := f.s.SetNotificationPrefs(id, store.NotificationPrefs{Inbound: store.NotifyAllInbound}); err != nil {
			t.Fatal(err)
		}
	}
	everyone := []string{inside, outside, admin.ID}
	slices.Sort(everyone)

	// Before the limit, everyone's phone hears of a text.
	f.text(t, "+14155550900", "hello before")
	if got := pushedUsers(t, f.s); !slices.Equal(got, everyone) {
		t.Fatalf("before the limit the text pushed to %v, want %v", got, everyone)
	}

	team, err := f.s.CreateTeam(f.ws, store.TeamInput{Name: "Clinic", Members: []string{inside}})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := f.s.SetNumberAccess(f.ws, f.numberID(t), store.NumberAccess{Teams: &[]string{team.ID}}); err != nil {
		t.Fatal(err)
	}
	want := []string{inside, admin.ID}
	slices.Sort(want)
	f.text(t, "+14155550900", "hello after")
	if got := pushedUsers(t, f.s); !slices.Equal(got, want) {
		t.Fatalf("after the limit the text pushed to %v, want the team member and the admin %v", got, want)
	}

	// The admin mentions both members in the number's conversation: only the team member's
	// phone is told.
	if _, err := f.s.CreateComment(f.ws, store.CommentInput{From: f.number, To: "+14155550900",
		Text: "can one of you call back?", Mentions: []string{inside, outside}, AuthorID: admin.ID}); err != nil {
		t.Fatal(err)
	}
	if got := pushedUsers(t, f.s); !slices.Equal(got, []string{inside}) {
		t.Fatalf("the mention pushed to %v, want only the team member %s", got, inside)
	}
}
