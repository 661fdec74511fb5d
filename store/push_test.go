package store_test

import (
	"encoding/json"
	"fmt"
	"switchboard/internal/testutil"
	"testing"
	"time"

	"switchboard/store"
)

// signedIn starts a session for u and returns it with its token.
func signedIn(t *testing.T, s *store.Store, u store.User) (store.Session, string) {
	t.Helper()
	ss, token, err := s.CreateSession(store.NewSession{UserID: u.ID, UserAgent: "Mozilla/5.0 (Linux; Android 14) Chrome/126.0"})
	if err != nil {
		t.Fatal(err)
	}
	return ss, token
}

// device turns notifications on for the session's browser at endpoint n.
func device(t *testing.T, s *store.Store, ss store.Session, n int) store.PushSubscription {
	t.Helper()
	sub, err := s.AddPushSubscription(store.NewPushSubscription{UserID: ss.UserID, SessionID: ss.ID,
		Endpoint: fmt.Sprintf("https://push.example.net/send/%s/%d", ss.ID, n), P256dh: "key", Auth: "auth"})
	if err != nil {
		t.Fatalf("AddPushSubscription: %v", err)
	}
	return sub
}

func devices(t *testing.T, s *store.Store, user string) []store.PushSubscription {
	t.Helper()
	subs, err := s.UserPushSubscriptions(user)
	if err != nil {
		t.Fatal(err)
	}
	return subs
}

// duePushes lists every job due now.
func duePushes(t *testing.T, s *store.Store) []store.DuePush {
	t.Helper()
	due, _, err := s.DuePushes(s.Now(), 10_000, nil)
	if err != nil {
		t.Fatal(err)
	}
	return due
}

func depth(t *testing.T, s *store.Store) int {
	t.Helper()
	n, err := s.PushQueueDepth()
	if err != nil {
		t.Fatal(err)
	}
	return n
}

func TestPushDevicesAtMostTenAndOneRowPerEndpoint(t *testing.T) {
	f := newFixture(t)
	ss, _ := signedIn(t, f.s, f.user)
	for i := range store.MaxPushDevices {
		device(t, f.s, ss, i)
	}
	_, err := f.s.AddPushSubscription(store.NewPushSubscription{UserID: f.user.ID, SessionID: ss.ID,
		Endpoint: "https://push.example.net/send/eleventh", P256dh: "key", Auth: "auth"})
	if fe := wantFields(t, err, "endpoint"); fe[0].Message == "" {
		t.Fatal("the refusal has no message")
	}
	if n := len(devices(t, f.s, f.user.ID)); n != store.MaxPushDevices {
		t.Fatalf("after the refused eleventh device the user has %d devices, want %d", n, store.MaxPushDevices)
	}
	// The same endpoint again (new keys) replaces its row: still ten, same id, new keys.
	first := devices(t, f.s, f.user.ID)[0]
	again, err := f.s.AddPushSubscription(store.NewPushSubscription{UserID: f.user.ID, SessionID: ss.ID,
		Endpoint: first.Endpoint, P256dh: "key2", Auth: "auth2"})
	if err != nil {
		t.Fatalf("renewing a device's keys: %v", err)
	}
	if again.ID != first.ID || again.P256dh != "key2" || len(devices(t, f.s, f.user.ID)) != store.MaxPushDevices {
		t.Fatalf("renewed device = %+v (was %s); devices %d", again, first.ID, len(devices(t, f.s, f.user.ID)))
	}
	// A session that is gone subscribes nothing.
	f.s.DeleteSession("no such token")
	_, err = f.s.AddPushSubscription(store.NewPushSubscription{UserID: f.user.ID, SessionID: f.s.NewID(),
		Endpoint: "https://push.example.net/x", P256dh: "k", Auth: "a"})
	wantKind(t, err, store.ErrNotFound, "")
	// Remove: only one's own.
	bob, _ := f.s.CreateUser(store.NewUser{Email: "bob@example.com", Name: "Bob"})
	wantKind(t, f.s.RemovePushSubscription(bob.ID, first.ID), store.ErrNotFound, "")
	if err := f.s.RemovePushSubscription(f.user.ID, first.ID); err != nil {
		t.Fatal(err)
	}
	if n := len(devices(t, f.s, f.user.ID)); n != store.MaxPushDevices-1 {
		t.Fatalf("after Remove: %d devices", n)
	}
}

