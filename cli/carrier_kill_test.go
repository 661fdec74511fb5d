package cli

import (
	"testing"
	"time"
)

// TestServeKillResendsAtMostTheWindow kills the real binary three times while a broadcast goes
// out through the Twilio fake, as fast as it accepts, and counts what the carrier received
// twice after each restart: at most the messages at the carrier or accepted but unrecorded at
// the kill, 64 with the default 32 workers.
func TestServeKillResendsAtMostTheWindow(t *testing.T) {
	if testing.Short() {
		t.Skip("kills and restarts the binary three times")
	}
	fake := newTwilioFake(t)
	f := newFixture(t)
	addTwilioNumber(t, f, "0")
	srv := startTwilioServer(t, f, fake)
	rec := phones("+1303", 5550000, 3000)
	sendBroadcast(t, srv.base, f, twilioPhone, rec, "sale")

	type kill struct {
		at   int             // calls the carrier had received
		sent map[string]bool // recipients reached before it
	}
	var kills []kill
	for i := 1; i <= 3; i++ {
		fake.waitArrivals(t, i*700, 60*time.Second)
		if err := srv.cmd.Process.Kill(); err != nil {
			t.Fatal(err)
		}
		<-srv.done
		log := fake.log()
		k := kill{at: len(log), sent: map[string]bool{}}
		for _, a := range log {
			k.sent[a.To] = true
		}
		kills = append(kills, k)
		srv = startTwilioServer(t, f, fake)
	}
	deadline := time.Now().Add(60 * time.Second)
	for {
		seen := map[string]bool{}
		for _, a := range fake.log() {
			seen[a.To] = true
		}
		if len(seen) == len(rec) {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("%d of %d recipients reached after the kills", len(seen), len(rec))
		}
		time.Sleep(50 * time.Millisecond)
	}
	if code := srv.stop(t); code != 0 {
		t.Errorf("exit %d after SIGTERM", code)
	}
	log := fake.log()
	for i, k := range kills {
		end := len(log)
		if i+1 < len(kills) {
			end = kills[i+1].at
		}
		twice := 0
		for _, a := range log[k.at:end] {
			if k.sent[a.To] {
				twice++
			}
		}
		t.Logf("kill %d after %d calls: %d recipients texted twice", i+1, k.at, twice)
		if twice > 64 {
			t.Errorf("kill %d re-sent %d messages the carrier had received, want ≤ 64 (2 × 32 workers)", i+1, twice)
		}
	}
}
