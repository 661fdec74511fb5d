package cli

import (
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"regexp"
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
	link := ""
	re := regexp.MustCompile(`one-time link\): (\S+)`)
	for deadline := time.Now().Add(5 * time.Second); link == "" && time.Now().Before(deadline); time.Sleep(20 * time.Millisecond) {
		if m := re.FindStringSubmatch(srv.stdout.String()); m != nil {
			link = m[1]
		}
	}
	if link == "" {
		t.Fatalf("serve printed no setup link; stdout:\n%s", srv.stdout)
	}
	// The link names the default public URL (localhost); the browser reaches the same port.
	link = strings.Replace(link, "http://localhost:", "http://127.0.0.1:", 1)

	shots := newShots(t)
	ctx := testutil.StartChromium(t, chrome, 2*time.Minute)
	run := func(step string, actions ...chromedp.Action[chromedp.Void]) {
		t.Helper()
		if err := chromedp.Do(ctx, actions...); err != nil {
			shots.take(ctx, "failed-"+step)
			t.Fatalf("%s: %v", step, err)
		}
	}
	run("open the setup link and create the administrator",
		chromedp.EmulateViewport(1280, 860),
		chromedp.Navigate(link),
		chromedp.WaitVisible(testutil.TestID("setup-form")),
		chromedp.SendKeys(chromedp.CSS("#email"), "admin@acme.example"),
		chromedp.SendKeys(chromedp.CSS("#name"), "Dana Admin"),
		chromedp.SendKeys(chromedp.CSS("#password"), "correct horse battery"),
	)
	shots.take(ctx, "01-setup")
	run("submit setup", chromedp.Click(testutil.TestID("setup-submit")), chromedp.WaitVisible(testutil.TestID("notice-link")))
	shots.take(ctx, "02-admin-created")
	run("continue to the inbox: no workspace yet",
		chromedp.Click(testutil.TestID("notice-link")),
		chromedp.WaitVisible(testutil.TestID("create-workspace-form")),
	)
	shots.take(ctx, "03-create-workspace")
	run("create the workspace",
		chromedp.SendKeys(chromedp.CSS("#workspace-name"), "Acme Dental"),
		chromedp.Click(testutil.TestID("create-workspace-submit")),
		chromedp.WaitVisible(testutil.TestID("add-number-form")),
	)
	shots.take(ctx, "04-add-number")
	run("add a sandbox number",
		chromedp.SendKeys(chromedp.CSS("#number-phone"), "+14155550100"),
		chromedp.SendKeys(chromedp.CSS("#number-name"), "Front desk"),
		chromedp.Click(testutil.TestID("add-number-submit")),
		chromedp.WaitVisible(testutil.TestID("new-conversation-form")),
	)
	shots.take(ctx, "05-inbox-empty")
	run("a number that is no phone number is refused beside the field, as typed",
		chromedp.SendKeys(chromedp.CSS("#new-to"), "555-0123"),
		chromedp.Click(testutil.TestID("new-conversation-submit")),
		chromedp.WaitVisible(testutil.TestID("error-to")),
	)
	shots.take(ctx, "05b-bad-number")
	run("start a conversation",
		chromedp.Clear(chromedp.CSS("#new-to")),
		chromedp.SendKeys(chromedp.CSS("#new-to"), "+14155550123"),
		chromedp.Click(testutil.TestID("new-conversation-submit")),
		chromedp.WaitVisible(testutil.TestID("reply-form")),
		chromedp.SendKeys(chromedp.CSS("#reply-text"), "Hi! Your cleaning is booked for Tuesday at 10:00."),
	)
	counter, err := chromedp.Run(ctx, chromedp.Text(testutil.TestID("reply-segments")))
	if err != nil {
		t.Fatal(err)
	}
	if strings.TrimSpace(counter) != "1 segment (GSM-7)" {
		t.Errorf("segment counter after typing: %q, want \"1 segment (GSM-7)\"", counter)
	}
	shots.take(ctx, "06-compose")
	run("send the reply and see it delivered",
		chromedp.Click(testutil.TestID("reply-submit")),
		chromedp.WaitVisible(testutil.TestID("flash")),
		poll(`(() => { const s = document.querySelector('[data-testid="message-status"]'); return s && s.textContent.trim() === "delivered"; })()`,
			nil, chromedp.WithPollingTimeout(15*time.Second), chromedp.WithPollingInterval(200*time.Millisecond)),
	)
	shots.take(ctx, "07-delivered")
	run("simulate an inbound text",
		chromedp.SendKeys(chromedp.CSS("#sim-text"), "Great, see you then!"),
		chromedp.Click(testutil.TestID("simulate-submit")),
		poll(`Array.from(document.querySelectorAll('[data-testid="message-text"]')).some(e => e.textContent.includes("see you then"))`,
			nil, chromedp.WithPollingTimeout(10*time.Second)),
	)
	shots.take(ctx, "08-inbound")

	// A text that arrives while the thread is open appears in it without a reload.
	threadURL, err := chromedp.Run(ctx, chromedp.Location())
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
	run("see the new text appear in the open thread",
		poll(`Array.from(document.querySelectorAll('[data-testid="message-text"]')).some(e => e.textContent.includes("my daughter"))`,
			nil, chromedp.WithPollingTimeout(15*time.Second)),
	)
	shots.take(ctx, "09-polled")
	run("answer the inbound text from the inbox and see the answer delivered",
		chromedp.SendKeys(chromedp.CSS("#reply-text"), "Of course, see you both on Tuesday!"),
		chromedp.Click(testutil.TestID("reply-submit")),
		chromedp.WaitVisible(testutil.TestID("flash")),
		poll(`Array.from(document.querySelectorAll('[data-testid="thread-message"]')).some(li =>
			li.textContent.includes("see you both") && li.dataset.status === "delivered")`,
			nil, chromedp.WithPollingTimeout(15*time.Second), chromedp.WithPollingInterval(200*time.Millisecond)),
	)
	shots.take(ctx, "09b-answered")
	run("back to the inbox", chromedp.Click(chromedp.CSS(`.crumbs a[href="/inbox"]`), chromedp.NodeVisible), chromedp.WaitVisible(testutil.TestID("inbox-list")))
	rows, err := chromedp.Run(ctx, chromedp.Evaluate[[]string](`Array.from(document.querySelectorAll('[data-testid="inbox-row"]'), r => r.textContent)`))
	if err != nil {
		t.Fatal(err)
	}
	if len(rows) != 1 || !strings.Contains(rows[0], "(415) 555-0123") || !strings.Contains(rows[0], "see you both") {
		t.Errorf("inbox rows %q: want the one conversation with its latest text", rows)
	}
	shots.take(ctx, "10-inbox")
	run("an unknown conversation is the 404 page",
		chromedp.Navigate(strings.TrimSuffix(threadURL, "/")[:strings.LastIndex(threadURL, "/")]+"/01ARZ3NDEKTSV4RRFFQ69G5FAV"),
		chromedp.WaitVisible(testutil.TestID("error-page")),
	)
	shots.take(ctx, "12-not-found")
	run("sign out, then sign in again to the inbox",
		chromedp.Click(testutil.TestID("sign-out")),
		chromedp.WaitVisible(testutil.TestID("login-form")),
		chromedp.SendKeys(testutil.TestID("login-email"), "admin@acme.example"),
		chromedp.SendKeys(testutil.TestID("login-password"), "correct horse battery"),
	)
	shots.take(ctx, "13-sign-in")
	run("sign in", chromedp.Click(testutil.TestID("login-submit")), chromedp.WaitVisible(testutil.TestID("inbox-list")))
	// A narrow screen gets the same pages, stacked.
	run("phone width", chromedp.EmulateViewport(390, 844), chromedp.Navigate(threadURL), chromedp.WaitVisible(testutil.TestID("reply-form")))
	shots.take(ctx, "11-thread-phone")

	// A page of another origin posting a form to Switchboard while the admin is signed in: the
	// browser sends it, and Switchboard refuses it (http.CrossOriginProtection); nothing is made.
	evil := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		fmt.Fprintf(w, `<!doctype html><form id="f" method="post" action="%s/workspaces"><input name="name" value="Evil Corp"></form>`+
			`<script>document.getElementById("f").submit()</script>`, srv.base)
	}))
	defer evil.Close()
	run("a cross-origin form post is refused",
		chromedp.EmulateViewport(1280, 900),
		chromedp.Navigate(evil.URL),
		poll(`location.href.endsWith("/workspaces") && document.body.innerText.toLowerCase().includes("cross-origin")`,
			nil, chromedp.WithPollingTimeout(10*time.Second)),
	)
	shots.take(ctx, "14-cross-origin-refused")
	run("and no workspace was made", chromedp.Navigate(srv.base+"/admin/workspaces"), chromedp.WaitVisible(chromedp.CSS("h1")))
	body, err := chromedp.Run(ctx, chromedp.Text(chromedp.CSS("body")))
	if err != nil {
		t.Fatal(err)
	}
	if strings.Contains(body, "Evil Corp") {
		t.Error("a cross-origin form post created a workspace")
	}
}

