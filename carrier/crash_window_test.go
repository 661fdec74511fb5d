package carrier_test

import (
	"context"
	"fmt"
	"sync"
	"testing"

	"switchboard/carrier"
	"switchboard/store"
)

// windowCarrier accepts every send and, at each call, counts the messages it accepted whose
// outcome the store has not recorded yet (still `sending`): a crash at that instant would send
// them again after the restart.
type windowCarrier struct {
	s  *store.Store
	ws string

	mu       sync.Mutex
	accepted map[string]bool // accepted, not yet seen recorded
	calls    int
	worst    int
}

func (c *windowCarrier) Name() string { return "sandbox" }

func (c *windowCarrier) Send(_ context.Context, m carrier.Outbound) (string, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	for id := range c.accepted {
		if msg, err := c.s.Message(c.ws, id); err == nil && msg.Status != store.MessageSending {
			delete(c.accepted, id)
		}
	}
	c.worst = max(c.worst, len(c.accepted))
	c.calls++
	c.accepted[m.MessageID] = true
	return fmt.Sprintf("SM%06d", c.calls), nil
}

// TestACrashResendsAtMostTwoMessagesPerWorker sends a broadcast through 32 workers and checks,
// at every carrier call, that no more than 64 accepted messages are unrecorded: what a SIGKILL
// at that instant would send twice.
func TestACrashResendsAtMostTwoMessagesPerWorker(t *testing.T) {
	e := newEnv(t)
	c := &windowCarrier{s: e.s, ws: e.ws, accepted: map[string]bool{}}
	var recipients []string
	for i := range 600 {
		recipients = append(recipients, fmt.Sprintf("+1415777%04d", i))
	}
	b, err := e.s.SendBroadcast(e.ws, store.BroadcastInput{From: e.number, Recipients: recipients, Text: "Sale"})
	if err != nil {
		t.Fatal(err)
	}
	e.start(t, carrier.Options{Carriers: map[string]carrier.Carrier{"sandbox": c}})
	eventually(t, "every copy sent", func() bool {
		got, err := e.s.Broadcast(e.ws, b.ID)
		return err == nil && got.TotalSent == len(recipients)
	})
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.calls != len(recipients) {
		t.Errorf("%d carrier calls, want %d", c.calls, len(recipients))
	}
	if c.worst > 64 {
		t.Errorf("up to %d accepted messages were unrecorded at once, want ≤ 64 (2 × 32 workers)", c.worst)
	}
	t.Logf("at most %d accepted messages unrecorded at once", c.worst)
}
