package store_test

import (
	"fmt"
	"testing"
	"time"

	"switchboard/internal/testutil"
	"switchboard/store"
)

// A number's daily cap counts per day of the workspace's time zone: copies beyond it wait for
// the next day's midnight there, and go when it comes; a cancelled copy gives its place back.
func TestDailyCapAcrossMidnightInTheWorkspaceZone(t *testing.T) {
	// Monday 2026-01-12, 23:00 EST is already Tuesday 04:00 UTC.
	clock := testutil.NewClock(time.Date(2026, 1, 13, 4, 0, 0, 0, time.UTC))
	f := newFixtureOn(t, openStore(t, store.Options{Now: clock.Now}))
	if _, err := f.s.UpdateWorkspace(f.ws, store.WorkspaceSettings{TimeZone: ptr("America/New_York")}); err != nil {
		t.Fatal(err)
	}
	nums, _ := f.s.Numbers(f.ws)
	numberID := nums[0].ID
	if _, err := f.s.SetNumberDailyCap(f.ws, numberID, -1); err == nil {
		t.Fatal("a daily cap of -1 was accepted")
	} else {
		wantFields(t, err, "dailyCap")
	}
	if n, err := f.s.SetNumberDailyCap(f.ws, numberID, 3); err != nil || n.DailyCap != 3 {
		t.Fatalf("SetNumberDailyCap(3) = %d, %v", n.DailyCap, err)
	}
	// A single send counts toward the day (and is never held).
	if m := send(t, f, "+14155550999", "hi"); m.Status != store.MessageQueued {
		t.Fatalf("single send %s, want queued", m.Status)
	}
	var to []string
	for i := range 6 {
		to = append(to, fmt.Sprintf("+1415555020%d", i))
	}
	b, err := f.s.SendBroadcast(f.ws, store.BroadcastInput{From: f.number, Text: "sale", Recipients: to})
	if err != nil {
		t.Fatal(err)
	}
	est := mustZone(t, "America/New_York")
	tuesday := time.Date(2026, 1, 13, 0, 0, 0, 0, est)
	wednesday := time.Date(2026, 1, 14, 0, 0, 0, 0, est)
	got := copiesByTo(t, f, b.ID)
	statuses := map[string]int{}
	for _, m := range got {
		statuses[m.Status+" "+m.Held]++
	}
	want := map[string]int{
		store.MessageQueued + " ": 2,
		store.MessageScheduled + " held until Tue Jan 13 00:00 EST: daily cap of 3 reached": 3,
		store.MessageScheduled + " held until Wed Jan 14 00:00 EST: daily cap of 3 reached": 1,
	}
	if fmt.Sprint(statuses) != fmt.Sprint(want) {
		t.Errorf("copies %v, want %v", statuses, want)
	}
	for day, n := range map[time.Time]int{clock.Now(): 3, tuesday: 3, wednesday: 1} {
		if c, _ := f.s.SentOnDay(f.ws, numberID, day); c != n {
			t.Errorf("counted %d on %s, want %d", c, day.In(est).Format("Mon Jan 2"), n)
		}
	}
	// A second before midnight EST nothing moves; at midnight EST (05:00 UTC, not 00:00 UTC)
	// the three go.
	if n := promote(t, f, tuesday.Add(-time.Second)); n != 0 {
		t.Errorf("before midnight EST %d copies were released", n)
	}
	clock.Set(tuesday)
	if n := promote(t, f, clock.Now()); n != 3 {
		t.Errorf("at midnight EST %d copies were released, want 3", n)
	}
	if ids := claimedIDs(claimAll(t, f.s, 10)); len(ids) != 2+1+3 {
		t.Errorf("claimed %d by midnight, want the single send, 2 copies before and 3 after", len(ids))
	}
	// Cancelling gives Wednesday's place back, so a new broadcast on Tuesday (full) takes all
	// three of Wednesday's.
	if _, err := f.s.CancelBroadcast(f.ws, b.ID); err != nil {
		t.Fatal(err)
	}
	if c, _ := f.s.SentOnDay(f.ws, numberID, wednesday); c != 0 {
		t.Errorf("after cancelling, %d counted on Wednesday, want 0", c)
	}
	b2, err := f.s.SendBroadcast(f.ws, store.BroadcastInput{From: f.number, Text: "again", Recipients: to[:4]})
	if err != nil {
		t.Fatal(err)
	}
	statuses = map[string]int{}
	for _, m := range copiesByTo(t, f, b2.ID) {
		statuses[m.Held]++
	}
	if statuses["held until Wed Jan 14 00:00 EST: daily cap of 3 reached"] != 3 || statuses["held until Thu Jan 15 00:00 EST: daily cap of 3 reached"] != 1 {
		t.Errorf("second broadcast's copies %v, want 3 on Wednesday and 1 on Thursday", statuses)
	}
	// Without a cap nothing waits.
	if _, err := f.s.SetNumberDailyCap(f.ws, numberID, 0); err != nil {
		t.Fatal(err)
	}
	b3, _ := f.s.SendBroadcast(f.ws, store.BroadcastInput{From: f.number, Text: "free", Recipients: to})
	for _, m := range copiesByTo(t, f, b3.ID) {
		if m.Status != store.MessageQueued {
			t.Errorf("with no cap a copy is %s", m.Status)
		}
	}
}

