package cli

import (
	"net/http"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"

	"switchboard/internal/testutil"
)

// TestBrowserLiveInbox: with /inbox open in Chromium, an inbound text posted to the sandbox
// carrier shows in the list within a second, bold, and the title counts it; with the thread
// open, the next text is appended to it in place, without a reload.
func TestBrowserLiveInbox(t *testing.T) {
	chrome := testutil.Chromium(t) // skipped under -short, and without Chromium outside CI
	f := newFixture(t)
	addr := "127.0.0.1:" + testutil.FreePort(t)
	srv := startServer(t, addr, nil, "-addr", addr, "-data="+f.data, "-log-requests=false")
	inbound := func(text string) {
		t.Helper()
		form := url.Values{"From": {"+14155550123"}, "To": {"+14155550100"}, "Body": {text}}
		req, _ := http.NewRequest("POST", srv.base+"/carrier/sandbox/sms", strings.NewReader(form.Encode()))
		req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
		req.Header.Set("Authorization", "Bearer "+f.token)
		res, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		res.Body.Close()
		if res.StatusCode != http.StatusOK {
			t.Fatalf("sandbox inbound: %d", res.StatusCode)
		}
	}

	b := openBrowser(t, chrome, 2*time.Minute, nil)
	within := func(d time.Duration) chromedp.PollOption { return chromedp.WithPollingTimeout(d) }
	b.signIn(srv.base+"/login", "ana@example.com", "correct horse", testutil.TestID("inbox-list-region"))
	// The stream is open before the text arrives (EventSource connects after the page loads).
	b.run("the page listens", poll(`window.switchboardLive && window.switchboardLive.readyState === 1`, nil, within(5*time.Second)))
	b.run("mark the page, to tell a reload apart", chromedp.Evaluate[chromedp.Void](`window.__noReload = true`))

	inbound("Hi, can I move my appointment to Friday?")
	b.run("the text shows in the open inbox within 1 s, bold, and the title counts it",
		chromedp.Poll[chromedp.Void](`(() => {
			const row = document.querySelector('[data-testid="inbox-row"]');
			return !!row && row.textContent.includes("move my appointment") && row.dataset.unread === "true" &&
				document.title.startsWith("(1) Inbox") && window.__noReload === true;
		})()`, within(time.Second), chromedp.WithPollingInterval(20*time.Millisecond)),
	)
	weight, err := chromedp.Run(b.ctx, chromedp.Evaluate[string](`getComputedStyle(document.querySelector('[data-testid="inbox-row"] .preview')).fontWeight`))
	if err != nil || weight != "700" {
		t.Errorf("unread row's font weight %q (%v), want bold (700)", weight, err)
	}
	b.shot("live-inbox-desktop")

	b.run("open the thread: it is read",
		chromedp.Click(testutil.TestID("inbox-link")),
		chromedp.WaitVisible(testutil.TestID("thread-items")),
		poll(`window.switchboardLive && window.switchboardLive.readyState === 1 && document.title.startsWith("(415) 555-0123")`, nil, within(5*time.Second)),
		chromedp.Evaluate[chromedp.Void](`window.__noReload = true`),
	)
	inbound("Or Saturday morning works too")
	b.run("the next text is appended to the open thread within 1 s, without a reload",
		chromedp.Poll[chromedp.Void](`(() => {
			const texts = Array.from(document.querySelectorAll('[data-testid="message-text"]'), e => e.textContent);
			return texts.length === 2 && texts[1].includes("Saturday morning") && window.__noReload === true;
		})()`, within(time.Second), chromedp.WithPollingInterval(20*time.Millisecond)),
	)
	b.shot("live-thread-desktop")
	// A teammate's triage (here the same user in a second tab) shows in the open thread: the
	// status badge changes and the activity entry is appended, without a reload or a poll.
	threadURL, err := chromedp.Run(b.ctx, chromedp.Location())
	if err != nil {
		t.Fatal(err)
	}
	other, cancelOther := chromedp.NewContext(b.ctx)
	defer cancelOther()
	if err := chromedp.Do(other, chromedp.Navigate(threadURL), chromedp.WaitVisible(testutil.TestID("close-form")),
		chromedp.Click(testutil.TestID("close-submit")), chromedp.WaitVisible(testutil.TestID("reopen-form"))); err != nil {
		t.Fatalf("close from a second tab: %v", err)
	}
	b.run("the close shows in the open thread within 1 s, without a reload",
		chromedp.Poll[chromedp.Void](`(() => {
			const entries = Array.from(document.querySelectorAll('#thread-items [data-testid="thread-entry"]'), e => e.textContent);
			return entries.some(e => e.includes("closed the conversation")) &&
				document.querySelector('[data-testid="thread-status"]').textContent.trim() === "closed" && window.__noReload === true;
		})()`, within(time.Second), chromedp.WithPollingInterval(20*time.Millisecond)),
	)

	b.run("phone width: the inbox",
		phone,
		chromedp.Navigate(srv.base+"/inbox"),
		chromedp.WaitVisible(testutil.TestID("inbox-list-region")),
	)
	b.shot("live-inbox-phone")
	b.run("phone width: the thread", chromedp.Click(testutil.TestID("inbox-link")), chromedp.WaitVisible(testutil.TestID("thread-items")))
	b.shot("live-thread-phone")

	// The page's stream is open; shutting down does not wait for it.
	b.run("the thread page listens", poll(`window.switchboardLive && window.switchboardLive.readyState === 1`, nil, within(5*time.Second)))
	start := time.Now()
	if code := srv.stop(t); code != 0 {
		t.Fatalf("serve exited %d on SIGTERM with a stream open; stderr:\n%s", code, srv.stderr)
	}
	if took := time.Since(start); took > 5*time.Second {
		t.Errorf("shutdown with a stream open took %v: open streams must end at once", took)
	}
}
