package push_test

import (
	"encoding/json"
	"fmt"
	"net"
	"path/filepath"
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus"

	"switchboard/internal/testutil"
	"switchboard/push"
	"switchboard/store"
	"switchboard/webhooks"
)

// bench is a workspace with a member whose phone has notifications on, the push service that
// phone uses, and a push worker on an injected clock.
type bench struct {
	t      *testing.T
	s      *store.Store
	clock  *testutil.Clock
	ps     *testutil.PushService
	dev    *testutil.PushDevice
	key    *push.Key
	reg    *prometheus.Registry
	w      *push.Worker
	ws     string
	number string
	user   store.User
	sess   store.Session
	sub    store.PushSubscription
	alive  bool
}

// loopback lets the guard reach the test's push service, as -hook-allow-cidrs does.
func loopback(t testing.TB) *push.Guard {
	_, n, err := net.ParseCIDR("127.0.0.0/8")
	if err != nil {
		t.Fatal(err)
	}
	return push.NewGuard(webhooks.NewGuard([]*net.IPNet{n}))
}

func newBench(t *testing.T) *bench {
	t.Helper()
	b := &bench{t: t, clock: testutil.NewClock(time.Now().UTC()), alive: true}
	s, err := store.Open(filepath.Join(t.TempDir(), "sb.db"), store.Options{Now: b.clock.Now})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close() })
	b.s = s
	w, err := s.CreateWorkspace("Acme Dental")
	testutil.NoErr(t, err)
	b.ws, b.number = w.ID, "+14155550100"
	b.user, err = s.CreateUser(store.NewUser{Email: "ana@example.com", Name: "Ana Lima"})
	testutil.NoErr(t, err)
	_, err = s.AddMember(w.ID, b.user.ID, "")
	testutil.NoErr(t, err)
	_, err = s.AddNumber(w.ID, b.number, "Main")
	testutil.NoErr(t, err)
	b.sess, _, err = s.CreateSession(store.NewSession{UserID: b.user.ID, UserAgent: "Chrome on Android"})
	testutil.NoErr(t, err)
	b.ps = testutil.StartPushService(t)
	b.dev = b.ps.NewDevice()
	sub, err := push.DecodeSubscription([]byte(b.dev.JSON()))
	if err != nil {
		t.Fatal(err)
	}
	b.sub, err = s.AddPushSubscription(store.NewPushSubscription{UserID: b.user.ID, SessionID: b.sess.ID,
		Endpoint: sub.Endpoint, P256dh: sub.Keys.P256dh, Auth: sub.Keys.Auth})
	testutil.NoErr(t, err)
	b.key, err = push.NewKey()
	testutil.NoErr(t, err)
	b.ps.ExpectKey(b.key.PublicKey())
	b.reg = prometheus.NewRegistry()
	b.w = push.New(s, push.Options{Key: b.key, Subject: "mailto:ops@acme.example", Guard: loopback(t), Now: b.clock.Now,
		Rand: func() float64 { return 0.5 }, Registry: b.reg, SessionAlive: func(store.Session) bool { return b.alive }})
	s.SetHooks(store.Hooks{Push: b.w.Wake})
	b.w.Start()
	t.Cleanup(b.w.Stop)
	return b
}

func (b *bench) inbound(text string) store.Message {
	b.t.Helper()
	m, err := b.s.RecordInboundMessage(b.ws, store.InboundMessage{From: "+14155550123", To: b.number, Text: text})
	testutil.NoErr(b.t, err)
	return m
}

// metric is the value of a series of the registry: name, and the outcome label when o is not "".
func (b *bench) metric(name, o string) float64 {
	mfs, err := b.reg.Gather()
	if err != nil {
		b.t.Fatal(err)
	}
	for _, mf := range mfs {
		if mf.GetName() != name {
			continue
		}
		for _, m := range mf.GetMetric() {
			switch {
			case o == "":
				return m.GetGauge().GetValue()
			case m.GetLabel()[0].GetValue() == o:
				return m.GetCounter().GetValue()
			}
		}
	}
	return -1
}

func (b *bench) outcome(o string) float64 { return b.metric("switchboard_push_sent_total", o) }

// eventually polls cond until it holds, for at most 10 s: the worker records outcomes in its
// own goroutines.
func (b *bench) eventually(what string, cond func() bool) {
	b.t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for !cond() {
		if time.Now().After(deadline) {
			b.t.Fatalf("after 10 s: %s", what)
		}
		time.Sleep(5 * time.Millisecond)
	}
}

func (b *bench) devices() int {
	subs, err := b.s.UserPushSubscriptions(b.user.ID)
	testutil.NoErr(b.t, err)
	return len(subs)
}

// job is the first job in the outbox, due now or within two days.
func (b *bench) job() (store.PushJob, bool) {
	due, _, err := b.s.DuePushes(b.clock.Now().Add(48*time.Hour), 10, nil)
	if err != nil {
		b.t.Fatal(err)
	}
	if len(due) == 0 {
		return store.PushJob{}, false
	}
	return due[0].Job, true
}

