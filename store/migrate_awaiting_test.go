package store

import (
	"path/filepath"
	"testing"
	"time"

	"switchboard/store/kv"

	"switchboard/internal/testutil"
)

// TestMigrateAwaitingReceipts writes a file of the schema before its step holding a send Twilio
// accepted (no entry awaiting its receipt, as that version wrote it), a delivered one and a
// week-old one, opens it, and expects the recent send still sent to await its receipt, and
// nothing else.
func TestMigrateAwaitingReceipts(t *testing.T) {
	clock := testutil.NewClock(time.Date(2025, 2, 25, 12, 0, 0, 0, time.UTC)) // ids follow the clock
	path := filepath.Join(t.TempDir(), "v10.db")
	s, err := Open(path, Options{Now: clock.Now})
	testutil.NoErr(t, err)
	w, err := s.CreateWorkspace("Acme")
	testutil.NoErr(t, err)
	_, err = s.CreateNumber(w.ID, NumberInput{Phone: "+14155550100", Carrier: ProviderTwilio})
	testutil.NoErr(t, err)
	accept := func(to, sid string) Message {
		m, err := s.SendMessage(w.ID, SendInput{From: "+14155550100", To: []string{to}, Text: "hi"})
		testutil.NoErr(t, err)
		_, err = s.ClaimOutbound(10, 10, "", func(*PhoneNumber) int { return 10 })
		testutil.NoErr(t, err)
		testutil.NoErr(t, s.RecordOutcomes([]Outcome{{WorkspaceID: w.ID, MessageID: m.ID, Provider: ProviderTwilio, ProviderIDs: []string{sid}}}))
		return m
	}
	accept("+14155550101", "SMold")
	clock.Set(time.Date(2025, 3, 4, 11, 0, 0, 0, time.UTC))
	accept("+14155550102", "SMdelivered")
	_, _, err = s.StatusUpdate(ProviderTwilio, "SMdelivered", MessageDelivered, "")
	testutil.NoErr(t, err)
	accept("+14155550103", "SMsent")
	clock.Set(time.Date(2025, 3, 4, 12, 0, 0, 0, time.UTC))
	before := schemaBefore(t, "sends awaiting their delivery receipt")
	err = rawUpdate(s.DB(), func(tx *kv.Tx) error {
		if err := tx.DeleteBucket(bMsgAwaiting); err != nil {
			return err
		}
		return putSchema(tx, before)
	})
	testutil.NoErr(t, err)
	s.Close()

	s, err = Open(path, Options{Now: clock.Now})
	testutil.NoErr(t, err)
	defer s.Close()
	if v, _ := s.SchemaVersion(); v != SchemaVersion {
		t.Fatalf("schema %d after opening, want %d", v, SchemaVersion)
	}
	got, err := s.AwaitingReceipts(ProviderTwilio, time.Time{}, 10)
	testutil.NoErr(t, err)
	if len(got) != 1 || got[0].ProviderID != "SMsent" {
		t.Fatalf("awaiting after the migration: %+v, want SMsent only", got)
	}
}
