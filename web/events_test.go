package web

import (
	"bufio"
	"context"
	"encoding/json"
	"net/http"
	"net/http/cookiejar"
	"net/http/httptest"
	"net/url"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"testing/synctest"
	"time"

	"switchboard/store"
)

// sseEvent is one event read from a stream.
type sseEvent struct {
	id, event string
	data      map[string]any
}

// sseStream reads a GET /events response into events; closed when the server ends it.
type sseStream struct {
	res    *http.Response
	events chan sseEvent
	cancel context.CancelFunc
}

// openStream opens GET /events with c's session; lastID, when not "", is sent as Last-Event-ID.
func (e *uiEnv) openStream(t *testing.T, c *http.Client, lastID string) *sseStream {
	t.Helper()
	return e.openStreamAt(t, c, "/events", lastID)
}

func (e *uiEnv) openStreamAt(t *testing.T, c *http.Client, path string, lastID ...string) *sseStream {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	req, _ := http.NewRequestWithContext(ctx, "GET", e.srv.URL+path, nil)
	if len(lastID) > 0 && lastID[0] != "" {
		req.Header.Set("Last-Event-ID", lastID[0])
	}
	res, err := c.Do(req)
	if err != nil {
		cancel()
		t.Fatal(err)
	}
	if res.StatusCode != http.StatusOK || !strings.HasPrefix(res.Header.Get("Content-Type"), "text/event-stream") {
		cancel()
		t.Fatalf("GET /events: %d %s, want 200 text/event-stream", res.StatusCode, res.Header.Get("Content-Type"))
	}
	s := &sseStream{res: res, events: make(chan sseEvent, 100), cancel: cancel}
	t.Cleanup(func() { cancel(); res.Body.Close() })
	go func() {
		defer close(s.events)
		sc := bufio.NewScanner(res.Body)
		var ev sseEvent
		for sc.Scan() {
			line := sc.Text()
			switch {
			case line == "":
				if ev.event != "" {
					s.events <- ev
				}
				ev = sseEvent{}
			case strings.HasPrefix(line, "id: "):
				ev.id = line[4:]
			case strings.HasPrefix(line, "event: "):
				ev.event = line[7:]
			case strings.HasPrefix(line, "data: "):
				if err := json.Unmarshal([]byte(line[6:]), &ev.data); err != nil {
					ev.data = map[string]any{"unparsed": line[6:]}
				}
			}
		}
	}()
	return s
}

// next returns the next event of one of the types, skipping others; it fails after 5 s.
func (s *sseStream) next(t *testing.T, types ...string) sseEvent {
	t.Helper()
	timeout := time.After(5 * time.Second)
	for {
		select {
		case ev, ok := <-s.events:
			if !ok {
				t.Fatalf("the stream ended while waiting for %v", types)
			}
			for _, typ := range types {
				if ev.event == typ {
					return ev
				}
			}
		case <-timeout:
			t.Fatalf("no %v event within 5 s", types)
		}
	}
}

// inboundText posts a text from the contact to Acme's sandbox number, as the sandbox carrier.
func (e *uiEnv) inboundText(t *testing.T, token, from, text string) {
	t.Helper()
	form := url.Values{"From": {from}, "To": {e.numberA}, "Body": {text}}
	req, _ := http.NewRequest("POST", e.srv.URL+"/carrier/sandbox/sms", strings.NewReader(form.Encode()))
	req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	req.Header.Set("Authorization", "Bearer "+token)
	res, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	res.Body.Close()
	if res.StatusCode != http.StatusOK {
		t.Fatalf("inbound text: %d", res.StatusCode)
	}
}

func TestEventsNeedsSession(t *testing.T) {
	e := newUIEnv(t)
	res, _ := e.send(t, e.browser(t), "GET", "/events", nil)
	if res.StatusCode != http.StatusUnauthorized {
		t.Fatalf("GET /events signed out: %d, want 401", res.StatusCode)
	}
}