func TestPushReachesTheDeviceEncryptedAndSigned(t *testing.T) {
	b := newBench(t)
	m := b.inbound("Can I move my cleaning to Friday?")
	got := b.ps.WaitFor(1, 10*time.Second)[0]
	var p store.PushPayload
	if err := json.Unmarshal(got.Payload, &p); err != nil {
		t.Fatalf("the device decrypted %q: %v", got.Payload, err)
	}
	want := store.PushPayload{Title: "(415) 555-0123", Body: "Can I move my cleaning to Friday?", URL: "/inbox/" + m.ConversationID,
		ConversationID: m.ConversationID, Workspace: "Acme Dental", Unread: 1, Reason: "inbound"}
	if p != want {
		t.Fatalf("payload\n got %+v\nwant %+v", p, want)
	}
	for h, v := range map[string]string{"TTL": "86400", "Urgency": "high", "Topic": m.ConversationID, "Content-Encoding": "aes128gcm"} {
		if got.Header.Get(h) != v {
			t.Errorf("header %s = %q, want %q", h, got.Header.Get(h), v)
		}
	}
	b.eventually("the device's last push is recorded", func() bool {
		subs, _ := b.s.UserPushSubscriptions(b.user.ID)
		return len(subs) == 1 && !subs[0].LastPushAt.IsZero()
	})
	b.eventually("the outbox is empty and one push is counted sent", func() bool {
		n, _ := b.s.PushQueueDepth()
		return n == 0 && b.outcome(push.OutcomeSent) == 1
	})
	if n := b.metric("switchboard_push_queue_depth", ""); n != 0 {
		t.Fatalf("switchboard_push_queue_depth = %v after the push went", n)
	}
}

func TestPushGoneDeletesTheSubscription(t *testing.T) {
	for _, status := range []int{404, 410} {
		b := newBench(t)
		b.ps.Answer(b.dev, testutil.PushAnswer{Status: status})
		b.inbound("hello")
		b.eventually(fmt.Sprintf("the subscription is deleted after a %d and counted gone", status), func() bool {
			return b.devices() == 0 && b.outcome(push.OutcomeGone) == 1
		})
		if _, ok := b.job(); ok {
			t.Fatal("a push is still queued for a deleted subscription")
		}
	}
}

// 429 and 5xx are retried: not before the push service's Retry-After, then sent.
func TestPushRetriesHonouringRetryAfter(t *testing.T) {
	b := newBench(t)
	b.ps.Answer(b.dev, testutil.PushAnswer{Status: 429, RetryAfter: "120"}, testutil.PushAnswer{Status: 503})
	start := b.clock.Now()
	b.inbound("are you open on Saturday?")
	var j store.PushJob
	b.eventually("the push is kept for a retry", func() bool { var ok bool; j, ok = b.job(); return ok && j.Attempts == 1 })
	if want := start.Add(120 * time.Second); !j.DueAt.Equal(want) {
		t.Fatalf("retry due %v after the 429, want %v (Retry-After: 120)", j.DueAt.Sub(start), want.Sub(start))
	}
	b.clock.Advance(120 * time.Second)
	b.w.Wake()
	b.eventually("the second try, a 503, is kept for a retry in 20 s", func() bool { var ok bool; j, ok = b.job(); return ok && j.Attempts == 2 })
	if d := j.DueAt.Sub(b.clock.Now()); d != 20*time.Second {
		t.Fatalf("after a 503 with no Retry-After the retry is due in %v, want 20 s (10 s doubled)", d)
	}
	b.clock.Advance(20 * time.Second)
	b.w.Wake()
	b.ps.WaitFor(1, 10*time.Second)
	b.eventually("two retries counted", func() bool { return b.outcome(push.OutcomeRetry) == 2 })
}

// A push the push service has not taken within 24 hours is dropped; one it refuses (400) is
// dropped at once.
func TestPushGivesUp(t *testing.T) {
	b := newBench(t)
	b.ps.Answer(b.dev, testutil.PushAnswer{Status: 503, RetryAfter: "86400"})
	b.inbound("first")
	b.eventually("the push that cannot be retried within 24 hours is dropped", func() bool {
		_, ok := b.job()
		return !ok && b.outcome(push.OutcomeFailed) == 1
	})
	b.ps.Answer(b.dev, testutil.PushAnswer{Status: 400})
	b.inbound("second")
	b.eventually("the refused push is dropped", func() bool {
		_, ok := b.job()
		return !ok && b.outcome(push.OutcomeFailed) == 2
	})
	if b.devices() != 1 || len(b.ps.Received()) != 0 {
		t.Fatalf("devices %d, pushes taken %d; want the device kept and nothing delivered", b.devices(), len(b.ps.Received()))
	}
}

// A session that lapsed (idle, too old) before the sweep deleted it ends when a push finds it:
// its subscription goes, nothing reaches the phone.
func TestPushEndsALapsedSession(t *testing.T) {
	b := newBench(t)
	b.alive = false
	b.inbound("anyone there?")
	b.eventually("the lapsed session's subscription is deleted, the push counted dropped", func() bool {
		return b.devices() == 0 && b.outcome(push.OutcomeDropped) == 1
	})
	if s, _ := b.s.UserSessions(b.user.ID); len(s) != 0 || len(b.ps.Received()) != 0 {
		t.Fatalf("sessions %d, pushes taken %d; want the session ended and nothing pushed", len(s), len(b.ps.Received()))
	}
}

// The outbox survives a restart: pushes queued while no worker ran go when one starts.
func TestPushQueuedWhileStoppedGoesAtStart(t *testing.T) {
	b := newBench(t)
	b.w.Stop()
	b.inbound("one")
	b.inbound("two")
	w := push.New(b.s, push.Options{Key: b.key, Subject: "https://sb.example", Guard: loopback(t), Now: b.clock.Now})
	w.Start()
	defer w.Stop()
	if got := b.ps.WaitFor(2, 10*time.Second); len(got) != 2 {
		t.Fatalf("%d pushes after the start", len(got))
	}
}