// shots saves full-page PNGs to a temporary directory and SCREENSHOT_DIR.
type shots struct {
	t    *testing.T
	dirs []string
}

func newShots(t *testing.T) *shots {
	s := &shots{t: t, dirs: []string{t.TempDir()}}
	if d := os.Getenv("SCREENSHOT_DIR"); d != "" {
		if err := os.MkdirAll(d, 0o755); err == nil {
			s.dirs = append(s.dirs, d)
		}
	}
	return s
}

func (s *shots) take(ctx context.Context, name string) {
	png, err := chromedp.Run(ctx, chromedp.FullScreenshot(100))
	if err != nil {
		s.t.Logf("screenshot %s: %v", name, err)
		return
	}
	for _, d := range s.dirs {
		if err := os.WriteFile(filepath.Join(d, name+".png"), png, 0o644); err != nil {
			s.t.Logf("screenshot %s: %v", name, err)
		}
	}
}

// poll waits until the expression is true, as a step of a chromedp.Do. A form submitted just
// before navigates the page under the poll, which ends it with an error: it starts again on the
// new page, until 15 s have passed.
func poll(expr string, _ any, opts ...chromedp.PollOption) chromedp.Action[chromedp.Void] {
	return func(ctx context.Context, t *chromedp.Target) (chromedp.Void, error) {
		deadline := time.Now().Add(15 * time.Second)
		for {
			_, err := chromedp.Poll[bool](expr, opts...)(ctx, t)
			if err == nil || time.Now().After(deadline) || ctx.Err() != nil {
				return chromedp.Void{}, err
			}
			time.Sleep(100 * time.Millisecond)
		}
	}
}
