package webhooks_test

import (
	"bufio"
	"fmt"
	"log/slog"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"switchboard/store"
	"switchboard/webhooks"
)

// Environment of the helper process TestCrashChild.
const (
	crashMode = "SWITCHBOARD_CRASH_CHILD" // enqueue | deliver
	crashDB   = "SWITCHBOARD_CRASH_DB"
	crashWS   = "SWITCHBOARD_CRASH_WS"
	crashN    = "SWITCHBOARD_CRASH_N"
)

// TestCrashLosesNoEvent queues events in a real process that runs the worker against a receiver
// that never answers, kills it with SIGKILL before anything is delivered, and starts a new
// process on the same file: every event is delivered, each webhook-id at least once.
func TestCrashLosesNoEvent(t *testing.T) {
	if testing.Short() {
		t.Skip("starts subprocesses")
	}
	const n = 60
	var answering atomic.Bool
	var mu sync.Mutex
	okIDs := map[string]int{}
	rc := newReceiver(t, func(w http.ResponseWriter, r *http.Request, _ int) {
		if !answering.Load() {
			hang(w, r) // in flight when the process dies
			return
		}
		mu.Lock()
		okIDs[r.Header.Get("webhook-id")]++
		mu.Unlock()
		w.WriteHeader(http.StatusOK)
	})
	path := filepath.Join(t.TempDir(), "switchboard.db")
	e := newEnvAt(t, path, nil)
	sub := e.subscribe(t, store.EventContactCreated, rc.srv.URL+"/hook")
	ws := e.ws
	if err := e.s.Close(); err != nil {
		t.Fatal(err)
	}

	child := func(mode string) *exec.Cmd {
		cmd := exec.Command(os.Args[0], "-test.run=^TestCrashChild$", "-test.v")
		cmd.Env = append(os.Environ(), crashMode+"="+mode, crashDB+"="+path, crashWS+"="+ws, crashN+"="+strconv.Itoa(n))
		cmd.Stderr = os.Stderr
		return cmd
	}

	// Process 1: queue n events, start sending, die.
	p1 := child("enqueue")
	out, err := p1.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := p1.Start(); err != nil {
		t.Fatal(err)
	}
	queued := make(chan bool, 1)
	go func() {
		sc := bufio.NewScanner(out)
		for sc.Scan() {
			if strings.TrimSpace(sc.Text()) == "queued" {
				queued <- true
			}
		}
		queued <- false
	}()
	select {
	case ok := <-queued:
		if !ok {
			p1.Wait()
			t.Fatal("the first process ended without queueing")
		}
	case <-time.After(60 * time.Second):
		p1.Process.Kill()
		t.Fatal("the first process did not queue in time")
	}
	waitFor(t, "requests in flight in the first process", func() bool { return rc.count() > 0 })
	if err := p1.Process.Signal(syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	_ = p1.Wait()
	mu.Lock()
	if len(okIDs) != 0 {
		t.Fatalf("%d deliveries were answered before the kill; the test wants none", len(okIDs))
	}
	mu.Unlock()
	inFlight := rc.count()

	// Process 2: the same file, a receiver that answers.
	answering.Store(true)
	p2 := child("deliver")
	p2.Stdout = os.Stderr
	done := make(chan error, 1)
	if err := p2.Start(); err != nil {
		t.Fatal(err)
	}
	go func() { done <- p2.Wait() }()
	select {
	case err := <-done:
		if err != nil {
			t.Fatalf("the second process: %v", err)
		}
	case <-time.After(90 * time.Second):
		p2.Process.Kill()
		t.Fatal("the second process did not drain the queue in time")
	}

	s, err := store.Open(path, store.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	ds, err := s.SubscriptionDeliveries(sub.ID, 0)
	if err != nil {
		t.Fatal(err)
	}
	if len(ds) != n {
		t.Fatalf("deliveries = %d, want %d (one per event)", len(ds), n)
	}
	mu.Lock()
	defer mu.Unlock()
	for _, d := range ds {
		if d.Status != store.DeliveryDelivered {
			t.Errorf("delivery %s is %s, want delivered", d.ID, d.Status)
		}
		if okIDs[d.ID] < 1 {
			t.Errorf("webhook-id %s never answered with 200", d.ID)
		}
	}
	t.Logf("%d events: %d requests hung when the first process was killed; all delivered after restart", n, inFlight)
}

// TestCrashChild is the subprocess of TestCrashLosesNoEvent; it does nothing in a normal run.
func TestCrashChild(t *testing.T) {
	mode := os.Getenv(crashMode)
	if mode == "" {
		t.Skip("helper process of TestCrashLosesNoEvent")
	}
	s, err := store.Open(os.Getenv(crashDB), store.Options{Timeout: 5 * time.Second})
	if err != nil {
		t.Fatal(err)
	}
	// Few workers, so that when the process dies some deliveries are in flight, some claimed
	// and some still only in the queue.
	w := webhooks.New(s, webhooks.Options{Workers: 4, Guard: webhooks.NewGuard(loopback(t)),
		Logger: slog.New(slog.DiscardHandler)})
	s.SetHooks(store.Hooks{Events: w.Wake})
	w.Start()
	switch mode {
	case "enqueue":
		n, _ := strconv.Atoi(os.Getenv(crashN))
		for i := range n {
			if _, err := s.CreateContact(os.Getenv(crashWS), store.ContactInput{Phone: fmt.Sprintf("+1415556%04d", i)}); err != nil {
				t.Fatal(err)
			}
		}
		fmt.Println("queued")
		select {} // until SIGKILL
	case "deliver":
		deadline := time.Now().Add(80 * time.Second)
		for {
			depth, err := s.QueueDepth()
			if err != nil {
				t.Fatal(err)
			}
			if depth == 0 {
				break
			}
			if time.Now().After(deadline) {
				t.Fatalf("queue depth still %d", depth)
			}
			time.Sleep(10 * time.Millisecond)
		}
		w.Stop()
		if err := s.Close(); err != nil {
			t.Fatal(err)
		}
	}
}
