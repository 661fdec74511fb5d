package web

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"sync"
	"testing"
)

// TestMixedSendsInOneBatch sends concurrently to recipients of whom every other one opted out. The
// sends share DB.Batch transactions; the 422s must come back through each caller's own variable, so
// that the 202s beside them neither fail nor run a second time: a refusal never fails the batch it
// shares.
func TestMixedSendsInOneBatch(t *testing.T) {
	e := newEnv(t, Config{})
	const n = 48
	phone := func(i int) string { return fmt.Sprintf("+1415555%04d", 2000+i) }
	for i := 0; i < n; i += 2 {
		if _, _, err := e.st.CreateOptOut(e.ws.ID, e.user.ID, phone(i), "api"); err != nil {
			t.Fatal(err)
		}
	}
	before := e.st.BatchReruns()
	type answer struct {
		status int
		body   string
		err    error
	}
	answers := make([]answer, n)
	start := make(chan struct{})
	var wg sync.WaitGroup
	for i := range n {
		wg.Go(func() {
			body, _ := json.Marshal(e.body(obj{"from": fromNumber, "to": phone(i), "text": "hello"}))
			req, _ := http.NewRequest(http.MethodPost, e.url("send-message-action"), bytes.NewReader(body))
			req.Header.Set("Authorization", "Bearer "+e.token)
			req.Header.Set("Content-Type", "application/json")
			<-start
			res, err := e.srv.Client().Do(req)
			if err != nil {
				answers[i].err = err
				return
			}
			raw, _ := io.ReadAll(res.Body)
			res.Body.Close()
			answers[i] = answer{status: res.StatusCode, body: string(raw)}
		})
	}
	close(start)
	wg.Wait()

	sent := map[string]bool{}
	for i, a := range answers {
		if a.err != nil {
			t.Fatalf("send %d: %v", i, a.err)
		}
		if i%2 == 0 {
			want := fmt.Sprintf(`{"error":"recipient %s has opted out"}`, phone(i))
			if a.status != http.StatusUnprocessableEntity || !bytes.Equal(bytes.TrimSpace([]byte(a.body)), []byte(want)) {
				t.Errorf("send to opted-out %s: %d %s, want 422 %s", phone(i), a.status, a.body, want)
			}
			continue
		}
		var m messageResult
		if a.status != http.StatusAccepted || json.Unmarshal([]byte(a.body), &m) != nil || m.To != phone(i) {
			t.Errorf("send to %s: %d %s, want 202 with the message", phone(i), a.status, a.body)
		}
		sent[m.ID] = true
	}
	if reruns := e.st.BatchReruns() - before; reruns != 0 {
		t.Errorf("DB.Batch ran send functions %d extra times: the refusals failed their batches", reruns)
	}
	// Exactly one queued message per accepted send, none for the refused ones.
	queued, err := e.st.Outbox(10 * n)
	if err != nil {
		t.Fatal(err)
	}
	if len(queued) != n/2 {
		t.Fatalf("%d messages queued, want %d", len(queued), n/2)
	}
	for _, q := range queued {
		if !sent[q.MessageID] {
			t.Errorf("queued message %s was not answered 202", q.MessageID)
		}
	}
	if convs, _ := e.st.CountConversations(e.ws.ID); convs != n/2 {
		t.Errorf("%d conversations, want %d (none for opted-out recipients)", convs, n/2)
	}
}
