package cli

import (
	"io"
	"sync"
	"time"
)

// lineWriter writes the server's log lines to out from one goroutine of its own, so that a
// request does not wait for its line's write system call: lines that arrive while a write is
// under way go out together in the next one, in the order they came. When more than
// lineWriterMax bytes wait (out is slower than the lines come), the writer that adds to them
// writes them itself, so that waiting lines stay bounded. Close writes what is left and stops
// the goroutine; lines written after Close go straight to out.
type lineWriter struct {
	out io.Writer

	mu      sync.Mutex // guards buf and closed
	buf     []byte
	closed  bool
	writeMu sync.Mutex // held while a batch is taken and written, so that batches keep their order
	wake    chan struct{}
	done    chan struct{}
}

const lineWriterMax = 1 << 20

func newLineWriter(out io.Writer) *lineWriter {
	w := &lineWriter{out: out, wake: make(chan struct{}, 1), done: make(chan struct{})}
	go w.run()
	return w
}

// Write queues p (one log line: slog's handlers write a record in one call) and returns at once.
func (w *lineWriter) Write(p []byte) (int, error) {
	w.mu.Lock()
	if w.closed {
		w.mu.Unlock()
		w.writeMu.Lock()
		defer w.writeMu.Unlock()
		return w.out.Write(p)
	}
	w.buf = append(w.buf, p...)
	full := len(w.buf) > lineWriterMax
	if !full {
		// Under mu: Close marks the writer closed under mu before it closes wake.
		select {
		case w.wake <- struct{}{}:
		default:
		}
	}
	w.mu.Unlock()
	if full {
		w.flush()
	}
	return len(p), nil
}

// flush writes every waiting line in one write.
func (w *lineWriter) flush() {
	w.writeMu.Lock()
	defer w.writeMu.Unlock()
	w.mu.Lock()
	batch := w.buf
	w.buf = nil
	w.mu.Unlock()
	if len(batch) == 0 {
		return
	}
	_, _ = w.out.Write(batch) // a log line that cannot be written has nowhere else to go
	w.mu.Lock()
	if w.buf == nil && cap(batch) <= lineWriterMax { // the next batch reuses the memory
		w.buf = batch[:0]
	}
	w.mu.Unlock()
}

// lineLinger is how long the writer lets lines gather before it writes them: under load one
// write system call then carries the lines of many requests (at 20,000 requests a second,
// forty a write instead of two or three). A line reaches the log at most this late; a crash
// can lose that much.
const lineLinger = 2 * time.Millisecond

func (w *lineWriter) run() {
	defer close(w.done)
	for range w.wake {
		time.Sleep(lineLinger)
		w.flush()
	}
}

// Close writes the waiting lines and stops the writer's goroutine.
func (w *lineWriter) Close() error {
	w.mu.Lock()
	if w.closed {
		w.mu.Unlock()
		return nil
	}
	w.closed = true
	w.mu.Unlock()
	close(w.wake)
	<-w.done
	w.flush()
	return nil
}