func TestEventsStreamReplayResetAndRemoval(t *testing.T) {
	e := newUIEnv(t)
	_, token, err := e.st.CreateToken(e.alice.ID, "carrier")
	if err != nil {
		t.Fatal(err)
	}
	alice := e.signIn(t, e.alice)
	s := e.openStream(t, alice, "")

	e.inboundText(t, token, "+14155550123", "Is the clinic open on Saturday?")
	msg := s.next(t, "message")
	if msg.data["type"] != "message" || msg.data["inbound"] != true || msg.data["conversationId"] == "" || msg.id == "" {
		t.Fatalf("message event %+v", msg)
	}
	conv := msg.data["conversationId"].(string)
	note := s.next(t, "notification")
	if note.data["userId"] != e.alice.ID || note.data["reason"] != "inbound" || note.data["body"] != "Is the clinic open on Saturday?" {
		t.Fatalf("notification %+v, want one for alice with the text", note)
	}
	// The page's count: one unread conversation, in the header and the title.
	_, page := e.send(t, alice, "GET", "/inbox", nil)
	if !strings.Contains(page, "<title>(1) Inbox · Switchboard</title>") || !strings.Contains(page, `data-count="1"`) {
		t.Errorf("inbox page after one inbound text lacks the count:\n%s", page[:min(len(page), 600)])
	}
	if !strings.Contains(page, `class="unread"`) {
		t.Error("the unread conversation's row is not marked unread")
	}
	// Opening the thread reads it; the stream tells alice's other tabs.
	e.send(t, alice, "GET", "/inbox/"+conv, nil)
	read := s.next(t, "conversation")
	if read.data["change"] != "unread" || read.data["unread"] != false {
		t.Fatalf("after reading: %+v", read.data)
	}
	if n, _ := e.st.UnreadCount(e.a.ID, e.alice.ID); n != 0 {
		t.Fatalf("unread after opening the thread: %d", n)
	}

	// A reconnect with Last-Event-ID gets every later event first.
	r := e.openStream(t, alice, "0")
	if first := r.next(t, "message"); first.id != msg.id || first.data["messageId"] != msg.data["messageId"] {
		t.Fatalf("replay from 0 began with %+v, want the message event %s", first, msg.id)
	}
	// A page's first connection names the last event before it loaded: ?after=.
	if first := e.openStreamAt(t, alice, "/events?after=0").next(t, "message"); first.id != msg.id {
		t.Fatalf("?after=0 began with %+v, want the message event %s", first, msg.id)
	}
	// Not a number: as if absent, so only what happens next comes.
	n := e.openStream(t, alice, "yesterday")
	e.inboundText(t, token, "+14155550123", "Hello?")
	if got := n.next(t, "message"); got.data["messageId"] == msg.data["messageId"] {
		t.Fatal("a non-number Last-Event-ID replayed old events")
	}
	// An id the log cannot continue from: reset.
	if ev := e.openStream(t, alice, "999999").next(t, "reset", "message"); ev.event != "reset" {
		t.Fatalf("unknown id: first event %q, want reset", ev.event)
	}

	// Mo is removed from the workspace while his stream is open: it ends, with nothing more.
	mo := e.signIn(t, e.mo)
	ms := e.openStream(t, mo, "")
	if err := e.st.RemoveMember(e.a.ID, e.mo.ID); err != nil {
		t.Fatal(err)
	}
	e.inboundText(t, token, "+14155550123", "Anyone there?")
	timeout := time.After(5 * time.Second)
	for {
		select {
		case ev, ok := <-ms.events:
			if !ok {
				return // ended
			}
			t.Fatalf("a removed member received %+v", ev)
		case <-timeout:
			t.Fatal("the removed member's stream did not end")
		}
	}
}

// flushRecorder is a ResponseWriter for a stream run inside a synctest bubble.
type flushRecorder struct {
	mu   sync.Mutex
	hdr  http.Header
	body strings.Builder
}

