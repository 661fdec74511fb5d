package web

import (
	"fmt"
	"net/http"
	"net/url"
	"strings"
	"testing"
	"time"

	"switchboard/store"
)

// liveThread makes a conversation of alice's workspace with n messages (alternately from the
// contact and to them) and returns its path.
func liveThread(t *testing.T, e *uiEnv, n int) (string, string) {
	t.Helper()
	const to = "+14155550123"
	first := "José"
	if _, err := e.st.CreateContact(e.a.ID, store.ContactInput{Phone: to, FirstName: &first}); err != nil {
		t.Fatal(err)
	}
	conv := ""
	for i := range n {
		if i%2 == 0 {
			m, err := e.st.RecordInboundMessage(e.a.ID, store.InboundMessage{From: to, To: e.numberA, Text: fmt.Sprintf("text %03d", i)})
			if err != nil {
				t.Fatal(err)
			}
			conv = m.ConversationID
		} else if _, err := e.st.SendMessage(e.a.ID, store.SendInput{From: e.numberA, To: []string{to}, Text: fmt.Sprintf("text %03d", i)}); err != nil {
			t.Fatal(err)
		}
	}
	return "/inbox/" + conv, conv
}

// TestUIThreadOpensAtTheNewest: a long thread shows its newest 50 items with "Show earlier"; the
// link works without JavaScript (a page of older items, with a way back) and with htmx (the
// earlier items alone).
func TestUIThreadOpensAtTheNewest(t *testing.T) {
	e := newUIEnv(t)
	c := e.signIn(t, e.alice)
	thread, _ := liveThread(t, e, 130)
	res, body := e.send(t, c, "GET", thread, nil)
	if res.StatusCode != http.StatusOK {
		t.Fatalf("thread: %d", res.StatusCode)
	}
	if n := strings.Count(body, `data-testid="thread-message"`); n != 50 {
		t.Errorf("the thread shows %d messages, want the newest 50", n)
	}
	if !strings.Contains(body, "text 129") || strings.Contains(body, "text 079<") || !strings.Contains(body, "text 080") {
		t.Error("want text 080 to text 129, the newest")
	}
	if strings.Index(body, `data-testid="thread-show-earlier"`) > strings.Index(body, "text 080") {
		t.Error(`"Show earlier" must be above the items`)
	}
	href := attr(body, `data-testid="thread-show-earlier"`, "href")
	if !strings.HasPrefix(href, thread+"?before=") {
		t.Fatalf("Show earlier links to %q", href)
	}
	_, older := e.send(t, c, "GET", href, nil)
	if n := strings.Count(older, `data-testid="thread-message"`); n != 50 || !strings.Contains(older, "text 079") || !strings.Contains(older, "text 030") || strings.Contains(older, "text 080") {
		t.Errorf("the older page shows %d messages, want text 030 to text 079", n)
	}
	if !strings.Contains(older, `data-testid="thread-newest"`) {
		t.Error("the older page has no way back to the newest messages")
	}
	frag := attr(body, `data-testid="thread-show-earlier"`, "hx-get")
	_, part := e.send(t, c, "GET", frag, nil, "HX-Request", "true")
	if strings.Contains(part, "<html") || strings.Count(part, `data-testid="thread-message"`) != 50 || !strings.HasPrefix(strings.TrimSpace(part), `<li class="earlier"`) {
		t.Errorf("the earlier fragment: want the next link and 50 items alone, got %.200s", part)
	}
	// The thread is not polled: the live page asks for the items after its newest one, which
	// are none until something arrives, then only that; the fragment never carries more than 100.
	if strings.Contains(body, "hx-trigger") {
		t.Error("the thread page must not poll")
	}
	i := strings.LastIndex(body, `data-id="`)
	newest := body[i+len(`data-id="`):]
	newest = newest[:strings.Index(newest, `"`)]
	_, none := e.send(t, c, "GET", thread+"/items?after="+newest, nil, "HX-Request", "true")
	if strings.Contains(none, "data-id=") {
		t.Errorf("nothing arrived after the newest item, got %.200s", none)
	}
	if _, err := e.st.RecordInboundMessage(e.a.ID, store.InboundMessage{From: "+14155550123", To: e.numberA, Text: "just now"}); err != nil {
		t.Fatal(err)
	}
	_, one := e.send(t, c, "GET", thread+"/items?after="+newest, nil, "HX-Request", "true")
	if strings.Count(one, `data-testid="thread-message"`) != 1 || !strings.Contains(one, "just now") {
		t.Errorf("after the newest item: want the one new text, got %.300s", one)
	}
	_, all := e.send(t, c, "GET", thread+"/items?after=", nil, "HX-Request", "true")
	if n := strings.Count(all, `data-testid="thread-message"`); n != 100 {
		t.Errorf("the items from the start: %d messages, want at most 100", n)
	}
}

