package cli

import (
	"bytes"
	"fmt"
	"strings"
	"sync"
	"testing"
)

// gatedWriter blocks every write until the gate is opened, and records what it was given.
type gatedWriter struct {
	gate    chan struct{}
	entered chan struct{}
	mu      sync.Mutex
	buf     bytes.Buffer
	writes  int
}

func (g *gatedWriter) Write(p []byte) (int, error) {
	select {
	case g.entered <- struct{}{}:
	default:
	}
	<-g.gate
	g.mu.Lock()
	defer g.mu.Unlock()
	g.writes++
	return g.buf.Write(p)
}

// A request's log line does not wait for the write of the lines before it; every line is
// written once, whole and in order, by the time Close returns, and a line written after Close
// goes straight out.
func TestLineWriterDoesNotWaitAndKeepsOrder(t *testing.T) {
	out := &gatedWriter{gate: make(chan struct{}), entered: make(chan struct{}, 1)}
	w := newLineWriter(out)
	if _, err := w.Write([]byte("line 0\n")); err != nil {
		t.Fatal(err)
	}
	<-out.entered // the writer's goroutine is now stuck in out.Write
	for i := 1; i < 1000; i++ {
		if n, err := w.Write(fmt.Appendf(nil, "line %d\n", i)); err != nil || n != len(fmt.Sprintf("line %d\n", i)) {
			t.Fatalf("Write = %d, %v", n, err)
		}
	}
	close(out.gate) // every Write above returned while out was blocked
	w.Close()
	lines := strings.Split(strings.TrimSuffix(out.buf.String(), "\n"), "\n")
	if len(lines) != 1000 {
		t.Fatalf("%d lines written, want 1000", len(lines))
	}
	for i, l := range lines {
		if l != fmt.Sprintf("line %d", i) {
			t.Fatalf("line %d = %q", i, l)
		}
	}
	if out.writes > 3 {
		t.Errorf("%d writes for lines that waited together, want them batched", out.writes)
	}
	w.Write([]byte("after close\n"))
	if !strings.HasSuffix(out.buf.String(), "line 999\nafter close\n") {
		t.Errorf("a line written after Close did not go out: %q", out.buf.String()[out.buf.Len()-40:])
	}
}

// Many writers at once: every line arrives whole, none lost or doubled.
func TestLineWriterConcurrentLines(t *testing.T) {
	var out syncBuffer
	w := newLineWriter(&out)
	var wg sync.WaitGroup
	for g := range 8 {
		wg.Go(func() {
			for i := range 500 {
				w.Write(fmt.Appendf(nil, "writer %d line %d\n", g, i))
			}
		})
	}
	wg.Wait()
	w.Close()
	seen := map[string]bool{}
	for _, l := range strings.Split(strings.TrimSuffix(out.String(), "\n"), "\n") {
		if seen[l] || !strings.HasPrefix(l, "writer ") {
			t.Fatalf("line %q doubled or broken", l)
		}
		seen[l] = true
	}
	if len(seen) != 8*500 {
		t.Fatalf("%d lines, want %d", len(seen), 8*500)
	}
}
