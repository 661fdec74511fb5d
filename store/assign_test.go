package store_test

import (
	"fmt"
	"strings"
	"testing"
	"time"

	"switchboard/store"
)

// members adds n members named Member 1… to f's workspace, each with a live stream open (so
// available), and returns their ids.
func (f *autoFixture) members(t *testing.T, n int) []string {
	t.Helper()
	var ids []string
	for i := range n {
		u, err := f.s.CreateUser(store.NewUser{Email: fmt.Sprintf("m%d-%s@example.com", i, f.ws), Name: fmt.Sprintf("Member %d", i+1)})
		if err != nil {
			t.Fatal(err)
		}
		if _, err := f.s.AddMember(f.ws, u.ID, "member"); err != nil {
			t.Fatal(err)
		}
		t.Cleanup(f.s.StreamOpened(u.ID))
		ids = append(ids, u.ID)
	}
	return ids
}

func (f *autoFixture) numberID(t *testing.T) string {
	t.Helper()
	ns, err := f.s.Numbers(f.ws)
	if err != nil || len(ns) == 0 {
		t.Fatal(err)
	}
	return ns[0].ID
}

// Round-robin over 1,000 new conversations and 5 members, one away and one at capacity: the
// three others share them evenly (no two differ by more than one), the away member and the one
// at capacity get none, and each assignment says so in the thread and in a webhook event.
func TestRoundRobinFairness(t *testing.T) {
	if testing.Short() {
		t.Skip("1,000 inbound texts")
	}
	f := newAutoFixture(t, at(t, 4, "10:00"))
	ids := f.members(t, 5)
	team, err := f.s.CreateTeam(f.ws, store.TeamInput{Name: "Front desk", Members: ids, Assign: store.AssignRoundRobin, Capacity: 400})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := f.s.SetNumberAccess(f.ws, f.numberID(t), store.NumberAccess{DefaultTeam: &team.ID}); err != nil {
		t.Fatal(err)
	}
	away, full := ids[3], ids[4]
	if err := f.s.SetAvailability(away, store.Away); err != nil {
		t.Fatal(err)
	}
	// The member at capacity holds 400 open conversations.
	for i := range 400 {
		c, _, err := f.s.CreateConversation(f.ws, f.number, fmt.Sprintf("+1202555%04d", i))
		if err != nil {
			t.Fatal(err)
		}
		if _, err := f.s.UpdateConversation(f.ws, c.ID, store.ConversationUpdate{AssignedUserIDs: &[]string{full}}); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := f.s.Subscribe(f.ws, "", store.EventConversationAssigned, "https://hooks.example.com/assigned"); err != nil {
		t.Fatal(err)
	}
	got := map[string]int{}
	for i := range 1000 {
		f.clock.Advance(time.Second)
		r := f.text(t, fmt.Sprintf("+1303555%04d", i), "hello")
		c, err := f.s.Conversation(f.ws, r.Message.ConversationID)
		if err != nil || len(c.AssignedUserIDs) != 1 {
			t.Fatalf("conversation %d: assignees %v (%v)", i, c.AssignedUserIDs, err)
		}
		got[c.AssignedUserIDs[0]]++
	}
	if got[away] != 0 || got[full] != 0 {
		t.Fatalf("the away member got %d, the one at capacity %d", got[away], got[full])
	}
	lo, hi := 1000, 0
	for _, u := range ids[:3] {
		lo, hi = min(lo, got[u]), max(hi, got[u])
	}
	if lo+hi < 666 || hi-lo > 1 || got[ids[0]]+got[ids[1]]+got[ids[2]] != 1000 {
		t.Fatalf("shares %d, %d, %d: want 333 or 334 each", got[ids[0]], got[ids[1]], got[ids[2]])
	}
	for _, u := range ids[:3] {
		if n, _ := f.s.OpenAssigned(f.ws, u); n != got[u] {
			t.Fatalf("open assigned of %s: %d, want %d", u, n, got[u])
		}
	}
	// The last conversation's thread says who and how; its webhook event names the mode.
	r := f.text(t, "+13035559999", "one more")
	entries, err := f.s.ConversationEntries(f.ws, r.Message.ConversationID)
	if err != nil || len(entries) != 1 || entries[0].Kind != store.EntryAutoAssign || entries[0].Via != store.AssignRoundRobin {
		t.Fatalf("entries %+v (%v)", entries, err)
	}
	evs, _, err := store.RecordedEvents(f.s, f.ws, store.EventConversationAssigned)
	if err != nil || len(evs) != 1001 {
		t.Fatalf("%d conversation.assigned events (%v)", len(evs), err)
	}
	if p := string(evs[len(evs)-1].Payload); !strings.Contains(p, `"by":"auto:round-robin"`) || !strings.Contains(p, `"assigneeName":"Member `) {
		t.Fatalf("payload %s", p)
	}
}

// Least busy takes the member with the fewest open conversations; closing one frees a place;
// an offline member (no stream for five minutes) gets nothing; nobody available leaves the
// conversation unassigned.
func TestLeastBusyAndOffline(t *testing.T) {
	f := newAutoFixture(t, at(t, 4, "10:00"))
	ids := f.members(t, 2)
	team, err := f.s.CreateTeam(f.ws, store.TeamInput{Name: "Support", Members: ids, Assign: store.AssignLeastBusy, Capacity: 2})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := f.s.SetNumberAccess(f.ws, f.numberID(t), store.NumberAccess{DefaultTeam: &team.ID}); err != nil {
		t.Fatal(err)
	}
	assignee := func(from string) string {
		t.Helper()
		r := f.text(t, from, "hi")
		c, _ := f.s.Conversation(f.ws, r.Message.ConversationID)
		if len(c.AssignedUserIDs) == 0 {
			return ""
		}
		return c.AssignedUserIDs[0]
	}
	a, b := assignee("+14155550301"), assignee("+14155550302")
	if a == b || a == "" || b == "" {
		t.Fatalf("two conversations went to %q and %q", a, b)
	}
	c := assignee("+14155550303")
	d := assignee("+14155550304")
	if e := assignee("+14155550305"); e != "" || c == d {
		t.Fatalf("capacity 2 each: third to %q and %q, fifth to %q", c, d, e)
	}
	// Closing one of the first member's conversations gives them a place again.
	r, _ := f.s.ReceiveMessage(f.ws, store.InboundMessage{From: "+14155550301", To: f.number, Text: "bye"})
	closed := store.ConversationClosed
	if _, err := f.s.UpdateConversation(f.ws, r.Message.ConversationID, store.ConversationUpdate{Status: &closed}); err != nil {
		t.Fatal(err)
	}
	if got := assignee("+14155550306"); got != a {
		t.Fatalf("after a close the place went to %q, want %q", got, a)
	}
}

// A member with no live stream for five minutes is offline: auto-assignment passes them by
// until a stream opens again.
func TestOfflineAfterFiveMinutes(t *testing.T) {
	f := newAutoFixture(t, at(t, 4, "10:00"))
	u, err := f.s.CreateUser(store.NewUser{Email: "solo@example.com", Name: "Solo"})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := f.s.AddMember(f.ws, u.ID, "member"); err != nil {
		t.Fatal(err)
	}
	team, _ := f.s.CreateTeam(f.ws, store.TeamInput{Name: "Solo", Members: []string{u.ID}, Assign: store.AssignRoundRobin})
	if _, err := f.s.SetNumberAccess(f.ws, f.numberID(t), store.NumberAccess{DefaultTeam: &team.ID}); err != nil {
		t.Fatal(err)
	}
	closeStream := f.s.StreamOpened(u.ID)
	closeStream()
	f.clock.Advance(4 * time.Minute)
	if st, _, _ := f.s.Availability(u.ID); st != store.Available {
		t.Fatalf("4 minutes after the stream closed: %s", st)
	}
	f.clock.Advance(time.Minute)
	if st, _, _ := f.s.Availability(u.ID); st != store.Offline {
		t.Fatalf("5 minutes after the stream closed: %s", st)
	}
	r := f.text(t, "+14155550401", "hello")
	if c, _ := f.s.Conversation(f.ws, r.Message.ConversationID); len(c.AssignedUserIDs) != 0 {
		t.Fatalf("assigned to an offline member: %v", c.AssignedUserIDs)
	}
	t.Cleanup(f.s.StreamOpened(u.ID))
	r = f.text(t, "+14155550402", "hello")
	if c, _ := f.s.Conversation(f.ws, r.Message.ConversationID); len(c.AssignedUserIDs) != 1 {
		t.Fatalf("a member back online was not assigned: %v", c.AssignedUserIDs)
	}
	if err := f.s.SetAvailability(u.ID, store.Away); err != nil {
		t.Fatal(err)
	}
	if st, chosen, _ := f.s.Availability(u.ID); st != store.Away || chosen != store.Away {
		t.Fatalf("after choosing away: %s (chose %s)", st, chosen)
	}
}

// A member whose stream is open on another node of a cluster, as that node reports it, is
// assigned as one watching here; the report lapses like a closed stream.
func TestSeenElsewhereKeepsAMemberAvailable(t *testing.T) {
	f := newAutoFixture(t, at(t, 4, "10:00"))
	u, err := f.s.CreateUser(store.NewUser{Email: "far@example.com", Name: "Far"})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := f.s.AddMember(f.ws, u.ID, "member"); err != nil {
		t.Fatal(err)
	}
	team, _ := f.s.CreateTeam(f.ws, store.TeamInput{Name: "Far", Members: []string{u.ID}, Assign: store.AssignRoundRobin})
	if _, err := f.s.SetNumberAccess(f.ws, f.numberID(t), store.NumberAccess{DefaultTeam: &team.ID}); err != nil {
		t.Fatal(err)
	}
	f.clock.Advance(10 * time.Minute) // past the grace of the start: offline without a stream
	if st, _, _ := f.s.Availability(u.ID); st != store.Offline {
		t.Fatalf("no stream anywhere: %s", st)
	}
	if got := f.s.StreamUsers(); len(got) != 0 {
		t.Fatalf("stream users here before any opened: %v", got)
	}
	f.s.SeenElsewhere([]string{u.ID})
	r := f.text(t, "+14155550501", "hello")
	if c, _ := f.s.Conversation(f.ws, r.Message.ConversationID); len(c.AssignedUserIDs) != 1 || c.AssignedUserIDs[0] != u.ID {
		t.Fatalf("a member seen on another node was not assigned: %v", c.AssignedUserIDs)
	}
	f.clock.Advance(store.OfflineAfter)
	if st, _, _ := f.s.Availability(u.ID); st != store.Offline {
		t.Fatalf("%s after the last report: %s", store.OfflineAfter, st)
	}
	closeStream := f.s.StreamOpened(u.ID)
	defer closeStream()
	if got := f.s.StreamUsers(); len(got) != 1 || got[0] != u.ID {
		t.Fatalf("stream users with one open here: %v", got)
	}
}