// attr returns the value of attribute name in the first element holding marker.
func attr(body, marker, name string) string {
	i := strings.Index(body, marker)
	if i < 0 {
		return ""
	}
	start := strings.LastIndex(body[:i], "<")
	end := strings.Index(body[i:], ">") + i
	el := body[start:end]
	j := strings.Index(el, " "+name+`="`)
	if j < 0 {
		return ""
	}
	v := el[j+len(name)+3:]
	return strings.ReplaceAll(v[:strings.Index(v, `"`)], "&amp;", "&")
}

// TestUIReplyInPlace: with htmx the reply answers with a fresh form and the thread's items
// (out of band); without, a 303 to the end of the thread.
func TestUIReplyInPlace(t *testing.T) {
	e := newUIEnv(t)
	c := e.signIn(t, e.alice)
	thread, _ := liveThread(t, e, 3)
	_, page := e.send(t, c, "GET", thread, nil)
	anchor := attr(page, `name="anchor"`, "value")
	res, body := e.send(t, c, "POST", thread+"/reply", url.Values{"text": {"On my way"}, "anchor": {anchor}}, "HX-Request", "true")
	if res.StatusCode != http.StatusOK || !strings.HasPrefix(strings.TrimSpace(body), `<section class="card" id="reply-card"`) ||
		!strings.Contains(body, `hx-swap-oob="true"`) || !strings.Contains(body, ">On my way<") || strings.Contains(body, "<html") ||
		!strings.Contains(body, `aria-describedby="snippet-status"></textarea>`) || !strings.Contains(body, "text 000") {
		t.Fatalf("reply in place: %d %.300s", res.StatusCode, body)
	}
	res, body = e.send(t, c, "POST", thread+"/reply", url.Values{"text": {""}, "anchor": {anchor}}, "HX-Request", "true")
	if res.StatusCode != http.StatusOK || !strings.Contains(body, `data-testid="error-text"`) || strings.Contains(body, "hx-swap-oob") {
		t.Errorf("an empty reply in place: %d, want the card with the error beside the field", res.StatusCode)
	}
	res, body = e.send(t, c, "POST", thread+"/comment", url.Values{"text": {"call back"}, "anchor": {anchor}}, "HX-Request", "true")
	if res.StatusCode != http.StatusOK || !strings.Contains(body, `id="comment-card"`) || !strings.Contains(body, ">call back<") {
		t.Errorf("comment in place: %d %.200s", res.StatusCode, body)
	}
	res, _ = e.send(t, c, "POST", thread+"/reply", url.Values{"text": {"no script"}})
	if loc := wantRedirect(t, res, thread+"?done=reply"); !strings.HasSuffix(loc, "#end") {
		t.Errorf("without JavaScript the reply goes back to %q, want the thread's end (#end)", loc)
	}
}

