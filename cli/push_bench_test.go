package cli

import (
	"fmt"
	"testing"
	"time"

	"switchboard/internal/testutil"
)

// Web Push targets (§29): an inbound text reaches the push service for 1,000 subscribed devices
// in ≤ 2 s, and the push outbox drains ≥ 500 pushes/s, measured as a user meets them: the built
// binary, a text posted to the sandbox carrier, and a push service on this machine that
// decrypts every push and checks its VAPID signature as a browser and a real service would.
// Run with
//
//	go test -run '^$' -bench 'Push' -benchtime 1x ./cli

// pushFleet is 100 members of the fixture's workspace, each signed in once with notifications
// on for 10 devices: 1,000 devices, every one notified of an unassigned customer's text.
func pushFleet(b *testing.B) (fixture, *server, *testutil.PushService) {
	b.Helper()
	f := newFixture(b)
	const users, perUser = 100, 10
	emails := make([]string, users)
	for i := range users {
		emails[i] = fmt.Sprintf("agent%03d@example.com", i)
		u := ok(b, "admin", "create-user", "-data="+f.data, "--email", emails[i], "--name", fmt.Sprintf("Agent %d", i), "--password", "correct horse")
		ok(b, "admin", "add-member", "-data="+f.data, "--workspace", f.ws, "--user", u)
	}
	ps := testutil.StartPushService(b)
	addr := "127.0.0.1:" + testutil.FreePort(b)
	srv := startServer(b, addr, nil, "-addr", addr, "-data", f.data, "-log-requests=false", "-rate-limit", "0",
		"-hook-allow-cidrs", "127.0.0.0/8")
	// One after another: concurrent sign-ins from one network are throttled.
	for _, email := range emails {
		c := browserSignInAs(b, srv.base, email)
		for range perUser {
			subscribeDevice(b, c, srv.base, ps.NewDevice())
		}
	}
	return f, srv, ps
}

// BenchmarkPushFanout1000: from posting a customer's text to the 1,000th push taken by the push
// service (target ≤ 2 s).
func BenchmarkPushFanout1000(b *testing.B) {
	var took time.Duration
	for range b.N {
		b.StopTimer()
		f, srv, ps := pushFleet(b)
		b.StartTimer()
		start := time.Now()
		textIn(b, srv.base, f.token, "+14155550123", "Can someone call me back about my order?")
		ps.WaitFor(1000, 30*time.Second)
		took = time.Since(start)
		b.StopTimer()
		srv.stop(b)
	}
	b.ReportMetric(took.Seconds(), "s/1000-devices")
	b.Logf("an inbound text reached the push service for 1,000 devices in %v (target ≤ 2 s)", took.Round(time.Millisecond))
	if took > 2*time.Second {
		b.Errorf("fan-out to 1,000 devices took %v, over the 2 s target", took)
	}
}

// BenchmarkPushDrain: pushes per second the outbox sends to the local push service while five
// texts' 5,000 pushes drain (target ≥ 500/s). The push service holds its answers until all five
// are queued, so the whole backlog is in the outbox when the drain is timed.
func BenchmarkPushDrain(b *testing.B) {
	const texts = 5
	var rate float64
	for range b.N {
		b.StopTimer()
		f, srv, ps := pushFleet(b)
		ps.Hold()
		for i := range texts {
			textIn(b, srv.base, f.token, "+14155550123", fmt.Sprintf("Message %d of the backlog", i))
		}
		b.StartTimer()
		start := time.Now()
		ps.Release()
		ps.WaitFor(texts*1000, 60*time.Second)
		took := time.Since(start)
		b.StopTimer()
		rate = texts * 1000 / took.Seconds()
		srv.stop(b)
	}
	b.ReportMetric(rate, "pushes/s")
	b.Logf("the push outbox drained %.0f pushes/s (target ≥ 500/s)", rate)
	if rate < 500 {
		b.Errorf("the outbox drained %.0f pushes/s, under the 500/s target", rate)
	}
}
