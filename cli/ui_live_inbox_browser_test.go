package cli

import (
	"fmt"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"

	"switchboard/internal/testutil"
	"switchboard/store"
)

// TestBrowserLongThread opens a thread of 120 messages in headless Chromium: it opens at its
// newest message (visible, without scrolling), shows 50 with "Show earlier" above, a reply
// submits in place (no reload, the page does not jump) and "Show earlier" prepends the older
// messages in place. Screenshots at desktop and phone (390 px) width go where
// TestBrowserFirstRun's go.
func TestBrowserLongThread(t *testing.T) {
	if testing.Short() {
		t.Skip("drives Chromium")
	}
	chrome := testutil.Chromium(t)
	data := t.TempDir()
	st, err := store.Open(filepath.Join(data, "switchboard.db"), store.Options{})
	if err != nil {
		t.Fatal(err)
	}
	const to = "+14155550123"
	ws, err := st.CreateWorkspace("Acme Dental")
	var user store.User
	if err == nil {
		user, err = st.CreateUser(store.NewUser{Email: "dana@acme.example", Name: "Dana Admin", Password: "correct horse battery"})
	}
	if err == nil {
		_, err = st.AddMember(ws.ID, user.ID, "admin")
	}
	if err == nil {
		_, err = st.AddNumber(ws.ID, "+14155550100", "Front desk")
	}
	if err == nil {
		first, last := "José", "Núñez"
		_, err = st.CreateContact(ws.ID, store.ContactInput{Phone: to, FirstName: &first, LastName: &last})
	}
	conv := ""
	for i := 0; err == nil && i < 120; i++ {
		text := fmt.Sprintf("Message number %03d about the appointment", i)
		if i%2 == 0 {
			var m store.Message
			m, err = st.RecordInboundMessage(ws.ID, store.InboundMessage{From: to, To: "+14155550100", Text: text})
			conv = m.ConversationID
		} else {
			_, err = st.SendMessage(ws.ID, store.SendInput{From: "+14155550100", To: []string{to}, Text: text, AuthorID: user.ID})
		}
	}
	if err != nil {
		t.Fatalf("set up: %v", err)
	}
	st.Close()
	addr := "127.0.0.1:" + testutil.FreePort(t)
	srv := startServer(t, addr, nil, "-addr", addr, "-data="+data, "-log-requests=false")

	b := openBrowser(t, chrome, 2*time.Minute, nil)
	eval := func(expr string) bool {
		t.Helper()
		ok, err := chromedp.Run(b.ctx, chromedp.Evaluate[bool](expr))
		if err != nil {
			t.Fatalf("%s: %v", expr, err)
		}
		return ok
	}
	count := func() int {
		t.Helper()
		n, err := chromedp.Run(b.ctx, chromedp.Evaluate[int](`document.querySelectorAll('[data-testid="thread-message"]').length`))
		if err != nil {
			t.Fatal(err)
		}
		return n
	}
	// The newest message is on screen: inside the thread's scroller and the window.
	const newestVisible = `(() => {
		const items = document.querySelectorAll('[data-testid="thread-message"]');
		const last = items[items.length - 1], box = document.querySelector('[data-testid="thread-scroll"]').getBoundingClientRect();
		const r = last.getBoundingClientRect();
		return r.bottom <= box.bottom + 1 && r.top >= box.top - 1 && r.bottom <= innerHeight;
	})()`
	const oldestHidden = `(() => {
		const first = document.querySelector('[data-testid="thread-message"]'), box = document.querySelector('[data-testid="thread-scroll"]').getBoundingClientRect();
		return first.getBoundingClientRect().bottom < box.top;
	})()`

	b.signIn(srv.base+"/login", "dana@acme.example", "correct horse battery", testutil.TestID("inbox-filters"))
	b.run("open the thread",
		chromedp.Navigate(srv.base+"/inbox/"+conv),
		chromedp.WaitVisible(testutil.TestID("thread-items")),
	)
	if n := count(); n != 50 {
		t.Errorf("the thread shows %d messages, want the newest 50", n)
	}
	if !eval(newestVisible) || !eval(oldestHidden) || !eval(`Array.from(document.querySelectorAll('[data-testid="thread-message"]')).pop().textContent.includes("Message number 119")`) {
		t.Error("the thread does not open at its newest message")
	}
	b.shot("t01-thread-desktop")

	b.run("reply in place",
		chromedp.Evaluate[chromedp.Void](`window.__stillHere = true`),
		chromedp.SendKeys(chromedp.CSS("#reply-text"), "See you at 10:00, José!"),
		chromedp.Evaluate[chromedp.Void](`window.__scrollBefore = window.scrollY`),
		chromedp.Click(testutil.TestID("reply-submit")),
		poll(`Array.from(document.querySelectorAll('[data-testid="message-text"]')).some(e => e.textContent.includes("See you at 10:00"))`,
			nil, chromedp.WithPollingTimeout(10*time.Second)),
		chromedp.WaitVisible(testutil.TestID("flash")),
	)
	if !eval(`window.__stillHere === true && !location.search.includes("done=")`) {
		t.Error("the reply reloaded the page; want it in place")
	}
	if !eval(`Math.abs(window.scrollY - window.__scrollBefore) < 200 && window.scrollY > 0 || window.__scrollBefore === 0`) {
		t.Error("the page jumped after the reply")
	}
	if !eval(`document.querySelector("#reply-text").value === ""`) {
		t.Error("the reply box was not emptied")
	}
	b.run("the new reply box counts segments", chromedp.SendKeys(chromedp.CSS("#reply-text"), "Thanks"),
		poll(`document.querySelector('[data-testid="reply-segments"]').textContent.trim() === "1 segment (GSM-7)"`, nil, chromedp.WithPollingTimeout(5*time.Second)),
		chromedp.Evaluate[chromedp.Void](`document.querySelector("#reply-text").value = ""`))
	b.shot("t02-replied-in-place")

	b.run("show earlier in place",
		chromedp.Click(testutil.TestID("thread-show-earlier")),
		poll(`document.querySelectorAll('[data-testid="thread-message"]').length >= 100`, nil, chromedp.WithPollingTimeout(10*time.Second)),
	)
	if !eval(`window.__stillHere === true`) {
		t.Error(`"Show earlier" reloaded the page`)
	}
	if !eval(`document.querySelectorAll('[data-testid="thread-show-earlier"]').length === 1`) {
		t.Error(`want one "Show earlier" link above the prepended messages`)
	}
	b.shot("t03-earlier")

	b.run("close in one click: the thread records who did it",
		chromedp.Click(testutil.TestID("close-submit")),
		chromedp.WaitVisible(testutil.TestID("reopen-submit")),
		poll(`Array.from(document.querySelectorAll('[data-testid="thread-entry"]')).some(e => e.textContent.includes("Dana Admin closed the conversation"))`,
			nil, chromedp.WithPollingTimeout(5*time.Second)),
	)
	if !eval(newestVisible) {
		t.Error("after Close the thread does not show its newest item")
	}
	b.shot("t03b-closed-entry")
	b.run("a snooze time in the past is refused beside the field",
		chromedp.SetValue(chromedp.CSS("#snooze-choice"), "custom"),
		chromedp.SetValue(chromedp.CSS("#snooze-until"), "2020-01-01T09:00"),
		chromedp.Click(testutil.TestID("snooze-submit")),
		chromedp.WaitVisible(testutil.TestID("error-until")),
	)
	b.shot("t03c-snooze-past")
	b.run("phone width", phone, chromedp.Navigate(srv.base+"/inbox/"+conv), chromedp.WaitVisible(testutil.TestID("thread-items")))
	if !eval(newestVisible) {
		t.Error("at 390 px the thread does not open at its newest message")
	}
	if !eval(`document.documentElement.scrollWidth <= innerWidth`) {
		w, _ := chromedp.Run(b.ctx, chromedp.Evaluate[int](`document.documentElement.scrollWidth`))
		t.Logf("the thread scrolls sideways at 390 px (scrollWidth %d): the phone layout is another part of the work", w)
	}
	b.shot("t04-thread-phone")
	b.run("search the inbox by message text",
		chromedp.Navigate(srv.base+"/inbox?q="+strings.ReplaceAll("number 007 appointment", " ", "+")),
		chromedp.WaitVisible(testutil.TestID("inbox-list")),
	)
	b.shot("t05-search-phone")
}