// TestUITriageAndEntries: one-click Close and Reopen, Snooze with its choices, a past snooze
// time refused beside the field; each change shows as an entry naming who did it.
func TestUITriageAndEntries(t *testing.T) {
	e := newUIEnv(t)
	c := e.signIn(t, e.alice)
	thread, conv := liveThread(t, e, 1)
	res, _ := e.send(t, c, "POST", thread+"/close", url.Values{})
	wantRedirect(t, res, thread+"?done=close")
	_, body := e.send(t, c, "GET", thread, nil)
	if !strings.Contains(body, "alice closed the conversation") || !strings.Contains(body, `data-testid="reopen-submit"`) {
		t.Fatal("after Close: want the entry and a Reopen button")
	}
	res, body = e.send(t, c, "POST", thread+"/snooze", url.Values{"snooze": {"custom"}, "until": {"2001-01-01T09:00"}})
	if res.StatusCode != http.StatusUnprocessableEntity || !strings.Contains(body, `data-testid="error-until"`) || !strings.Contains(body, "Must be in the future") {
		t.Fatalf("a past snooze: %d, want 422 with the error beside the field", res.StatusCode)
	}
	if got, _ := e.st.Conversation(e.a.ID, conv); got.Status != store.ConversationClosed {
		t.Fatalf("a refused snooze stored status %s", got.Status)
	}
	res, _ = e.send(t, c, "POST", thread+"/snooze", url.Values{"snooze": {"tomorrow"}})
	wantRedirect(t, res, thread+"?done=snooze")
	got, _ := e.st.Conversation(e.a.ID, conv)
	if got.Status != store.ConversationSnoozed || got.SnoozedUntil == nil || got.SnoozedUntil.Hour() != 9 || !got.SnoozedUntil.After(time.Now()) {
		t.Fatalf("snoozed until tomorrow 09:00: %s until %v", got.Status, got.SnoozedUntil)
	}
	_, body = e.send(t, c, "GET", thread, nil)
	if !strings.Contains(body, "alice snoozed the conversation until") || !strings.Contains(body, `data-testid="snoozed-until"`) {
		t.Error("after Snooze: want the entry and the time it reopens")
	}
	res, _ = e.send(t, c, "POST", thread+"/reopen", url.Values{})
	wantRedirect(t, res, thread+"?done=reopen")
	res, _ = e.send(t, c, "POST", thread+"/labels", url.Values{"labels": {"vip"}})
	wantRedirect(t, res, thread+"?done=labels")
	_, body = e.send(t, c, "GET", thread, nil)
	for _, want := range []string{"alice reopened the conversation", "alice added the label vip", `data-testid="close-submit"`} {
		if !strings.Contains(body, want) {
			t.Errorf("thread lacks %q", want)
		}
	}
}

func TestSnoozeChoices(t *testing.T) {
	loc, _ := time.LoadLocation("America/New_York")
	now := time.Date(2026, 3, 2, 22, 30, 0, 0, loc) // a Monday evening
	for choice, want := range map[string]time.Time{
		"1h":       now.Add(time.Hour),
		"tomorrow": time.Date(2026, 3, 3, 9, 0, 0, 0, loc),
		"monday":   time.Date(2026, 3, 9, 9, 0, 0, 0, loc),
		"custom":   time.Date(2026, 3, 4, 14, 15, 0, 0, loc),
	} {
		got, msg := snoozeUntil(choice, "2026-03-04T14:15", now, loc)
		if msg != "" || !got.Equal(want) {
			t.Errorf("%s: %v %q, want %v", choice, got, msg, want)
		}
	}
	if _, msg := snoozeUntil("custom", "", now, loc); msg == "" {
		t.Error("custom without a time must be refused")
	}
	if _, msg := snoozeUntil("custom", "tomorrow-ish", now, loc); msg == "" {
		t.Error("custom with a bad time must be refused")
	}
}

// TestUISendLater: "Send later" stores the reply scheduled with Cancel; a past time is refused
// beside the field.
func TestUISendLater(t *testing.T) {
	e := newUIEnv(t)
	c := e.signIn(t, e.alice)
	thread, conv := liveThread(t, e, 1)
	res, body := e.send(t, c, "POST", thread+"/reply", url.Values{"text": {"Reminder"}, "later": {"1"}, "sendAt": {"2001-01-01T09:00"}})
	if res.StatusCode != http.StatusUnprocessableEntity || !strings.Contains(body, `data-testid="error-sendAt"`) {
		t.Fatalf("send later in the past: %d, want 422 beside the field", res.StatusCode)
	}
	at := time.Now().Add(26 * time.Hour).UTC().Format("2006-01-02T15:04")
	res, _ = e.send(t, c, "POST", thread+"/reply", url.Values{"text": {"Reminder"}, "later": {"1"}, "sendAt": {at}})
	wantRedirect(t, res, thread+"?done=later")
	_, body = e.send(t, c, "GET", thread, nil)
	if !strings.Contains(body, `data-status="scheduled"`) || !strings.Contains(body, `data-testid="message-send-at"`) {
		t.Fatal("the thread does not show the scheduled reply")
	}
	action := attr(body, `data-testid="cancel-scheduled-form"`, "action")
	res, _ = e.send(t, c, "POST", action, url.Values{})
	wantRedirect(t, res, thread+"?done=cancelled")
	msgs, _ := e.st.ListMessages(e.a.ID, store.MessageFilter{ConversationID: conv, Limit: 1})
	if len(msgs) != 1 || msgs[0].Status != store.MessageCancelled {
		t.Errorf("after Cancel: %+v", msgs)
	}
}