func (f *flushRecorder) Header() http.Header { return f.hdr }
func (f *flushRecorder) WriteHeader(int)     {}
func (f *flushRecorder) Flush()              {}
func (f *flushRecorder) Write(p []byte) (int, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.body.Write(p)
}
func (f *flushRecorder) String() string { f.mu.Lock(); defer f.mu.Unlock(); return f.body.String() }

func TestEventsPingEvery15Seconds(t *testing.T) {
	e := newUIEnv(t)
	alice := e.signIn(t, e.alice)
	u, _ := url.Parse(e.srv.URL)
	cookies := alice.Jar.Cookies(u)
	synctest.Test(t, func(t *testing.T) {
		h := New(e.st, Config{Sessions: e.sess})
		ctx, cancel := context.WithCancel(context.Background())
		req := httptestRequest(ctx, cookies)
		rec := &flushRecorder{hdr: http.Header{}}
		done := make(chan struct{})
		go func() { h.ServeHTTP(rec, req); close(done) }()
		synctest.Wait()
		if strings.Contains(rec.String(), "ping") {
			t.Fatal("a ping before 15 s")
		}
		time.Sleep(pingEvery)
		synctest.Wait()
		if got := strings.Count(rec.String(), ": ping\n\n"); got != 1 {
			t.Fatalf("after 15 s: %d pings in %q, want 1", got, rec.String())
		}
		time.Sleep(2 * pingEvery)
		synctest.Wait()
		if got := strings.Count(rec.String(), ": ping\n\n"); got != 3 {
			t.Fatalf("after 45 s: %d pings, want 3", got)
		}
		cancel()
		<-done
	})
}

func httptestRequest(ctx context.Context, cookies []*http.Cookie) *http.Request {
	req, _ := http.NewRequestWithContext(ctx, "GET", "http://sb.test/events", nil)
	for _, c := range cookies {
		req.AddCookie(c)
	}
	return req
}

func TestMarkUnreadAndFilters(t *testing.T) {
	e := newUIEnv(t)
	if _, err := e.st.RecordInboundMessage(e.a.ID, store.InboundMessage{From: "+14155550123", To: e.numberA, Text: "first"}); err != nil {
		t.Fatal(err)
	}
	m, _ := e.st.RecordInboundMessage(e.a.ID, store.InboundMessage{From: "+14155550124", To: e.numberA, Text: "second"})
	alice := e.signIn(t, e.alice)
	_, page := e.send(t, alice, "GET", "/inbox?unread=1", nil)
	if strings.Count(page, `data-testid="inbox-row"`) != 2 {
		t.Fatalf("unread filter: want both rows")
	}
	e.send(t, alice, "GET", "/inbox/"+m.ConversationID, nil)
	_, page = e.send(t, alice, "GET", "/inbox?unread=1", nil)
	if strings.Count(page, `data-testid="inbox-row"`) != 1 || strings.Contains(page, ">second<") {
		t.Fatalf("after reading one: unread list should hold only the other: %d rows\n%s", strings.Count(page, `data-testid="inbox-row"`), page)
	}
	res, _ := e.send(t, alice, "POST", "/inbox/"+m.ConversationID+"/unread", url.Values{})
	wantRedirect(t, res, "/inbox")
	_, page = e.send(t, alice, "GET", "/inbox/list?unread=1", nil)
	if strings.Count(page, `data-testid="inbox-row"`) != 2 || strings.Contains(page, "<html") {
		t.Fatalf("list fragment after Mark as unread: want 2 rows and no page frame:\n%s", page)
	}
	// A comment mentioning mo puts the conversation in his mentions.
	if _, err := e.st.CreateComment(e.a.ID, store.CommentInput{From: e.numberA, To: "+14155550123", Text: "can you call back?",
		Mentions: []string{e.mo.ID}, AuthorID: e.alice.ID}); err != nil {
		t.Fatal(err)
	}
	mo := e.signIn(t, e.mo)
	_, page = e.send(t, mo, "GET", "/inbox?mentions=1", nil)
	if strings.Count(page, `data-testid="inbox-row"`) != 1 || !strings.Contains(page, "(415) 555-0123") {
		t.Fatalf("mo's mentions: want the one conversation")
	}
	_, page = e.send(t, alice, "GET", "/inbox?mentions=1", nil)
	if strings.Contains(page, `data-testid="inbox-row"`) {
		t.Fatal("alice is mentioned nowhere")
	}
}

