package store_test

import (
	"testing"
	"time"

	"switchboard/internal/testutil"
	"switchboard/store"
)

// hearing subscribes the fixture to events, so that they are recorded.
func hearing(t *testing.T, h *hookFixture, events ...string) {
	t.Helper()
	for _, e := range events {
		_, err := h.s.Subscribe(h.ws, h.user.ID, e, "https://hooks.example.com/"+e)
		testutil.NoErr(t, err)
	}
}

// recovered is a text as the inbound recovery hands it in: the carrier's id and when the
// contact sent it.
func recovered(from, to, text, id string, kw store.Keyword, sentAt time.Time) store.InboundMessage {
	return store.InboundMessage{From: from, To: to, Text: text, Provider: store.ProviderTelnyx, ProviderID: id, Keyword: kw, SentAt: sentAt}
}

// TestInboundIsStoredOncePerCarrierID: a text recovered and then its late webhook, or the other
// way round, is stored once with one message.received; ids are the carrier's own, so the same
// id at two carriers is two texts.
func TestInboundIsStoredOncePerCarrierID(t *testing.T) {
	h := newHookFixture(t)
	hearing(t, h, store.EventMessageReceived)
	from := "+14155550199"
	first, err := h.s.ReceiveMessage(h.ws, recovered(from, h.number, "hello", "40385f64-aaaa", store.NoKeyword, h.clock.Now().Add(-time.Hour)))
	testutil.NoErr(t, err)
	late, err := h.s.ReceiveMessage(h.ws, store.InboundMessage{From: from, To: h.number, Text: "hello", Provider: store.ProviderTelnyx, ProviderID: "40385f64-aaaa"})
	testutil.NoErr(t, err)
	if first.Duplicate || !late.Duplicate || late.Message.ID != first.Message.ID {
		t.Fatalf("recovered then webhook: %+v then %+v, want the second a duplicate of the first", first.Message, late)
	}
	hook, err := h.s.ReceiveMessage(h.ws, store.InboundMessage{From: from, To: h.number, Text: "again", Provider: store.ProviderTwilio, ProviderID: "SM77"})
	testutil.NoErr(t, err)
	rec, err := h.s.ReceiveMessage(h.ws, recovered(from, h.number, "again", "SM77", store.NoKeyword, h.clock.Now()))
	testutil.NoErr(t, err)
	if rec.Message.Provider != store.ProviderTelnyx || rec.Duplicate {
		t.Fatalf("the same id at another carrier: %+v, want a text of its own", rec)
	}
	again, err := h.s.ReceiveMessage(h.ws, store.InboundMessage{From: from, To: h.number, Text: "again", Provider: store.ProviderTwilio, ProviderID: "SM77", SentAt: h.clock.Now()})
	testutil.NoErr(t, err)
	if !again.Duplicate || again.Message.ID != hook.Message.ID {
		t.Fatalf("webhook then recovered: %+v, want a duplicate", again)
	}
	if ev, _, _ := store.RecordedEvents(h.s, h.ws, store.EventMessageReceived); len(ev) != 3 {
		t.Fatalf("message.received %d times, want 3 (one per text)", len(ev))
	}
}

// TestRecoveredStopOptsOutAsTheWebhookWould: a recovered STOP opts its sender out (reason
// keyword, opt_out.created, the confirmation queued) and withdraws consent as of when it was
// sent; a recovered START lets them back in.
func TestRecoveredStopOptsOutAsTheWebhookWould(t *testing.T) {
	h := newHookFixture(t)
	hearing(t, h, store.EventOptOutCreated)
	from := "+14155550199"
	sent := h.clock.Now().Add(-3 * time.Hour)
	r, err := h.s.ReceiveMessage(h.ws, recovered(from, h.number, "STOP", "tx-1", store.KeywordStop, sent))
	testutil.NoErr(t, err)
	if r.OptOut == nil || r.OptOut.Reason != store.OptOutKeyword || r.Reply == nil || r.StaleKeyword {
		t.Fatalf("recovered STOP: %+v, want an opt-out (keyword) and its reply", r)
	}
	if ev, _, _ := store.RecordedEvents(h.s, h.ws, store.EventOptOutCreated); len(ev) != 1 {
		t.Fatalf("opt_out.created %d times, want 1", len(ev))
	}
	c, ok, err := h.s.LatestConsent(h.ws, from)
	if err != nil || !ok || c.Status != store.ConsentRevoked || !c.At.Equal(sent) {
		t.Fatalf("consent %+v, want revoked as of %v", c, sent)
	}
	r, err = h.s.ReceiveMessage(h.ws, recovered(from, h.number, "start", "tx-2", store.KeywordStart, sent.Add(time.Minute)))
	testutil.NoErr(t, err)
	if !r.Removed {
		t.Fatalf("recovered START after it: %+v, want the opt-out removed", r)
	}
}

