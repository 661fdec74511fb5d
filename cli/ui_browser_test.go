package cli

import (
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"switchboard/internal/testutil"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
)

// TestBrowserFirstRun is the first run, as a new admin lives it: `serve` on an empty
// directory prints the setup link; that link and headless Chromium, nothing else, go from
// creating the administrator to a workspace, a sandbox number, a new conversation and a reply
// that shows `delivered`; then a simulated inbound text shows in the thread, and one simulated
// from a second tab appears in the first by itself (htmx polling). Screenshots of each step go
// to a temporary directory, and to SCREENSHOT_DIR when it is set.
func TestBrowserFirstRun(t *testing.T) {
	chrome := testutil.Chromium(t)
	data := t.TempDir()
	addr := "127.0.0.1:" + testutil.FreePort(t)
	srv := startServer(t, addr, nil, "-addr", addr, "-data="+data, "-log-requests=false")
	link := setupLink(t, srv)

	b := openBrowser(t, chrome, 2*time.Minute, nil)
	ctx := b.ctx
	b.run("desktop width", desktop)
	b.typeSetup(link)
	b.shot("01-setup")
	b.run("submit setup", chromedp.Click(testutil.TestID("setup-submit")), chromedp.WaitVisible(testutil.TestID("notice-link")))
	b.shot("02-admin-created")
	b.run("continue to the inbox: no workspace yet",
		chromedp.Click(testutil.TestID("notice-link")),
		chromedp.WaitVisible(testutil.TestID("create-workspace-form")),
	)
	b.shot("03-create-workspace")
	b.run("create the workspace",
		chromedp.SendKeys(chromedp.CSS("#workspace-name"), "Acme Dental"),
		chromedp.Click(testutil.TestID("create-workspace-submit")),
		chromedp.WaitVisible(testutil.TestID("add-number-form")),
	)
	b.shot("04-add-number")
	b.run("add a sandbox number",
		chromedp.SendKeys(chromedp.CSS("#number-phone"), "+14155550100"),
		chromedp.SendKeys(chromedp.CSS("#number-name"), "Front desk"),
		chromedp.Click(testutil.TestID("add-number-submit")),
		chromedp.WaitVisible(testutil.TestID("new-conversation-form")),
	)
	b.shot("05-inbox-empty")
	b.run("a number that is no phone number is refused beside the field, as typed",
		chromedp.SendKeys(chromedp.CSS("#new-to"), "555-0123"),
		chromedp.Click(testutil.TestID("new-conversation-submit")),
		chromedp.WaitVisible(testutil.TestID("error-to")),
	)
	b.shot("05b-bad-number")
	b.run("start a conversation",
		chromedp.Clear(chromedp.CSS("#new-to")),
		chromedp.SendKeys(chromedp.CSS("#new-to"), "+14155550123"),
		chromedp.Click(testutil.TestID("new-conversation-submit")),
		chromedp.WaitVisible(testutil.TestID("reply-form")),
		chromedp.SendKeys(chromedp.CSS("#reply-text"), "Hi! Your cleaning is booked for Tuesday at 10:00."),
	)
	counter, err := chromedp.Run(b.ctx, chromedp.Text(testutil.TestID("reply-segments")))
	if err != nil {
		t.Fatal(err)
	}
	if strings.TrimSpace(counter) != "1 segment (GSM-7)" {
		t.Errorf("segment counter after typing: %q, want \"1 segment (GSM-7)\"", counter)
	}
	b.shot("06-compose")
	b.run("send the reply and see it delivered",
		chromedp.Click(testutil.TestID("reply-submit")),
		chromedp.WaitVisible(testutil.TestID("flash")),
		poll(`(() => { const s = document.querySelector('[data-testid="message-status"]'); return s && s.textContent.trim() === "delivered"; })()`,
			nil, chromedp.WithPollingTimeout(15*time.Second), chromedp.WithPollingInterval(200*time.Millisecond)),
	)
	b.shot("07-delivered")
	b.run("simulate an inbound text",
		chromedp.SendKeys(chromedp.CSS("#sim-text"), "Great, see you then!"),
		chromedp.Click(testutil.TestID("simulate-submit")),
		poll(`Array.from(document.querySelectorAll('[data-testid="message-text"]')).some(e => e.textContent.includes("see you then"))`,
			nil, chromedp.WithPollingTimeout(10*time.Second)),
	)
	b.shot("08-inbound")

	// A text that arrives while the thread is open appears in it without a reload.
	threadURL, err := chromedp.Run(b.ctx, chromedp.Location())
	if err != nil {
		t.Fatal(err)
	}
	other, cancel := chromedp.NewContext(ctx) // a second tab with the same session
	defer cancel()
	if err := chromedp.Do(other, chromedp.Navigate(threadURL), chromedp.WaitVisible(testutil.TestID("simulate-form")),
		chromedp.SendKeys(chromedp.CSS("#sim-text"), "Can I bring my daughter too?"), chromedp.Click(testutil.TestID("simulate-submit")),
		chromedp.WaitVisible(testutil.TestID("flash"))); err != nil {
		t.Fatalf("simulate from a second tab: %v", err)
	}
	b.run("see the new text appear in the open thread",
		poll(`Array.from(document.querySelectorAll('[data-testid="message-text"]')).some(e => e.textContent.includes("my daughter"))`,
			nil, chromedp.WithPollingTimeout(15*time.Second)),
	)
	b.shot("09-polled")
	b.run("answer the inbound text from the inbox and see the answer delivered",
		chromedp.SendKeys(chromedp.CSS("#reply-text"), "Of course, see you both on Tuesday!"),
		chromedp.Click(testutil.TestID("reply-submit")),
		chromedp.WaitVisible(testutil.TestID("flash")),
		poll(`Array.from(document.querySelectorAll('[data-testid="thread-message"]')).some(li =>
			li.textContent.includes("see you both") && li.dataset.status === "delivered")`,
			nil, chromedp.WithPollingTimeout(15*time.Second), chromedp.WithPollingInterval(200*time.Millisecond)),
	)
	b.shot("09b-answered")
	b.run("back to the inbox", chromedp.Click(chromedp.CSS(`.crumbs a[href="/inbox"]`), chromedp.NodeVisible), chromedp.WaitVisible(testutil.TestID("inbox-list")))
	rows, err := chromedp.Run(b.ctx, chromedp.Evaluate[[]string](`Array.from(document.querySelectorAll('[data-testid="inbox-row"]'), r => r.textContent)`))
	if err != nil {
		t.Fatal(err)
	}
	if len(rows) != 1 || !strings.Contains(rows[0], "(415) 555-0123") || !strings.Contains(rows[0], "see you both") {
		t.Errorf("inbox rows %q: want the one conversation with its latest text", rows)
	}
	b.shot("10-inbox")
	b.run("an unknown conversation is the 404 page",
		chromedp.Navigate(strings.TrimSuffix(threadURL, "/")[:strings.LastIndex(threadURL, "/")]+"/01ARZ3NDEKTSV4RRFFQ69G5FAV"),
		chromedp.WaitVisible(testutil.TestID("error-page")),
	)
	b.shot("12-not-found")
	b.run("sign out", chromedp.Click(testutil.TestID("sign-out")), chromedp.WaitVisible(testutil.TestID("login-form")))
	b.typeSignIn(adminEmail, adminPassword)
	b.shot("13-sign-in")
	b.run("sign in again to the inbox", b.submit("login-form", "login-submit", "Sign in"), chromedp.WaitVisible(testutil.TestID("inbox-list")))
	// A narrow screen gets the same pages, stacked.
	b.run("phone width", phone, chromedp.Navigate(threadURL), chromedp.WaitVisible(testutil.TestID("reply-form")))
	b.shot("11-thread-phone")

	// A page of another origin posting a form to Switchboard while the admin is signed in: the
	// browser sends it, and Switchboard refuses it (http.CrossOriginProtection); nothing is made.
	evil := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		fmt.Fprintf(w, `<!doctype html><form id="f" method="post" action="%s/workspaces"><input name="name" value="Evil Corp"></form>`+
			`<script>document.getElementById("f").submit()</script>`, srv.base)
	}))
	defer evil.Close()
	b.run("a cross-origin form post is refused",
		chromedp.EmulateViewport(1280, 900),
		chromedp.Navigate(evil.URL),
		poll(`location.href.endsWith("/workspaces") && document.body.innerText.toLowerCase().includes("cross-origin")`,
			nil, chromedp.WithPollingTimeout(10*time.Second)),
	)
	b.shot("14-cross-origin-refused")
	b.run("and no workspace was made", chromedp.Navigate(srv.base+"/admin/workspaces"), chromedp.WaitVisible(chromedp.CSS("h1")))
	body, err := chromedp.Run(b.ctx, chromedp.Text(chromedp.CSS("body")))
	if err != nil {
		t.Fatal(err)
	}
	if strings.Contains(body, "Evil Corp") {
		t.Error("a cross-origin form post created a workspace")
	}
}