func TestThreadItemsFragmentSendsOnlyWhatIsNew(t *testing.T) {
	e := newUIEnv(t)
	first, _ := e.st.RecordInboundMessage(e.a.ID, store.InboundMessage{From: "+14155550123", To: e.numberA, Text: "first"})
	second, _ := e.st.RecordInboundMessage(e.a.ID, store.InboundMessage{From: "+14155550123", To: e.numberA, Text: "second"})
	alice := e.signIn(t, e.alice)
	_, frag := e.send(t, alice, "GET", "/inbox/"+first.ConversationID+"/items?after="+first.ID, nil)
	if strings.Contains(frag, ">first<") || !strings.Contains(frag, ">second<") || !strings.Contains(frag, `id="item-`+second.ID+`"`) {
		t.Fatalf("items after the first: %s", frag)
	}
	_, frag = e.send(t, alice, "GET", "/inbox/"+first.ConversationID+"/items?id="+first.ID, nil)
	if strings.Count(frag, "<li") != 1 || !strings.Contains(frag, ">first<") {
		t.Fatalf("one item again: %s", frag)
	}
	_, page := e.send(t, alice, "GET", "/inbox/"+first.ConversationID, nil)
	if strings.Contains(page, "every 3s") {
		t.Fatal("the thread still polls itself")
	}
}

func TestProfileNotifications(t *testing.T) {
	e := newUIEnv(t)
	mo := e.signIn(t, e.mo)
	_, page := e.send(t, mo, "GET", "/settings/profile", nil)
	if !strings.Contains(page, `value="mine" checked`) {
		t.Fatalf("default choice not shown:\n%s", page)
	}
	res, _ := e.send(t, mo, "POST", "/settings/profile/notifications", url.Values{"inbound": {"mentions"}, "sound": {"on"}})
	wantRedirect(t, res, "/settings/profile")
	if p, _ := e.st.NotificationPrefs(e.mo.ID); p.Inbound != "mentions" || !p.Sound {
		t.Fatalf("saved %+v", p)
	}
	res, page = e.send(t, mo, "POST", "/settings/profile/notifications", url.Values{"inbound": {"everything"}})
	if res.StatusCode != http.StatusUnprocessableEntity || !strings.Contains(page, "Choose which messages notify you") {
		t.Fatalf("bad choice: %d", res.StatusCode)
	}
}

// FuzzLastEventID: any header value is a number the stream continues after, or absent.
func FuzzLastEventID(f *testing.F) {
	for _, seed := range []string{"", "0", "42", "18446744073709551615", "18446744073709551616", "-1", "1e3", " 7", "abc", "٣"} {
		f.Add(seed)
	}
	f.Fuzz(func(t *testing.T, v string) {
		r, _ := http.NewRequest("GET", "/events", nil)
		r.Header.Set("Last-Event-ID", v)
		n, ok := lastEventID(r)
		if !ok && n != 0 {
			t.Fatalf("%q: absent but %d", v, n)
		}
		if want := strings.TrimLeft(r.Header.Get("Last-Event-ID"), "0"); ok && strconv.FormatUint(n, 10) != want && !(n == 0 && want == "") {
			t.Fatalf("%q read as %d", v, n)
		}
	})
}

