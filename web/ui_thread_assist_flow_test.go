package web

import (
	"bufio"
	"context"
	"net/http"
	"net/url"
	"strings"
	"testing"
	"time"

	"switchboard/assist/assisttest"
	"switchboard/store"
)

// readUntilDelta reads a stream until its first piece of text.
func readUntilDelta(t *testing.T, res *http.Response) {
	t.Helper()
	sc := bufio.NewScanner(res.Body)
	for sc.Scan() {
		if sc.Text() == "event: delta" {
			return
		}
	}
	t.Fatalf("the stream ended before its first piece: %v", sc.Err())
}

// conversation makes a conversation of workspace A with one text from the contact.
func (e *assistEnv) conversation(t *testing.T) string {
	t.Helper()
	m, err := e.st.RecordInboundMessage(e.a.ID, store.InboundMessage{From: "+14155550123", To: e.numberA, Text: "Can I come on Tuesday?"})
	if err != nil {
		t.Fatal(err)
	}
	return "/inbox/" + m.ConversationID
}

// TestAssistOneAtATimeAndCancel: while a user's request streams, their second one is refused
// with a plain "already running" (another user's is not); when the page goes away (Cancel),
// the server cancels the model's request and the user may ask again.
func TestAssistOneAtATimeAndCancel(t *testing.T) {
	e := newAssistEnv(t, 0, func(assisttest.Request) assisttest.Answer {
		return assisttest.Answer{Chunks: []string{"Yes, ", "Tuesday works."}, Stall: true, HoldAfter: 1}
	})
	e.turnOn(t, e.a.ID, true)
	thread := e.conversation(t)
	alice, mo := e.signIn(t, e.alice), e.signIn(t, e.mo)
	form := url.Values{"kind": {"suggest"}}

	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	res := e.assistOpen(t, ctx, alice, thread, form)
	defer res.Body.Close()
	readUntilDelta(t, res)
	status, _, msg := e.assistCall(t, context.Background(), alice, thread, form)
	if status != http.StatusConflict || !strings.Contains(msg, "already running") {
		t.Fatalf("a second request while the first runs: %d %q, want 409 \"already running\"", status, msg)
	}
	moCtx, moCancel := context.WithCancel(context.Background())
	moRes := e.assistOpen(t, moCtx, mo, thread, form)
	readUntilDelta(t, moRes) // another user's request runs beside it
	moCancel()
	moRes.Body.Close()
	waitModelLeft(t, e)

	cancel() // Cancel: the page aborts its request
	waitModelLeft(t, e)
	// The gate opens once the handler has returned; the next request streams again.
	e.model.SetAnswer(func(assisttest.Request) assisttest.Answer { return assisttest.Reply("Sure.") })
	deadline := time.Now().Add(10 * time.Second)
	for {
		status, evs, msg := e.assistCall(t, context.Background(), alice, thread, form)
		if status == http.StatusOK {
			if d, _ := final(evs, "draft"); d != "Sure." {
				t.Fatalf("after the cancel: %+v", evs)
			}
			break
		}
		if status != http.StatusConflict || time.Now().After(deadline) {
			t.Fatalf("after the cancel: %d %q", status, msg)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

func waitModelLeft(t *testing.T, e *assistEnv) {
	t.Helper()
	select {
	case <-e.model.Left():
	case <-time.After(10 * time.Second):
		t.Fatal("the model's request was not cancelled when the page went away")
	}
}

// TestAssistTimeoutIsPlain: a model that stalls is stopped at the timeout (30 s in service;
// 300 ms here) and the page gets a plain error event; the reply box's text is the page's to
// restore.
func TestAssistTimeoutIsPlain(t *testing.T) {
	e := newAssistEnv(t, 300*time.Millisecond, func(assisttest.Request) assisttest.Answer {
		return assisttest.Answer{Stall: true}
	})
	e.turnOn(t, e.a.ID, true)
	thread := e.conversation(t)
	status, evs, _ := e.assistCall(t, context.Background(), e.signIn(t, e.alice), thread, url.Values{"kind": {"suggest"}})
	last := evs[len(evs)-1]
	if status != http.StatusOK || last.Type != "error" || !strings.Contains(last.Data["error"].(string), "did not answer within 0.3 s") {
		t.Fatalf("a stalled model: %d %+v, want an error event saying it did not answer in time", status, evs)
	}
	waitModelLeft(t, e)
}

// TestAssistSettings: the workspace settings page says where what goes and turns Assist on and
// off; without a model on the server it says there is none and changes nothing.
func TestAssistSettings(t *testing.T) {
	e := newAssistEnv(t, 0, func(assisttest.Request) assisttest.Answer { return assisttest.Reply("x") })
	alice := e.signIn(t, e.alice)
	_, body := e.send(t, alice, "GET", "/settings/workspace", nil)
	host := e.model.URL[:strings.LastIndex(e.model.URL, "/")]
	for _, want := range []string{"Turn on Assist in this workspace", host, "test-model", "latest 20 messages", "contact's name"} {
		if !strings.Contains(body, want) {
			t.Errorf("the settings page lacks %q", want)
		}
	}
	if strings.Contains(body, "sk-web-test") {
		t.Fatal("the settings page shows the key")
	}
	ws := e.a
	form := url.Values{"name": {ws.Name}, "stopReply": {ws.KeywordReply(store.KeywordStop)}, "startReply": {ws.KeywordReply(store.KeywordStart)},
		"helpReply": {ws.KeywordReply(store.KeywordHelp)}, "voiceGreeting": {ws.Greeting()}, "quietHours": {"off"}, "retentionDays": {"0"},
		"assistShown": {"1"}, "assist": {"on"}}
	res, _ := e.send(t, alice, "POST", "/settings/workspace", form)
	wantRedirect(t, res, "/settings/workspace?done=saved")
	if got, _ := e.st.Workspace(ws.ID); !got.Assist {
		t.Fatal("the box did not turn Assist on")
	}
	form.Del("assist") // an unchecked box sends nothing
	res, _ = e.send(t, alice, "POST", "/settings/workspace", form)
	wantRedirect(t, res, "/settings/workspace?done=saved")
	if got, _ := e.st.Workspace(ws.ID); got.Assist {
		t.Fatal("unchecking the box did not turn Assist off")
	}
	mo := e.signIn(t, e.mo)
	if res, _ := e.send(t, mo, "POST", "/settings/workspace", url.Values{"name": {"x"}, "assistShown": {"1"}, "assist": {"on"}}); res.StatusCode != http.StatusForbidden {
		t.Fatalf("a member turned Assist on: %d", res.StatusCode)
	}

	plain := newUIEnv(t) // a server without a model
	_, body = plain.send(t, plain.signIn(t, plain.alice), "GET", "/settings/workspace", nil)
	if !strings.Contains(body, "This server has no model for Assist") || strings.Contains(body, `name="assist"`) {
		t.Fatal("without a model, the settings page should say there is none and offer no switch")
	}
}
