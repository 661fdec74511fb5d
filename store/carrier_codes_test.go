package store_test

import (
	"strings"
	"testing"

	"switchboard/store"
)

func TestExplainCarrierError(t *testing.T) {
	for _, code := range []string{"30003", "30005", "30006", "30007", "30032", "30034", "30035", "21610", "21614"} {
		for _, raw := range []string{"twilio " + code + ": Some message", "twilio " + code, "sandbox " + code + ": x"} {
			e, ok := store.ExplainCarrierError(raw)
			if !ok || e.What == "" || e.Do == "" {
				t.Errorf("ExplainCarrierError(%q) = %+v, %v; want an explanation", raw, e, ok)
			}
		}
	}
	if e, _ := store.ExplainCarrierError("twilio 30007: filtered"); !strings.Contains(e.What, "filtered") {
		t.Errorf("30007 says %q", e.What)
	}
	for _, raw := range []string{"", "twilio: 503", "twilio 99999: new", "garbage"} {
		if _, ok := store.ExplainCarrierError(raw); ok {
			t.Errorf("ExplainCarrierError(%q) explained an unknown error", raw)
		}
	}
}

// 30006 and 21614 flag the number a landline in the failure's transaction; later broadcasts
// skip it, counted as failed.
func TestLandlineFlagSkipsBroadcasts(t *testing.T) {
	h := newHookFixture(t)
	b, err := h.s.SendBroadcast(h.ws, store.BroadcastInput{From: h.number, Text: "sale",
		Recipients: []string{"+14155550501", "+14155550502", "+14155550503"}})
	if err != nil {
		t.Fatal(err)
	}
	by := map[string]store.Message{}
	for _, m := range claimAll(t, h.s, 10)[0].Messages {
		by[m.To] = m
	}
	err = h.s.RecordOutcomes([]store.Outcome{
		{WorkspaceID: h.ws, MessageID: by["+14155550501"].ID, Provider: "twilio", Err: "twilio 30006: Landline or unreachable carrier"},
		{WorkspaceID: h.ws, MessageID: by["+14155550502"].ID, Provider: "twilio", Err: "twilio 21614: 'To' number is not a valid mobile number"},
		{WorkspaceID: h.ws, MessageID: by["+14155550503"].ID, Provider: "twilio", Err: "twilio 30007: Message filtered"},
	})
	if err != nil {
		t.Fatal(err)
	}
	for phone, want := range map[string]bool{"+14155550501": true, "+14155550502": true, "+14155550503": false} {
		f, ok, err := h.s.NumberFlagOf(h.ws, phone)
		if err != nil || ok != want || ok && f.Flag != store.FlagLandline {
			t.Errorf("NumberFlagOf(%s) = %+v %v %v; want flagged %v", phone, f, ok, err, want)
		}
	}
	_ = b
	b2, err := h.s.SendBroadcast(h.ws, store.BroadcastInput{From: h.number, Text: "sale 2",
		Recipients: []string{"+14155550501", "+14155550502", "+14155550503", "+14155550504"}})
	if err != nil {
		t.Fatal(err)
	}
	b2, _ = h.s.Broadcast(h.ws, b2.ID)
	if b2.TotalQueued != 2 || b2.TotalFailed != 2 || b2.TotalLandline != 2 {
		t.Errorf("second broadcast queued %d failed %d landline %d; want 2, 2, 2", b2.TotalQueued, b2.TotalFailed, b2.TotalLandline)
	}
}

func TestOptOutInstructions(t *testing.T) {
	h := newHookFixture(t)
	for _, tc := range []struct {
		text string
		on   bool
		want string
	}{
		{"Sale today", true, "Sale today Reply STOP to opt out."},
		{"Sale today. Text stop to quit", true, "Sale today. Text stop to quit"},
		{"Sale today", false, "Sale today"},
	} {
		b, err := h.s.SendBroadcast(h.ws, store.BroadcastInput{From: h.number, Text: tc.text, OptOutInstructions: tc.on,
			Recipients: []string{"+14155550701"}})
		if err != nil {
			t.Fatal(err)
		}
		cl := claimAll(t, h.s, 10)
		if len(cl) != 1 || cl[0].Messages[0].Text != tc.want || cl[0].Messages[0].BroadcastID != b.ID {
			t.Errorf("copy of %q (instructions %v) = %+v; want %q", tc.text, tc.on, cl, tc.want)
		}
		if err := h.s.RecordOutcomes([]store.Outcome{{WorkspaceID: h.ws, MessageID: cl[0].Messages[0].ID, Provider: "sandbox", ProviderIDs: []string{b.ID}}}); err != nil {
			t.Fatal(err)
		}
	}
}
