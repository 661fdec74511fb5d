package store_test

import (
	"testing"
	"time"

	"switchboard/internal/testutil"
	"switchboard/store"
)

// copiesByTo is the broadcast's copies by recipient.
func copiesByTo(t *testing.T, f *fixture, broadcastID string) map[string]store.Message {
	t.Helper()
	msgs, err := f.s.ListMessages(f.ws, store.MessageFilter{Limit: 100})
	if err != nil {
		t.Fatal(err)
	}
	out := map[string]store.Message{}
	for _, m := range msgs {
		if m.BroadcastID == broadcastID {
			out[m.To] = m
		}
	}
	return out
}

func promote(t *testing.T, f *fixture, now time.Time) int {
	t.Helper()
	moved, _, err := f.s.PromoteDue(now, 100)
	if err != nil {
		t.Fatal(err)
	}
	return moved
}

// State calling hours and quiet hours together: a copy goes only when both allow, it says
// which rule held it, and it goes when that window opens.
func TestStateHoursAndQuietHoursHoldCopies(t *testing.T) {
	// Sunday 2026-01-18, 16:00 UTC: 10:00 CST in Dallas, 08:00 PST in San Francisco, 11:00 EST
	// in New Jersey, 16:00 in London.
	clock := testutil.NewClock(time.Date(2026, 1, 18, 16, 0, 0, 0, time.UTC))
	f := newFixtureOn(t, openStore(t, store.Options{Now: clock.Now}))
	on := true
	if _, err := f.s.UpdateWorkspace(f.ws, store.WorkspaceSettings{StateHours: &on, QuietHours: ptr("21:00-09:00")}); err != nil {
		t.Fatal(err)
	}
	tx, ca, nj, uk := "+12145550123", "+14155550123", "+12015550123", "+447700900123"
	b, err := f.s.SendBroadcast(f.ws, store.BroadcastInput{From: f.number, Text: "x", Recipients: []string{tx, ca, nj, uk}})
	if err != nil {
		t.Fatal(err)
	}
	got := copiesByTo(t, f, b.ID)
	for phone, want := range map[string]struct{ status, held string }{
		tx: {store.MessageScheduled, "held until 12:00 CST: Texas, Sunday"},
		ca: {store.MessageScheduled, "held until 09:00 PST: quiet hours 21:00–09:00"}, // the stricter: quiet hours end after 08:00
		nj: {store.MessageQueued, ""},
		uk: {store.MessageQueued, ""}, // not a +1 number: only quiet hours apply, and London is awake
	} {
		if m := got[phone]; m.Status != want.status || m.Held != want.held {
			t.Errorf("copy to %s: %s %q, want %s %q", phone, m.Status, m.Held, want.status, want.held)
		}
	}
	b, _ = f.s.Broadcast(f.ws, b.ID)
	if held := b.HeldNow(clock.Now()); len(held) != 2 || held[0].Count != 1 {
		t.Errorf("broadcast's held groups %+v, want two of one copy", held)
	}
	if ids := claimedIDs(claimAll(t, f.s, 10)); len(ids) != 2 {
		t.Fatalf("claimed %d copies now, want 2 (New Jersey and London)", len(ids))
	}
	// 09:00 PST: the California copy joins the queue, the Texas one still waits.
	clock.Set(time.Date(2026, 1, 18, 17, 0, 0, 0, time.UTC))
	if n := promote(t, f, clock.Now().Add(-time.Second)); n != 0 {
		t.Errorf("a second before 09:00 PST %d copies were released, want 0", n)
	}
	if n := promote(t, f, clock.Now()); n != 1 {
		t.Errorf("at 09:00 PST %d copies were released, want 1", n)
	}
	if cl := claimAll(t, f.s, 10); len(cl) != 1 || cl[0].Messages[0].To != ca {
		t.Errorf("claimed %v at 09:00 PST, want the California copy", claimedIDs(cl))
	}
	if held := b.HeldNow(clock.Now()); len(held) != 1 || held[0].Reason != "held until 12:00 CST: Texas, Sunday" {
		t.Errorf("held groups at 09:00 PST %+v, want only the Texas one", held)
	}
	// 12:00 CST: the Texas copy goes.
	clock.Set(time.Date(2026, 1, 18, 18, 0, 0, 0, time.UTC))
	if n := promote(t, f, clock.Now()); n != 1 {
		t.Errorf("at 12:00 CST %d copies were released, want 1", n)
	}
	if cl := claimAll(t, f.s, 10); len(cl) != 1 || cl[0].Messages[0].To != tx {
		t.Errorf("claimed %v at 12:00 CST, want the Texas copy", claimedIDs(cl))
	}

	// Quiet hours that end after the Texas Sunday window opens are the stricter rule.
	clock.Set(time.Date(2026, 1, 25, 16, 0, 0, 0, time.UTC)) // the next Sunday, 10:00 CST
	if _, err := f.s.UpdateWorkspace(f.ws, store.WorkspaceSettings{QuietHours: ptr("21:00-13:00")}); err != nil {
		t.Fatal(err)
	}
	houston := "+18325550123"
	b2, err := f.s.SendBroadcast(f.ws, store.BroadcastInput{From: f.number, Text: "y", Recipients: []string{houston}})
	if err != nil {
		t.Fatal(err)
	}
	if m := copiesByTo(t, f, b2.ID)[houston]; m.Held != "held until 13:00 CST: quiet hours 21:00–13:00" {
		t.Errorf("Houston copy held %q, want until 13:00 CST for quiet hours", m.Held)
	}

	// Off again: nothing holds a Texas copy on a Sunday morning but quiet hours.
	off := false
	if _, err := f.s.UpdateWorkspace(f.ws, store.WorkspaceSettings{StateHours: &off, QuietHours: ptr("off")}); err != nil {
		t.Fatal(err)
	}
	b3, _ := f.s.SendBroadcast(f.ws, store.BroadcastInput{From: f.number, Text: "z", Recipients: []string{houston}})
	if m := copiesByTo(t, f, b3.ID)[houston]; m.Status != store.MessageQueued {
		t.Errorf("with state hours off the Texas copy is %s, want queued", m.Status)
	}
}

// Quiet hours that never leave a moment the state allows fail the copy with a reason instead of
// holding it for ever.
func TestStateHoursThatNeverOpenFailTheCopy(t *testing.T) {
	clock := testutil.NewClock(time.Date(2026, 1, 14, 16, 0, 0, 0, time.UTC))
	f := newFixtureOn(t, openStore(t, store.Options{Now: clock.Now}))
	on := true
	if _, err := f.s.UpdateWorkspace(f.ws, store.WorkspaceSettings{StateHours: &on, QuietHours: ptr("08:00-21:00")}); err != nil {
		t.Fatal(err)
	}
	b, err := f.s.SendBroadcast(f.ws, store.BroadcastInput{From: f.number, Text: "x", Recipients: []string{"+14155550123"}})
	if err != nil {
		t.Fatal(err)
	}
	m := copiesByTo(t, f, b.ID)["+14155550123"]
	if m.Status != store.MessageFailed || m.ProviderErr == "" {
		t.Errorf("copy %s %q, want failed with a reason", m.Status, m.ProviderErr)
	}
	if b, _ = f.s.Broadcast(f.ws, b.ID); b.TotalFailed != 1 || b.Status != store.BroadcastSent && b.Status != store.BroadcastFailed {
		t.Errorf("broadcast %s with %d failed, want finished with 1 failed", b.Status, b.TotalFailed)
	}
}