// The cap and the state's hours together: a copy pushed to the next day waits there for the
// state's window, and says both.
func TestDailyCapThenStateHours(t *testing.T) {
	clock := testutil.NewClock(time.Date(2026, 1, 14, 16, 0, 0, 0, time.UTC)) // Wednesday 10:00 CST
	f := newFixtureOn(t, openStore(t, store.Options{Now: clock.Now}))
	on := true
	if _, err := f.s.UpdateWorkspace(f.ws, store.WorkspaceSettings{TimeZone: ptr("America/Chicago"), StateHours: &on}); err != nil {
		t.Fatal(err)
	}
	nums, _ := f.s.Numbers(f.ws)
	if _, err := f.s.SetNumberDailyCap(f.ws, nums[0].ID, 1); err != nil {
		t.Fatal(err)
	}
	b, err := f.s.SendBroadcast(f.ws, store.BroadcastInput{From: f.number, Text: "x", Recipients: []string{"+12145550123", "+18325550123"}})
	if err != nil {
		t.Fatal(err)
	}
	got := copiesByTo(t, f, b.ID)
	if m := got["+12145550123"]; m.Status != store.MessageQueued {
		t.Errorf("first copy %s, want queued", m.Status)
	}
	if m := got["+18325550123"]; m.Held != "held until Thu Jan 15 09:00 CST: daily cap of 1 reached; Texas, Monday–Saturday" {
		t.Errorf("second copy held %q", m.Held)
	}
}

func TestCreateNumberDailyCap(t *testing.T) {
	f := newFixture(t)
	if _, err := f.s.CreateNumber(f.ws, store.NumberInput{Phone: "+14155550777", DailyCap: -5}); err == nil {
		t.Fatal("a daily cap of -5 was accepted")
	} else {
		wantFields(t, err, "dailyCap")
	}
	n, err := f.s.CreateNumber(f.ws, store.NumberInput{Phone: "+14155550777", DailyCap: 500})
	if err != nil || n.DailyCap != 500 {
		t.Fatalf("CreateNumber with cap 500 = %d, %v", n.DailyCap, err)
	}
}

// A registration and a cap set together are one change: a bad cap leaves the registration as it
// was, and good ones land together.
func TestSetNumberSettingsIsOneChange(t *testing.T) {
	f := newFixture(t)
	n, err := f.s.CreateNumber(f.ws, store.NumberInput{Phone: "+14155550777", DailyCap: 500})
	if err != nil {
		t.Fatal(err)
	}
	approved := store.NumberRegistration{Status: store.RegApproved, CampaignID: "C-1"}
	bad := -1
	_, err = f.s.SetNumberSettings(f.ws, n.ID, &approved, &bad)
	wantFields(t, err, "dailyCap")
	got, err := f.s.Number(f.ws, n.ID)
	if err != nil || got.RegistrationStatus() != store.RegUnregistered || got.DailyCap != 500 {
		t.Fatalf("after a refused change: %s, cap %d, %v; want unregistered and 500", got.RegistrationStatus(), got.DailyCap, err)
	}
	cap := 200
	if _, err := f.s.SetNumberSettings(f.ws, n.ID, &approved, &cap); err != nil {
		t.Fatal(err)
	}
	got, err = f.s.Number(f.ws, n.ID)
	if err != nil || got.RegistrationStatus() != store.RegApproved || got.Registration.CampaignID != "C-1" || got.DailyCap != 200 {
		t.Fatalf("after both: %+v, cap %d, %v; want approved C-1 and 200", got.Registration, got.DailyCap, err)
	}
}