// TestRecoveredKeywordYieldsToALaterWord: a recovered STOP sent before the contact's START (which
// came by webhook) is kept but not acted on, and so is a recovered START sent before an opt-out;
// recovered out of order, a STOP and a later START end as the contact left them.
func TestRecoveredKeywordYieldsToALaterWord(t *testing.T) {
	t.Run("STOP before a START", func(t *testing.T) {
		h := newHookFixture(t)
		hearing(t, h, store.EventMessageReceived)
		from := "+14155550199"
		_, err := h.s.ReceiveMessage(h.ws, store.InboundMessage{From: from, To: h.number, Text: "START", Keyword: store.KeywordStart})
		testutil.NoErr(t, err)
		r, err := h.s.ReceiveMessage(h.ws, recovered(from, h.number, "STOP", "tx-1", store.KeywordStop, h.clock.Now().Add(-time.Hour)))
		testutil.NoErr(t, err)
		if !r.StaleKeyword || r.OptOut != nil || r.Reply != nil {
			t.Fatalf("STOP sent before a START: %+v, want kept but not acted on", r)
		}
		if out, _ := h.s.IsOptedOut(h.ws, from); out {
			t.Fatal("opted out by a STOP the contact took back")
		}
		if ev, _, _ := store.RecordedEvents(h.s, h.ws, store.EventMessageReceived); len(ev) != 2 {
			t.Fatalf("message.received %d times, want 2: the stale STOP is still a text", len(ev))
		}
	})
	t.Run("START before an opt-out", func(t *testing.T) {
		h := newHookFixture(t)
		from := "+14155550199"
		_, _, err := h.s.CreateOptOut(h.ws, h.user.ID, from, store.OptOutAdmin)
		testutil.NoErr(t, err)
		r, err := h.s.ReceiveMessage(h.ws, recovered(from, h.number, "START", "tx-1", store.KeywordStart, h.clock.Now().Add(-time.Hour)))
		testutil.NoErr(t, err)
		if !r.StaleKeyword || r.Removed {
			t.Fatalf("START sent before an opt-out: %+v, want kept but not acted on", r)
		}
		if out, _ := h.s.IsOptedOut(h.ws, from); !out {
			t.Fatal("the opt-out made after the START was lifted")
		}
	})
	t.Run("START and STOP recovered out of order", func(t *testing.T) {
		h := newHookFixture(t)
		from := "+14155550199"
		stop := h.clock.Now().Add(-2 * time.Hour)
		_, err := h.s.ReceiveMessage(h.ws, recovered(from, h.number, "START", "tx-2", store.KeywordStart, stop.Add(time.Minute)))
		testutil.NoErr(t, err)
		r, err := h.s.ReceiveMessage(h.ws, recovered(from, h.number, "STOP", "tx-1", store.KeywordStop, stop))
		testutil.NoErr(t, err)
		if !r.StaleKeyword {
			t.Fatalf("STOP recovered after the START that followed it: %+v, want stale", r)
		}
		if out, _ := h.s.IsOptedOut(h.ws, from); out {
			t.Fatal("the contact's last word was START, yet they are opted out")
		}
	})
	t.Run("HELP is answered", func(t *testing.T) {
		h := newHookFixture(t)
		from := "+14155550199"
		_, err := h.s.ReceiveMessage(h.ws, store.InboundMessage{From: from, To: h.number, Text: "START", Keyword: store.KeywordStart})
		testutil.NoErr(t, err)
		r, err := h.s.ReceiveMessage(h.ws, recovered(from, h.number, "HELP", "tx-1", store.KeywordHelp, h.clock.Now().Add(-time.Hour)))
		testutil.NoErr(t, err)
		if r.StaleKeyword || r.Reply == nil {
			t.Fatalf("recovered HELP: %+v, want its reply", r)
		}
	})
}