// TestEventsOutliveServerTimeouts: a stream behind a server with short read and write timeouts
// still delivers an event after both have passed.
func TestEventsOutliveServerTimeouts(t *testing.T) {
	e := newUIEnv(t)
	_, token, _ := e.st.CreateToken(e.alice.ID, "carrier")
	// Serve the same handler again, with the production server's timeouts made short.
	srv := httptest.NewUnstartedServer(e.srv.Config.Handler)
	srv.Config.ReadTimeout, srv.Config.WriteTimeout = 200*time.Millisecond, 200*time.Millisecond
	srv.Start()
	t.Cleanup(srv.Close)
	alice := e.signIn(t, e.alice)
	s := (&uiEnv{srv: srv}).openStreamAt(t, withCookies(alice, e.srv.URL, srv.URL), "/events")
	time.Sleep(600 * time.Millisecond) // both timeouts pass while the stream is idle
	e.inboundText(t, token, "+14155550123", "still listening?")
	if ev := s.next(t, "message"); ev.data["inbound"] != true {
		t.Fatalf("event after the timeouts: %+v", ev)
	}
}

// withCookies is a client with c's cookies of from, for the server at to.
func withCookies(c *http.Client, from, to string) *http.Client {
	fu, _ := url.Parse(from)
	tu, _ := url.Parse(to)
	jar, _ := cookiejar.New(nil)
	jar.SetCookies(tu, c.Jar.Cookies(fu))
	return &http.Client{Jar: jar}
}

// TestEventsStreamAccessHook: when Config.StreamAccess stops agreeing (a session signed out or a
// user disabled elsewhere), the stream sends nothing more and ends.
func TestEventsStreamAccessHook(t *testing.T) {
	e := newUIEnv(t)
	var allowed atomic.Bool
	allowed.Store(true)
	srv := httptest.NewServer(New(e.st, Config{Sessions: e.sess, StreamAccess: func(_ *http.Request, userID string) bool {
		return userID == e.alice.ID && allowed.Load()
	}}))
	t.Cleanup(srv.Close)
	alice := e.signIn(t, e.alice)
	s := (&uiEnv{srv: srv}).openStreamAt(t, withCookies(alice, e.srv.URL, srv.URL), "/events")
	if _, err := e.st.RecordInboundMessage(e.a.ID, store.InboundMessage{From: "+14155550123", To: e.numberA, Text: "one"}); err != nil {
		t.Fatal(err)
	}
	s.next(t, "message")
	allowed.Store(false)
	if _, err := e.st.RecordInboundMessage(e.a.ID, store.InboundMessage{From: "+14155550123", To: e.numberA, Text: "two"}); err != nil {
		t.Fatal(err)
	}
	s.endsWithoutMessage(t)
}

// endsWithoutMessage waits for the stream to end (at most 10 s), failing on a message event
// before it does.
func (s *sseStream) endsWithoutMessage(t *testing.T) {
	t.Helper()
	timeout := time.After(10 * time.Second)
	for {
		select {
		case ev, ok := <-s.events:
			if !ok {
				return
			}
			if ev.event == "message" {
				t.Fatalf("an event after access ended: %+v", ev)
			}
		case <-timeout:
			t.Fatal("the stream did not end")
		}
	}
}

// TestBrokerNeverBlocks: a stream that does not take its wake-ups (stalled on a slow client)
// never holds up the broker or the other streams of its workspace.
func TestBrokerNeverBlocks(t *testing.T) {
	b := newBroker(nil)
	stalled, other := b.subscribe("w"), b.subscribe("w")
	for range 1000 {
		b.wake([]string{"w"}) // stalled never reads: its one-slot channel stays full
		select {
		case <-other.wake:
		default:
			t.Fatal("the other stream was not woken")
		}
	}
	b.unsubscribe("w", stalled)
	b.unsubscribe("w", other)
	if n := b.streams(); n != 0 {
		t.Fatalf("%d streams left after both unsubscribed", n)
	}
}
