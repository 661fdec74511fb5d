package carrier_test

import (
	"testing"
	"time"

	"switchboard/carrier"
	"switchboard/store"
)

func TestSchedulerStartsABroadcastAtItsTime(t *testing.T) {
	e := newEnv(t)
	at := time.Now().Add(300 * time.Millisecond)
	b, err := e.s.SendBroadcast(e.ws, store.BroadcastInput{From: e.number, Text: "soon", SendAt: &at, Recipients: []string{"+14155550301", "+14155550302"}})
	if err != nil {
		t.Fatal(err)
	}
	sc := carrier.NewScheduler(e.s, nil)
	e.s.SetHooks(store.Hooks{Schedule: sc.Wake})
	sc.Start()
	t.Cleanup(sc.Stop)
	// A second one scheduled after the scheduler went to sleep wakes it.
	at2 := time.Now().Add(200 * time.Millisecond)
	b2, err := e.s.SendBroadcast(e.ws, store.BroadcastInput{From: e.number, Text: "sooner", SendAt: &at2, Recipients: []string{"+14155550303"}})
	if err != nil {
		t.Fatal(err)
	}
	for _, id := range []string{b.ID, b2.ID} {
		eventually(t, "the broadcast starts", func() bool {
			got, _ := e.s.Broadcast(e.ws, id)
			return got.Status == store.BroadcastSending
		})
		got, _ := e.s.Broadcast(e.ws, id)
		if got.StartedAt.Before(*got.SendAt) {
			t.Errorf("broadcast started at %v, before its time %v", got.StartedAt, got.SendAt)
		}
	}
	eventually(t, "both copies are queued", func() bool {
		got, _ := e.s.Broadcast(e.ws, b.ID)
		return got.TotalQueued == 2 && !got.Fanout
	})
}