// acceptTwilio claims the fixture's queued message and records Twilio's acceptance under sid.
func acceptTwilio(t *testing.T, f *fixture, m store.Message, sid string) {
	t.Helper()
	claimAll(t, f.s, 10)
	testutil.NoErr(t, f.s.RecordOutcomes([]store.Outcome{{WorkspaceID: f.ws, MessageID: m.ID, Provider: store.ProviderTwilio, ProviderIDs: []string{sid}}}))
}

// TestAwaitingReceipts: a send the carrier accepted waits for its receipt until one moves it to
// delivered or failed; the sweep forgets the old ones and those whose message is gone.
func TestAwaitingReceipts(t *testing.T) {
	h := newHookFixture(t)
	a := send(t, h.fixture, "+14155550101", "one")
	acceptTwilio(t, h.fixture, a, "SMa")
	h.clock.Advance(time.Hour)
	b := send(t, h.fixture, "+14155550102", "two")
	acceptTwilio(t, h.fixture, b, "SMb")
	waiting := func(since time.Time) []string {
		ms, err := h.s.AwaitingReceipts(store.ProviderTwilio, since, 10)
		testutil.NoErr(t, err)
		var ids []string
		for _, m := range ms {
			ids = append(ids, m.ProviderID)
		}
		return ids
	}
	if got := waiting(time.Time{}); len(got) != 2 || got[0] != "SMa" || got[1] != "SMb" {
		t.Fatalf("awaiting %v, want SMa then SMb", got)
	}
	if got := waiting(h.clock.Now().Add(-time.Minute)); len(got) != 1 || got[0] != "SMb" {
		t.Fatalf("awaiting since a minute ago %v, want SMb", got)
	}
	if got, _ := h.s.AwaitingReceipts(store.ProviderTelnyx, time.Time{}, 10); len(got) != 0 {
		t.Fatalf("Telnyx awaits %d", len(got))
	}
	_, changed, err := h.s.StatusUpdate(store.ProviderTwilio, "SMb", store.MessageDelivered, "")
	if err != nil || !changed {
		t.Fatalf("receipt: %v %v", changed, err)
	}
	if got := waiting(time.Time{}); len(got) != 1 || got[0] != "SMa" {
		t.Fatalf("after SMb's receipt %v, want SMa", got)
	}
	n, err := h.s.SweepAwaiting(store.ProviderTwilio, h.clock.Now().Add(-30*time.Minute))
	if err != nil || n != 1 || len(waiting(time.Time{})) != 0 {
		t.Fatalf("sweep: %d %v, left %v; want SMa (an hour old) forgotten", n, err, waiting(time.Time{}))
	}
}

// TestRecordRecoveryCheck: a check that failed keeps the last good one's time, which the next
// check looks back to; the texts add up.
func TestRecordRecoveryCheck(t *testing.T) {
	f := newFixture(t)
	t0 := time.Date(2025, 3, 4, 12, 0, 0, 0, time.UTC)
	ok, err := f.s.RecordRecoveryCheck("twilio", store.RecoveryCheck{At: t0, Since: t0.Add(-24 * time.Hour), Texts: 2})
	testutil.NoErr(t, err)
	bad, err := f.s.RecordRecoveryCheck("twilio", store.RecoveryCheck{At: t0.Add(5 * time.Minute), Since: t0, Error: "Twilio did not answer"})
	testutil.NoErr(t, err)
	if !ok.LastOK.Equal(t0) || !bad.LastOK.Equal(t0) || bad.TotalTexts != 2 {
		t.Fatalf("checks %+v then %+v", ok, bad)
	}
	all, err := f.s.RecoveryChecks()
	testutil.NoErr(t, err)
	if len(all) != 1 || all["twilio"].Error != "Twilio did not answer" {
		t.Fatalf("kept %+v", all)
	}
}
