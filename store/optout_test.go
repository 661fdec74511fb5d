package store_test

import (
	"encoding/json"
	"testing"
	"time"

	"switchboard/internal/testutil"
	"switchboard/store"
)

func TestOptOutOnePerPhonePerWorkspace(t *testing.T) {
	clock := testutil.NewClock(time.Date(2026, 7, 1, 0, 0, 0, 0, time.UTC))
	f := newFixtureOn(t, openStore(t, store.Options{Now: clock.Now}))
	o, created, err := f.s.CreateOptOut(f.ws, f.user.ID, "+14155550123", store.OptOutAPI)
	if err != nil || !created {
		t.Fatalf("first CreateOptOut = created %v, %v; want created", created, err)
	}
	if o.Phone != "+14155550123" || o.Reason != store.OptOutAPI || o.UserID != f.user.ID || o.WorkspaceID != f.ws || !o.CreatedAt.Equal(clock.Now()) {
		t.Errorf("opt-out = %+v", o)
	}
	clock.Advance(time.Hour)
	again, created, err := f.s.CreateOptOut(f.ws, "", "+14155550123", store.OptOutKeyword)
	if err != nil || created || again.ID != o.ID || again.Reason != store.OptOutAPI || !again.CreatedAt.Equal(o.CreatedAt) {
		t.Errorf("second CreateOptOut = %+v created %v, %v; want the first one unchanged", again, created, err)
	}
	list, err := f.s.OptOuts(f.ws)
	if err != nil || len(list) != 1 {
		t.Errorf("OptOuts = %d, %v; want 1", len(list), err)
	}
	if out, err := f.s.IsOptedOut(f.ws, "+14155550123"); err != nil || !out {
		t.Errorf("IsOptedOut = %v, %v; want true", out, err)
	}
	if out, _ := f.s.IsOptedOut(f.ws, "+14155550124"); out {
		t.Error("IsOptedOut of another number = true")
	}

	// Another workspace is unaffected and has its own.
	g := newFixtureOn(t, f.s)
	if out, _ := g.s.IsOptedOut(g.ws, "+14155550123"); out {
		t.Error("an opt-out leaked into another workspace")
	}
	if _, created, err := g.s.CreateOptOut(g.ws, "", "+14155550123", store.OptOutAPI); err != nil || !created {
		t.Errorf("CreateOptOut in another workspace = created %v, %v; want created", created, err)
	}

	removed, err := f.s.RemoveOptOut(f.ws, "+14155550123")
	if err != nil || !removed {
		t.Errorf("RemoveOptOut = %v, %v; want removed", removed, err)
	}
	if out, _ := f.s.IsOptedOut(f.ws, "+14155550123"); out {
		t.Error("IsOptedOut after RemoveOptOut = true")
	}
	if removed, err := f.s.RemoveOptOut(f.ws, "+14155550123"); err != nil || removed {
		t.Errorf("second RemoveOptOut = %v, %v; want false", removed, err)
	}
	if list, _ := f.s.OptOuts(f.ws); len(list) != 0 {
		t.Errorf("OptOuts after removal = %d, want 0", len(list))
	}
	if out, _ := g.s.IsOptedOut(g.ws, "+14155550123"); !out {
		t.Error("removing one workspace's opt-out removed another's")
	}
	// Opting out again after a removal creates a new one.
	if _, created, err := f.s.CreateOptOut(f.ws, "", "+14155550123", store.OptOutKeyword); err != nil || !created {
		t.Errorf("CreateOptOut after removal = created %v, %v; want created", created, err)
	}
}

func TestOptOutSurvivesReopen(t *testing.T) {
	path := t.TempDir() + "/sb.db"
	s, err := store.Open(path, store.Options{})
	if err != nil {
		t.Fatal(err)
	}
	f := newFixtureOn(t, s)
	if _, _, err := s.CreateOptOut(f.ws, "", "+14155550123", store.OptOutKeyword); err != nil {
		t.Fatal(err)
	}
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	s = openStoreAt(t, path, store.Options{})
	if out, err := s.IsOptedOut(f.ws, "+14155550123"); err != nil || !out {
		t.Errorf("IsOptedOut after reopen = %v, %v; want true", out, err)
	}
	_, err = s.SendMessage(f.ws, store.SendInput{From: f.number, To: []string{"+14155550123"}, Text: "hi"})
	wantKind(t, err, store.ErrOptedOut, "recipient +14155550123 has opted out")
	if out, _ := s.IsOptedOut(f.ws, "+14155550124"); out {
		t.Error("IsOptedOut of another number after reopen = true")
	}
}

func TestOptOutEventNamesTheLatestConversation(t *testing.T) {
	clock := testutil.NewClock(time.Date(2026, 7, 1, 0, 0, 0, 0, time.UTC))
	f := newFixtureOn(t, openStore(t, store.Options{Now: clock.Now}))
	if _, err := f.s.AddNumber(f.ws, "+14155550200", "Second"); err != nil {
		t.Fatal(err)
	}
	if _, err := f.s.Subscribe(f.ws, f.user.ID, store.EventOptOutCreated, "https://hooks.example.com/o"); err != nil {
		t.Fatal(err)
	}
	old, _, _ := f.s.CreateConversation(f.ws, f.number, "+14155550123")
	clock.Advance(time.Minute)
	recent, _, _ := f.s.CreateConversation(f.ws, "+14155550200", "+14155550123")
	clock.Advance(time.Minute)
	// A message in the older conversation makes it the latest.
	if _, err := f.s.SendMessage(f.ws, store.SendInput{From: f.number, To: []string{"+14155550123"}, Text: "x"}); err != nil {
		t.Fatal(err)
	}
	clock.Advance(time.Minute)
	if _, _, err := f.s.CreateOptOut(f.ws, "", "+14155550123", store.OptOutKeyword); err != nil {
		t.Fatal(err)
	}
	// A number without conversations gets "".
	if _, _, err := f.s.CreateOptOut(f.ws, "", "+14155550999", store.OptOutAPI); err != nil {
		t.Fatal(err)
	}
	evs, _, err := store.RecordedEvents(f.s, f.ws, store.EventOptOutCreated)
	if err != nil || len(evs) != 2 {
		t.Fatalf("opt_out.created events = %d, %v; want 2", len(evs), err)
	}
	var p1, p2 store.OptOutPayload
	if err := json.Unmarshal(evs[0].Payload, &p1); err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(evs[1].Payload, &p2); err != nil {
		t.Fatal(err)
	}
	if p1.ConversationID != old.ID || p1.OptOutReason != store.OptOutKeyword || p1.InboundAddress != "+14155550123" {
		t.Errorf("payload = %+v, want conversation %s (latest activity, not %s), reason keyword", p1, old.ID, recent.ID)
	}
	if p2.ConversationID != "" || p2.OptOutReason != store.OptOutAPI {
		t.Errorf("payload for a number without conversations = %+v, want conversationId \"\"", p2)
	}
}