// Every way a session ends deletes the subscriptions it made, in the same transaction, and the
// pushes still queued for them.
func TestPushSubscriptionEndsWithItsSession(t *testing.T) {
	cases := []struct {
		name string
		end  func(t *testing.T, f *fixture, token string, other store.User) error
	}{
		{"sign-out", func(t *testing.T, f *fixture, token string, _ store.User) error { return f.s.DeleteSession(token) }},
		{"sign out everywhere else", func(t *testing.T, f *fixture, _ string, _ store.User) error {
			keep, _ := signedIn(t, f.s, f.user)
			return f.s.EndUserSessions(f.user.ID, keep.ID)
		}},
		{"expiry", func(t *testing.T, f *fixture, _ string, _ store.User) error {
			_, err := f.s.DeleteStaleSessions(f.s.Now().Add(time.Hour), time.Time{})
			return err
		}},
		{"disabled user", func(t *testing.T, f *fixture, _ string, admin store.User) error {
			return f.s.SetUserDisabled(admin.ID, f.user.ID, true)
		}},
		{"removed from the workspace", func(t *testing.T, f *fixture, _ string, _ store.User) error {
			return f.s.RemoveMember(f.ws, f.user.ID)
		}},
		{"password reset", func(t *testing.T, f *fixture, _ string, _ store.User) error {
			plain, err := f.s.CreateReset(f.user.ID, f.s.Now())
			if err != nil {
				return err
			}
			_, err = f.s.UseReset(plain, "a new long password", f.s.Now())
			return err
		}},
		{"password change", func(t *testing.T, f *fixture, _ string, _ store.User) error {
			return f.s.SetPassword(f.user.ID, "another long password")
		}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			f := newFixture(t)
			admin, err := f.s.CreateUser(store.NewUser{Email: "root@example.com", Name: "Root", Superuser: true})
			if err != nil {
				t.Fatal(err)
			}
			ss, token := signedIn(t, f.s, f.user)
			device(t, f.s, ss, 1)
			inbound(t, f, "+14155550123", "Is my appointment still on?")
			if n := len(duePushes(t, f.s)); n != 1 || depth(t, f.s) != 1 {
				t.Fatalf("before the session ends: %d pushes due, depth %d; want 1", n, depth(t, f.s))
			}
			if err := c.end(t, f, token, admin); err != nil {
				t.Fatal(err)
			}
			if subs := devices(t, f.s, f.user.ID); len(subs) != 0 {
				t.Fatalf("after %s the user still has devices %+v", c.name, subs)
			}
			if n := len(duePushes(t, f.s)); n != 0 || depth(t, f.s) != 0 {
				t.Fatalf("after %s: %d pushes still due, depth %d", c.name, n, depth(t, f.s))
			}
		})
	}
}

// What is pushed: the §14 choices decide who; nobody is pushed their own action; the payload
// carries the contact's name, the text's first 120 characters (or "New message" when hidden),
// the URL, the workspace and the unread count.
func TestPushFollowsTheNotificationChoices(t *testing.T) {
	f := newFixture(t)
	bob, _ := f.s.CreateUser(store.NewUser{Email: "bob@example.com", Name: "Bob Reyes"})
	f.s.AddMember(f.ws, bob.ID, "")
	anaSession, _ := signedIn(t, f.s, f.user)
	bobSession, _ := signedIn(t, f.s, bob)
	device(t, f.s, anaSession, 1)
	device(t, f.s, anaSession, 2)
	device(t, f.s, bobSession, 1)
	f.contact(t, "+14155550123", "José", "Núñez")
	if err := f.s.SetNotificationPrefs(bob.ID, store.NotificationPrefs{Inbound: store.NotifyMentions, HideText: true}); err != nil {
		t.Fatal(err)
	}
	long := "Hello! Ça va? " + fmt.Sprintf("%0200d", 7) // longer than a push shows
	m := inbound(t, f, "+14155550123", long)
	due := duePushes(t, f.s)
	if len(due) != 2 {
		t.Fatalf("an unassigned text pushed %d times, want Ana's two devices (Bob chose mentions only)", len(due))
	}
	var p store.PushPayload
	if err := json.Unmarshal(due[0].Job.Payload, &p); err != nil {
		t.Fatal(err)
	}
	want := store.PushPayload{Title: "José Núñez", Body: string([]rune(long)[:120]), URL: "/inbox/" + m.ConversationID,
		ConversationID: m.ConversationID, Workspace: "Acme", Unread: 1, Reason: "inbound"}
	if p != want {
		t.Fatalf("payload\n got %+v\nwant %+v", p, want)
	}
	if j := due[0].Job; j.Urgency != "high" || j.ConversationID != m.ConversationID || j.UserID != f.user.ID {
		t.Fatalf("job %+v: want urgency high, topic the conversation, for Ana", j)
	}
	for _, d := range due {
		f.s.PushSent(d.Job.ID, f.s.Now())
	}
	// Ana mentions Bob: Bob is pushed (text hidden), Ana is not pushed her own comment.
	if _, err := f.s.CreateComment(f.ws, store.CommentInput{From: f.number, To: "+14155550123", Text: "@Bob can you call back?",
		Mentions: []string{bob.ID, f.user.ID}, AuthorID: f.user.ID}); err != nil {
		t.Fatal(err)
	}
	due = duePushes(t, f.s)
	if len(due) != 1 || due[0].Job.UserID != bob.ID {
		t.Fatalf("the mention pushed %d jobs (%+v), want one, to Bob", len(due), due)
	}
	json.Unmarshal(due[0].Job.Payload, &p)
	if p.Body != "Ana mentioned you" || p.Reason != "mention" || due[0].Job.Urgency != "normal" {
		t.Fatalf("mention push %+v urgency %s; want the text hidden, as Bob chose", p, due[0].Job.Urgency)
	}
	f.s.PushSent(due[0].Job.ID, f.s.Now())
	// Ana assigns herself: nothing. Ana assigns Bob: Bob.
	if _, err := f.s.UpdateConversation(f.ws, m.ConversationID, store.ConversationUpdate{AssignedUserIDs: &[]string{f.user.ID}, ActorID: f.user.ID}); err != nil {
		t.Fatal(err)
	}
	if due = duePushes(t, f.s); len(due) != 0 {
		t.Fatalf("assigning herself pushed %d jobs", len(due))
	}
	if _, err := f.s.UpdateConversation(f.ws, m.ConversationID, store.ConversationUpdate{AssignedUserIDs: &[]string{f.user.ID, bob.ID}, ActorID: f.user.ID}); err != nil {
		t.Fatal(err)
	}
	if due = duePushes(t, f.s); len(due) != 1 || due[0].Job.UserID != bob.ID {
		t.Fatalf("assigning Bob pushed %+v", due)
	}
	// A photo alone says "Photo"; the device's last push is recorded.
	f.s.PushSent(due[0].Job.ID, f.s.Now())
	if _, err := f.s.RecordInboundMessage(f.ws, store.InboundMessage{From: "+14155550123", To: f.number,
		Media: []string{"https://example.com/a.jpg"}}); err != nil {
		t.Fatal(err)
	}
	due = duePushes(t, f.s)
	if len(due) != 2 {
		t.Fatalf("a photo in Ana's conversation pushed %d jobs, want Ana's 2 devices", len(due))
	}
	json.Unmarshal(due[0].Job.Payload, &p)
	if p.Body != "Photo" {
		t.Fatalf("a photo alone pushes %q", p.Body)
	}
	if subs := devices(t, f.s, bob.ID); subs[0].LastPushAt.IsZero() {
		t.Fatal("Bob's device has no last push after two pushes were sent")
	}
}

