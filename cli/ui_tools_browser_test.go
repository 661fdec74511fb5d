package cli

import (
	"strings"
	"switchboard/internal/testutil"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
)

// TestBrowserInboxTools drives the agent tools as a person does: the "To" field finds José by
// name and fills his number; the contact page's "Send message" lands in the thread; Ctrl+Enter
// sends a reply; "?" lists the keys; a new token has a Copy button.
func TestBrowserInboxTools(t *testing.T) {
	chrome := testutil.Chromium(t)
	f := newPagesFixture(t)
	addr := "127.0.0.1:" + testutil.FreePort(t)
	startServer(t, addr, nil, "-addr", addr, "-data="+f.data, "-log-requests=false")
	f.base = "http://" + addr

	b := openBrowser(t, chrome, 3*time.Minute, nil)
	b.failShot = "tools-failed"
	b.stepLimit = 20 * time.Second
	eval := func(expr string) string {
		t.Helper()
		v, err := chromedp.Run(b.ctx, chromedp.Evaluate[string](expr))
		if err != nil {
			t.Fatalf("%s: %v", expr, err)
		}
		return v
	}
	b.signIn(f.base+"/login", "ana@example.com", "correct horse", testutil.TestID("new-conversation-form"))
	b.run("the picker finds José by name",
		chromedp.SendKeys(testutil.TestID("new-to"), "jose"),
		chromedp.WaitVisible(testutil.TestID("to-suggestion")),
	)
	b.shot("tools-01-picker")
	b.run("choosing him fills the number", chromedp.Click(testutil.TestID("to-suggestion")))
	if got := eval(`document.querySelector('[data-testid="new-to"]').value`); got != "(415) 555-0123" {
		t.Fatalf("the To field holds %q after choosing José, want (415) 555-0123", got)
	}
	b.run("start the conversation",
		chromedp.Click(testutil.TestID("new-conversation-submit")),
		chromedp.WaitVisible(testutil.TestID("reply-form")),
	)
	thread := eval(`location.href`)
	b.run("Ctrl+Enter sends the reply",
		chromedp.SendKeys(testutil.TestID("reply-text"), "Typed and sent with the keyboard"),
		chromedp.KeyEvent("\r", chromedp.KeyModifiers(2)), // 2: Ctrl
		poll(`Array.from(document.querySelectorAll('[data-testid="message-text"]')).some(e => e.textContent.includes("Typed and sent with the keyboard"))`, nil,
			chromedp.WithPollingTimeout(10*time.Second), chromedp.WithPollingInterval(100*time.Millisecond)),
	)
	b.shot("tools-02-ctrl-enter")
	b.run("? shows the keys",
		chromedp.Click(chromedp.CSS("h1")),
		chromedp.KeyEvent("?"),
		chromedp.WaitVisible(testutil.TestID("keys-dialog")),
	)
	if text := eval(`document.querySelector('[data-testid="keys-dialog"]').textContent`); !strings.Contains(text, "Ctrl+Enter") || !strings.Contains(text, "j / k") {
		t.Fatalf("the keys dialog says %q", text)
	}
	b.run("an admin saves a snippet",
		chromedp.Navigate(f.base+"/settings/snippets"),
		chromedp.WaitVisible(testutil.TestID("snippet-form")),
		chromedp.SendKeys(testutil.TestID("snippet-name"), "Opening hours"),
		chromedp.SendKeys(testutil.TestID("snippet-shortcut"), "hours"),
		chromedp.SendKeys(testutil.TestID("snippet-text"), "Hi {{firstName|there}}, we open at 9."),
		chromedp.Click(testutil.TestID("snippet-save")),
		chromedp.WaitVisible(testutil.TestID("snippets-list")),
	)
	b.run("/hours then Tab in the reply box puts it in, filled for José",
		chromedp.Navigate(thread),
		chromedp.WaitVisible(testutil.TestID("reply-form")),
		chromedp.SendKeys(testutil.TestID("reply-text"), "/hours"),
		chromedp.KeyEvent("\t"),
		poll(`document.querySelector('[data-testid="reply-text"]').value === "Hi José, we open at 9."`, nil,
			chromedp.WithPollingTimeout(10*time.Second), chromedp.WithPollingInterval(100*time.Millisecond)),
	)
	b.shot("tools-03-snippet")
	b.run("an unknown shortcut says so",
		chromedp.SendKeys(testutil.TestID("reply-text"), " /nope"),
		chromedp.KeyEvent("\t"),
		poll(`document.querySelector('[data-testid="error-snippet"]').textContent.includes("There is no snippet /nope")`, nil,
			chromedp.WithPollingTimeout(10*time.Second), chromedp.WithPollingInterval(100*time.Millisecond)),
	)
	b.run("the Snippets picker inserts it too",
		poll(`(document.querySelector('[data-testid="reply-text"]').value = "") === ""`, nil),
		chromedp.Click(testutil.TestID("snippet-insert")),
		poll(`document.querySelector('[data-testid="reply-text"]').value === "Hi José, we open at 9."`, nil,
			chromedp.WithPollingTimeout(10*time.Second), chromedp.WithPollingInterval(100*time.Millisecond)),
	)
	b.run("Send message from the contact page",
		chromedp.Navigate(f.base+"/contacts"),
		chromedp.WaitVisible(chromedp.CSS(`a[href^="/contacts/0"]`)),
		chromedp.Click(chromedp.CSS(`a[href^="/contacts/0"]`)),
		chromedp.WaitVisible(testutil.TestID("contact-send-form")),
		chromedp.SendKeys(testutil.TestID("contact-send-text"), "Your crown is ready."),
		chromedp.Click(testutil.TestID("contact-send-submit")),
		chromedp.WaitVisible(testutil.TestID("reply-form")),
		poll(`Array.from(document.querySelectorAll('[data-testid="message-text"]')).some(m => m.textContent.includes("Your crown is ready."))`, nil,
			chromedp.WithPollingTimeout(10*time.Second)),
	)
	b.run("a token has a Copy button",
		chromedp.Navigate(f.base+"/settings/tokens"),
		chromedp.WaitVisible(testutil.TestID("token-form")),
		chromedp.SendKeys(chromedp.CSS("#token-name"), "laptop"),
		chromedp.Click(testutil.TestID("token-create")),
		chromedp.WaitVisible(testutil.TestID("copy-new-token")),
	)
}

// TestAdminSetWorkspaceCountry: set-workspace --country takes a two-letter code in either case
// and refuses one libphonenumber does not know.
func TestAdminSetWorkspaceCountry(t *testing.T) {
	f := newFixture(t)
	d := "-data=" + f.data
	if got := ok(t, "admin", "set-workspace", d, "--workspace", f.ws, "--country", "gb"); got != f.ws {
		t.Fatalf("set-workspace --country gb printed %q, want the workspace id", got)
	}
	fails(t, "country", "admin", "set-workspace", d, "--workspace", f.ws, "--country", "XX")
}