// TestUIInboxSearchFindsEveryKind: name without accents, number as typed, words said.
func TestUIInboxSearchFindsEveryKind(t *testing.T) {
	e := newUIEnv(t)
	c := e.signIn(t, e.alice)
	liveThread(t, e, 2)
	for _, q := range []string{"jose", "(415) 555-0123", "text 001"} {
		_, body := e.send(t, c, "GET", "/inbox?q="+url.QueryEscape(q), nil)
		if strings.Count(body, `data-testid="inbox-row"`) != 1 {
			t.Errorf("/inbox?q=%s: %d rows, want José's conversation", q, strings.Count(body, `data-testid="inbox-row"`))
		}
	}
	_, body := e.send(t, c, "GET", "/inbox?q=nobody", nil)
	if !strings.Contains(body, "No conversations match") {
		t.Error("a search that matches nothing says so")
	}
}

// TestSendMessageLater: sendAt → 202 scheduled, listed; a bad sendAt is a 400 on the field.
func TestSendMessageLater(t *testing.T) {
	e := newEnv(t, Config{})
	at := time.Now().Add(time.Hour).UTC().Format(time.RFC3339)
	m := e.post(t, "send-message-action", e.body(obj{"from": fromNumber, "to": toNumber, "text": "later", "sendAt": at})).want(t, http.StatusAccepted).object(t)
	wantField(t, m, "status", "scheduled")
	if got, err := time.Parse(time.RFC3339, fmt.Sprint(m["sendAt"])); err != nil || got.Format(time.RFC3339) != at {
		t.Errorf("sendAt = %v, want %s", m["sendAt"], at)
	}
	var list []map[string]any
	e.post(t, "list-messages-action", e.body(obj{"limit": 1})).want(t, http.StatusOK).decode(t, &list)
	if len(list) != 1 || list[0]["status"] != "scheduled" || list[0]["id"] != m["id"] {
		t.Errorf("list-messages = %v, want the scheduled message", list)
	}
	for _, bad := range []string{"tomorrow", time.Now().Add(-time.Minute).UTC().Format(time.RFC3339), time.Now().AddDate(1, 0, 2).UTC().Format(time.RFC3339)} {
		r := e.post(t, "send-message-action", e.body(obj{"from": fromNumber, "to": toNumber, "text": "x", "sendAt": bad})).want(t, http.StatusBadRequest)
		if f := r.fields(t); len(f) != 1 || f[0] != "sendAt" {
			t.Errorf("sendAt %q: fields %v, want sendAt", bad, f)
		}
	}
}

// FuzzSnoozeUntil: any choice and time either give a time or a message, never both or neither.
func FuzzSnoozeUntil(f *testing.F) {
	for _, s := range [][2]string{{"1h", ""}, {"monday", ""}, {"custom", "2026-03-04T14:15"}, {"custom", "2026-03-04T14:15:59"}, {"x", "\x00"}} {
		f.Add(s[0], s[1])
	}
	now := time.Date(2026, 3, 2, 22, 30, 0, 0, time.UTC)
	f.Fuzz(func(t *testing.T, choice, custom string) {
		at, msg := snoozeUntil(choice, custom, now, time.UTC)
		if (msg == "") == at.IsZero() {
			t.Fatalf("snoozeUntil(%q, %q) = %v, %q", choice, custom, at, msg)
		}
	})
}
