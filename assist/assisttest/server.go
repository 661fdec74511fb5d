// Package assisttest is an OpenAI-compatible model server for tests: it streams
// chat/completions chunks ending with "data: [DONE]", or answers an error, garbage, a huge
// answer or nothing at all (a stall), and records every request it gets.
package assisttest

import (
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
)

// Request is one chat completion request as the server got it.
type Request struct {
	Auth     string // the Authorization header
	Model    string
	Stream   bool
	Messages []Message
	Body     string // the whole body, to search for what must not be in it
}

// Message is one message of a request.
type Message struct {
	Role    string `json:"role"`
	Content string `json:"content"`
}

// System and User are the request's system and user messages ("" when absent).
func (r Request) System() string { return r.role("system") }
func (r Request) User() string   { return r.role("user") }

func (r Request) role(role string) string {
	for _, m := range r.Messages {
		if m.Role == role {
			return m.Content
		}
	}
	return ""
}

// Answer is what the server answers a request with.
type Answer struct {
	// Status, when not 0 or 200, answers with that status and an OpenAI-style error body.
	Status int
	// Chunks are the pieces of content, one chunk each, before "data: [DONE]".
	Chunks []string
	// Raw, when set, is the whole body instead (garbage, a page of HTML).
	Raw string
	// With Stall or Hold set, after HoldAfter chunks the stream waits for Hold to close, or for
	// the client to go (a nil Hold: only that, a stall).
	Stall     bool
	Hold      <-chan struct{}
	HoldAfter int
	// Huge, after Chunks, streams this many bytes of content in chunks of 1000 "a"s; HugeLine
	// sends one data line of this many bytes that never ends.
	Huge     int
	HugeLine int
}

// Reply is a streamed answer of the given pieces.
func Reply(pieces ...string) Answer { return Answer{Chunks: pieces} }

// Server is the model server. URL is its base URL, with /v1 as Ollama has it.
type Server struct {
	URL string
	srv *httptest.Server

	mu       sync.Mutex
	answer   func(Request) Answer
	requests []Request
	sent     []int // bytes written per request
	left     chan struct{}
	models   int // the status of GET /v1/models, when set
}

// New starts a server that answers each chat request with answer(request); it stops when the
// test ends.
func New(t testing.TB, answer func(Request) Answer) *Server {
	t.Helper()
	s := &Server{answer: answer, left: make(chan struct{}, 1000)}
	s.srv = httptest.NewServer(http.HandlerFunc(s.serve))
	t.Cleanup(s.srv.Close)
	s.URL = s.srv.URL + "/v1"
	return s
}

// SetAnswer changes how the server answers from now on.
func (s *Server) SetAnswer(answer func(Request) Answer) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.answer = answer
}

// SetModelsStatus makes GET /v1/models (a start's probe) answer with status.
func (s *Server) SetModelsStatus(status int) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.models = status
}

// Requests are the chat requests so far, in order.
func (s *Server) Requests() []Request {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]Request(nil), s.requests...)
}

// Sent is how many bytes the server wrote in answer to the i-th chat request.
func (s *Server) Sent(i int) int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.sent[i]
}

// Left receives once for each request whose client went away before its answer ended.
func (s *Server) Left() <-chan struct{} { return s.left }

func (s *Server) serve(w http.ResponseWriter, r *http.Request) {
	switch {
	case r.Method == http.MethodGet && r.URL.Path == "/v1/models":
		s.mu.Lock()
		status := s.models
		s.mu.Unlock()
		if status != 0 {
			writeError(w, status)
			return
		}
		w.Header().Set("Content-Type", "application/json")
		io.WriteString(w, `{"object":"list","data":[{"id":"test-model","object":"model","created":1,"owned_by":"test"}]}`)
		return
	case r.Method != http.MethodPost || r.URL.Path != "/v1/chat/completions":
		http.NotFound(w, r)
		return
	}
	body, _ := io.ReadAll(r.Body)
	var in struct {
		Model    string    `json:"model"`
		Stream   bool      `json:"stream"`
		Messages []Message `json:"messages"`
	}
	_ = json.Unmarshal(body, &in)
	req := Request{Auth: r.Header.Get("Authorization"), Model: in.Model, Stream: in.Stream, Messages: in.Messages, Body: string(body)}
	s.mu.Lock()
	s.requests = append(s.requests, req)
	s.sent = append(s.sent, 0)
	n := len(s.requests) - 1
	answer := s.answer
	s.mu.Unlock()
	a := answer(req)
	cw := &countingWriter{w: w}
	complete := s.write(cw, r, a)
	s.mu.Lock()
	s.sent[n] = cw.n
	s.mu.Unlock()
	if !complete {
		s.left <- struct{}{}
	}
}

// write answers a; false when the client went away first.
func (s *Server) write(w *countingWriter, r *http.Request, a Answer) bool {
	if a.Status != 0 && a.Status != http.StatusOK {
		writeError(w, a.Status)
		return true
	}
	if a.Raw != "" {
		w.Header().Set("Content-Type", "text/event-stream")
		_, err := io.WriteString(w, a.Raw)
		return err == nil
	}
	w.Header().Set("Content-Type", "text/event-stream")
	w.WriteHeader(http.StatusOK)
	rc := http.NewResponseController(w.w)
	send := func(data string) bool {
		if _, err := io.WriteString(w, "data: "+data+"\n\n"); err != nil {
			return false
		}
		return rc.Flush() == nil && r.Context().Err() == nil
	}
	holds := a.Stall || a.Hold != nil
	for i, c := range a.Chunks {
		if holds && a.HoldAfter == i && !hold(r, a.Hold) {
			return false
		}
		if !send(chunk(c, "")) {
			return false
		}
	}
	if holds && a.HoldAfter >= len(a.Chunks) && !hold(r, a.Hold) {
		return false
	}
	piece := strings.Repeat("a", 1000)
	for sent := 0; sent < a.Huge; sent += len(piece) {
		if !send(chunk(piece, "")) {
			return false
		}
	}
	if a.HugeLine > 0 {
		io.WriteString(w, "data: ")
		line := strings.Repeat("b", 64<<10)
		for sent := 0; sent < a.HugeLine; sent += len(line) {
			if _, err := io.WriteString(w, line); err != nil {
				return false
			}
		}
		return true
	}
	return send(chunk("", "stop")) && send("[DONE]")
}

// hold waits for the channel to close or the client to go; false when the client went.
func hold(r *http.Request, ch <-chan struct{}) bool {
	select {
	case <-ch: // a nil channel never closes: a stall
		return true
	case <-r.Context().Done():
		return false
	}
}

func chunk(content, finish string) string {
	delta := map[string]any{}
	if content != "" {
		delta["content"] = content
	}
	var fin any
	if finish != "" {
		fin = finish
	}
	b, _ := json.Marshal(map[string]any{"id": "chatcmpl-test", "object": "chat.completion.chunk", "created": 1,
		"model": "test-model", "choices": []any{map[string]any{"index": 0, "delta": delta, "finish_reason": fin}}})
	return string(b)
}

func writeError(w http.ResponseWriter, status int) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	fmt.Fprintf(w, `{"error":{"message":"test error %d","type":"test","param":null,"code":null}}`, status)
}

type countingWriter struct {
	w http.ResponseWriter
	n int
}

func (c *countingWriter) Header() http.Header  { return c.w.Header() }
func (c *countingWriter) WriteHeader(code int) { c.w.WriteHeader(code) }
func (c *countingWriter) Write(p []byte) (int, error) {
	n, err := c.w.Write(p)
	c.n += n
	return n, err
}
