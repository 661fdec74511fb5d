package store_test

import (
	"testing"
	"time"

	"switchboard/internal/testutil"
	"switchboard/store"
)

// TestArchivedWorkspaceSendsNothingQueuedBefore: messages queued or scheduled before the
// workspace was archived, and a broadcast's copies, are failed with the reason instead of being
// sent; restoring the workspace does not send them, but new messages go again.
func TestArchivedWorkspaceSendsNothingQueuedBefore(t *testing.T) {
	clk := testutil.NewClock(time.Date(2026, 11, 25, 12, 0, 0, 0, time.UTC))
	f := newFixtureOn(t, openStore(t, store.Options{Now: clk.Now}))
	queued := send(t, f, "+14155550123", "see you at 9")
	later, err := f.s.SendMessage(f.ws, store.SendInput{From: f.number, To: []string{"+14155550124"}, Text: "reminder",
		SendAt: clk.Now().Add(time.Hour)})
	if err != nil || later.Status != store.MessageScheduled {
		t.Fatalf("send later: %v %v", later.Status, err)
	}
	b, err := f.s.SendBroadcast(f.ws, store.BroadcastInput{From: f.number, Recipients: []string{"+14155550301", "+14155550302"}, Text: "sale"})
	if err != nil {
		t.Fatal(err)
	}
	if err := f.s.SetWorkspaceArchived(f.ws, true); err != nil {
		t.Fatal(err)
	}
	if got := claimedIDs(claimAll(t, f.s, 10)); len(got) != 0 {
		t.Fatalf("claimed %v from an archived workspace, want nothing", got)
	}
	for _, id := range []string{queued.ID} {
		m, err := f.s.Message(f.ws, id)
		if err != nil || m.Status != store.MessageFailed || m.ProviderErr != store.ArchivedReason {
			t.Fatalf("a message queued before archiving: %s %q %v, want failed %q", m.Status, m.ProviderErr, err, store.ArchivedReason)
		}
	}
	if b, _ = f.s.Broadcast(f.ws, b.ID); b.TotalFailed != 2 {
		t.Fatalf("broadcast after archiving: %+v, want its 2 copies failed", b)
	}
	if d := f.s.OutboxDepth(); d != 1 {
		t.Fatalf("OutboxDepth = %d after the archived workspace's messages failed, want 1 (the scheduled one)", d)
	}
	// The scheduled one fails when its time comes.
	clk.Advance(time.Hour)
	if _, _, err := f.s.PromoteDue(clk.Now(), 10); err != nil {
		t.Fatal(err)
	}
	if got := claimedIDs(claimAll(t, f.s, 10)); len(got) != 0 {
		t.Fatalf("claimed the scheduled message %v of an archived workspace", got)
	}
	if m, _ := f.s.Message(f.ws, later.ID); m.Status != store.MessageFailed || m.ProviderErr != store.ArchivedReason {
		t.Fatalf("a message scheduled before archiving: %s %q", m.Status, m.ProviderErr)
	}
	if d := f.s.OutboxDepth(); d != 0 {
		t.Fatalf("OutboxDepth = %d, want 0", d)
	}
	// Restored, it sends what is new, and only that.
	if err := f.s.SetWorkspaceArchived(f.ws, false); err != nil {
		t.Fatal(err)
	}
	fresh := send(t, f, "+14155550123", "we are back")
	if got := claimedIDs(claimAll(t, f.s, 10)); len(got) != 1 || got[0] != fresh.ID {
		t.Fatalf("claimed %v after restoring, want only the new message %s", got, fresh.ID)
	}
}