// The outbox's outcomes: a retry keeps the job for later; a job whose subscription the push
// service forgot (PushGone) goes with it and a late retry does not bring it back.
func TestPushOutboxOutcomes(t *testing.T) {
	clock := testutil.NewClock(time.Date(2026, 11, 25, 9, 0, 0, 0, time.UTC))
	f := newFixtureOn(t, openStore(t, store.Options{Now: clock.Now}))
	ss, _ := signedIn(t, f.s, f.user)
	sub := device(t, f.s, ss, 1)
	woke := 0
	f.s.SetHooks(store.Hooks{Push: func() { woke++ }})
	inbound(t, f, "+14155550123", "one")
	inbound(t, f, "+14155550123", "two")
	if woke != 2 {
		t.Fatalf("the push worker was woken %d times for two texts", woke)
	}
	due := duePushes(t, f.s)
	if len(due) != 2 || due[0].Sub.ID != sub.ID || due[0].Session.ID != ss.ID {
		t.Fatalf("due = %+v", due)
	}
	if err := f.s.PushRetry(due[0].Job.ID, clock.Now().Add(time.Minute), "503 Service Unavailable"); err != nil {
		t.Fatal(err)
	}
	now, next, err := f.s.DuePushes(clock.Now(), 10, nil)
	if err != nil || len(now) != 1 || !next.Equal(clock.Now().Add(time.Minute)) {
		t.Fatalf("after a retry: due %d, next %v (%v); want 1 due and the retry in a minute", len(now), next, err)
	}
	skipped, _, _ := f.s.DuePushes(clock.Now(), 10, func(id string) bool { return id == now[0].Job.ID })
	if len(skipped) != 0 {
		t.Fatalf("a job in flight was listed again: %+v", skipped)
	}
	clock.Advance(time.Minute)
	later := duePushes(t, f.s)
	if len(later) != 2 || later[1].Job.Attempts != 1 || later[1].Job.LastError == "" {
		t.Fatalf("after a minute: %+v", later)
	}
	if err := f.s.PushGone(sub.ID); err != nil {
		t.Fatal(err)
	}
	if err := f.s.PushRetry(later[0].Job.ID, clock.Now().Add(time.Hour), "late"); err != nil {
		t.Fatal(err)
	}
	if len(duePushes(t, f.s)) != 0 || depth(t, f.s) != 0 || len(devices(t, f.s, f.user.ID)) != 0 {
		t.Fatalf("after 410: due %d, depth %d, devices %d; want none", len(duePushes(t, f.s)), depth(t, f.s), len(devices(t, f.s, f.user.ID)))
	}
	// Recording the outcome of a job gone meanwhile is no error and writes nothing.
	if err := f.s.PushSent(later[0].Job.ID, clock.Now()); err != nil || len(duePushes(t, f.s)) != 0 {
		t.Fatalf("PushSent of a deleted job: %v", err)
	}
}
